/**
 * The Office Open XML package of a Word document, read and written with a zip library (fflate)
 * and an XML DOM (@xmldom/xmldom): parts are parsed into DOM trees, changed through the DOM, and
 * serialised back, so no markup is ever put together from strings. Every part written goes
 * through the XML text sanitizer first (`xml-text.ts`); parts not changed keep their bytes unless
 * they hold characters XML 1.0 forbids (a lenient writer's upload), which are sanitized the same
 * way, so every part of the package parses under a strict XML parser.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { elements, isW, parsePart, W_NS } from '../wordml/index.js';
import { DocxPackageError } from './errors.js';
import { needsSanitizing, sanitizeTree } from './xml-text.js';

export { elements, isW, W_NS } from '../wordml/index.js';

const CT_NS = 'http://schemas.openxmlformats.org/package/2006/content-types';
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const OFFICE_DOCUMENT_REL =
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument';
export const COMMENTS_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments';
export const COMMENTS_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml';
export const DOCUMENT_TYPE =
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';

/** Parts that hold XML: the content types, relationships, WordprocessingML and VML parts. */
const XML_PART = /\.(xml|rels|vml)$/i;

/** A DOCX package: its parts by name, in the zip's order. */
export class DocxPackage {
  /** Parts stored through `setXml`, sanitized as they were written. */
  private readonly written = new Set<string>();

  private constructor(
    private readonly parts: Map<string, Uint8Array>,
    private readonly jobId: string,
  ) {}

  /** Reads a package's parts. @throws DocxPackageError when the bytes are not a zip */
  static read(bytes: Uint8Array, jobId: string): DocxPackage {
    try {
      return new DocxPackage(new Map(Object.entries(unzipSync(bytes))), jobId);
    } catch (cause) {
      throw new DocxPackageError(`the uploaded document of job ${jobId} is not a zip package`, jobId, '', {
        cause,
      });
    }
  }

  /** An empty package, to build a document in. */
  static empty(jobId: string): DocxPackage {
    return new DocxPackage(new Map(), jobId);
  }

  has(name: string): boolean {
    return this.parts.has(name);
  }

  /** The names of the package's parts. */
  names(): string[] {
    return [...this.parts.keys()];
  }

  /** A part's text (UTF-8), or undefined when there is no such part. */
  text(name: string): string | undefined {
    const bytes = this.parts.get(name);
    return bytes ? strFromU8(bytes) : undefined;
  }

  /** A part parsed as XML. @throws DocxPackageError when it is missing or does not parse */
  xml(name: string): Document {
    const bytes = this.parts.get(name);
    if (!bytes) throw new DocxPackageError(`the package has no part '${name}'`, this.jobId, name);
    const parsed = parsePart(strFromU8(bytes));
    if ('error' in parsed) {
      throw new DocxPackageError(
        `the part '${name}' is not well-formed XML: ${parsed.error}`,
        this.jobId,
        name,
      );
    }
    return parsed.doc;
  }

  /** Stores a part from its DOM, every character XML 1.0 forbids replaced first. */
  setXml(name: string, doc: Document): void {
    sanitizeTree(doc);
    this.parts.set(name, strToU8(new XMLSerializer().serializeToString(doc)));
    this.written.add(name);
  }

  /**
   * The package as zip bytes. An XML part never written through `setXml` that holds a forbidden
   * character (or a reference to one) is parsed and written back sanitized.
   */
  bytes(): Uint8Array {
    for (const name of this.parts.keys()) {
      if (this.written.has(name) || !XML_PART.test(name)) continue;
      if (!needsSanitizing(this.text(name) ?? '')) continue;
      let doc: Document;
      try {
        doc = this.xml(name);
      } catch {
        continue; // A part that does not parse at all stays as uploaded: it is not ours to mend.
      }
      this.setXml(name, doc);
    }
    return zipSync(Object.fromEntries(this.parts), { level: 6 });
  }

