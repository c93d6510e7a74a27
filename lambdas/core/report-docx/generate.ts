/**
 * A plain Word document of a contract's text, for uploads that were not DOCX: one paragraph per
 * line of the normalised text (blank lines separate paragraphs and are left out), in a package
 * of the four parts Word needs. Built through the DOM like every other part.
 */
import { DOCUMENT_TYPE, DocxPackage, newXml, OFFICE_DOCUMENT_REL, W_NS, wElement } from './ooxml.js';

const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** A DOCX package holding `text`, one paragraph per non-blank line. */
export function plainDocument(text: string, jobId: string): DocxPackage {
  const pkg = DocxPackage.empty(jobId);
  pkg.setDefaultType('xml', 'application/xml');
  pkg.setDefaultType('rels', 'application/vnd.openxmlformats-package.relationships+xml');
  pkg.setContentType('/word/document.xml', DOCUMENT_TYPE);
  const rels = newXml(REL_NS, 'Relationships');
  const rel = rels.createElementNS(REL_NS, 'Relationship');
  rel.setAttribute('Id', 'rId1');
  rel.setAttribute('Type', OFFICE_DOCUMENT_REL);
  rel.setAttribute('Target', 'word/document.xml');
  rels.documentElement.appendChild(rel);
  pkg.setXml('_rels/.rels', rels);
  const doc = newXml(W_NS, 'document', 'w');
  const body = wElement(doc, 'body');
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const p = wElement(doc, 'p');
    const r = wElement(doc, 'r');
    const t = wElement(doc, 't');
    t.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
    t.appendChild(doc.createTextNode(line));
    r.appendChild(t);
    p.appendChild(r);
    body.appendChild(p);
  }
  doc.documentElement.appendChild(body);
  pkg.setXml('word/document.xml', doc);
  return pkg;
}