  /** The main document part's name, from the package relationships (`word/document.xml` as a rule). */
  mainPart(): string {
    const rels = this.xml('_rels/.rels');
    for (const rel of elements(rels.documentElement, REL_NS, 'Relationship')) {
      if (rel.getAttribute('Type') === OFFICE_DOCUMENT_REL)
        return (rel.getAttribute('Target') ?? '').replace(/^\//, '');
    }
    throw new DocxPackageError('the package names no main document part', this.jobId, '_rels/.rels');
  }

  /**
   * The name of the comments part of `main`, creating its relationship and content type when the
   * document has none yet.
   */
  commentsPart(main: string): { name: string; exists: boolean } {
    const dir = main.includes('/') ? main.slice(0, main.lastIndexOf('/') + 1) : '';
    const relsName = `${dir}_rels/${main.slice(dir.length)}.rels`;
    const rels = this.has(relsName) ? this.xml(relsName) : newXml(REL_NS, 'Relationships');
    const all = elements(rels.documentElement, REL_NS, 'Relationship');
    const found = all.find((r) => r.getAttribute('Type') === COMMENTS_REL);
    if (found) {
      const name = `${dir}${found.getAttribute('Target') ?? ''}`.replace(/^\//, '');
      return { name, exists: this.has(name) };
    }
    const ids = new Set(all.map((r) => r.getAttribute('Id')));
    let n = all.length + 1;
    while (ids.has(`rId${n}`)) n++;
    const rel = rels.createElementNS(REL_NS, 'Relationship');
    rel.setAttribute('Id', `rId${n}`);
    rel.setAttribute('Type', COMMENTS_REL);
    rel.setAttribute('Target', 'comments.xml');
    rels.documentElement.appendChild(rel);
    this.setXml(relsName, rels);
    const name = `${dir}comments.xml`;
    this.setContentType(`/${name}`, COMMENTS_TYPE);
    return { name, exists: false };
  }

  /** Adds (or replaces) the content-type override of a part. */
  setContentType(partName: string, type: string): void {
    const types = this.has('[Content_Types].xml') ? this.xml('[Content_Types].xml') : newXml(CT_NS, 'Types');
    const root = types.documentElement;
    for (const o of elements(root, CT_NS, 'Override'))
      if (o.getAttribute('PartName') === partName) root.removeChild(o);
    const override = types.createElementNS(CT_NS, 'Override');
    override.setAttribute('PartName', partName);
    override.setAttribute('ContentType', type);
    root.appendChild(override);
    this.setXml('[Content_Types].xml', types);
  }

  /** Adds a default content type by extension, unless one is there. */
  setDefaultType(extension: string, type: string): void {
    const types = this.has('[Content_Types].xml') ? this.xml('[Content_Types].xml') : newXml(CT_NS, 'Types');
    const root = types.documentElement;
    if (elements(root, CT_NS, 'Default').some((d) => d.getAttribute('Extension') === extension)) return;
    const d = types.createElementNS(CT_NS, 'Default');
    d.setAttribute('Extension', extension);
    d.setAttribute('ContentType', type);
    root.insertBefore(d, root.firstChild);
    this.setXml('[Content_Types].xml', types);
  }
}

/** A new XML document with one root element in `ns`. */
export function newXml(ns: string, root: string, prefix?: string): Document {
  const doc = new DOMParser().parseFromString(
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><x/>',
    'text/xml',
  );
  const el = doc.createElementNS(ns, prefix ? `${prefix}:${root}` : root);
  doc.replaceChild(el, doc.documentElement);
  return doc;
}

/** A WordprocessingML element with the prefix the document uses for the namespace. */
export function wElement(
  doc: Document,
  local: string,
  attrs: Readonly<Record<string, string>> = {},
): Element {
  const prefix = doc.documentElement.lookupPrefix(W_NS) ?? 'w';
  const el = doc.createElementNS(W_NS, `${prefix}:${local}`);
  for (const [k, v] of Object.entries(attrs)) el.setAttributeNS(W_NS, `${prefix}:${k}`, v);
  return el;
}

/**
 * A paragraph's mark properties (`w:pPr/w:rPr`), created where CT_PPr puts them (before
 * `w:sectPr` and `w:pPrChange`) when the paragraph has none: where a tracked change to the
 * paragraph mark itself is recorded (ECMA-376 Part 1, 17.13.5.16 and 17.13.5.15).
 */
export function paragraphMarkProperties(p: Element): Element {
  const doc = p.ownerDocument as Document;
  let pPr: Element | undefined;
  for (let c = p.firstChild; c && !pPr; c = c.nextSibling) if (isW(c, 'pPr')) pPr = c as Element;
  if (!pPr) {
    pPr = wElement(doc, 'pPr');
    p.insertBefore(pPr, p.firstChild);
  }
  let before: Node | null = null;
  for (let c = pPr.firstChild; c; c = c.nextSibling) {
    if (isW(c, 'rPr')) return c as Element;
    if (!before && (isW(c, 'sectPr') || isW(c, 'pPrChange'))) before = c;
  }
  return pPr.insertBefore(wElement(doc, 'rPr'), before);
}
