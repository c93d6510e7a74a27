/**
 * How the redline tests read a report.docx back as Word would: a part's text normalised as intake
 * normalises it, and the document part with every change of ours rejected or accepted.
 */
import { XMLSerializer } from '@xmldom/xmldom';
import { normaliseText } from '../../../lambdas/core/documents/normalise.js';
import { W, xmlPart } from '../../helpers/docx-report.js';
import { acceptChanges, rejectChanges, wordText } from '../../helpers/tracked-changes.js';

/** The date report.docx writes on its changes for the reports `reportOf` makes. */
export const DATE = '2026-03-01T10:00:00Z';

/** A document part's text, normalised as intake normalises the text it reads. */
export const readText = (doc: Document) => normaliseText(wordText(doc));

export const serialize = (node: Node) => new XMLSerializer().serializeToString(node);

/** report.docx's document part with every change of ours rejected, or accepted. */
export function decided(
  docx: Uint8Array,
  how: 'accept' | 'reject',
  author: string | readonly string[],
): Document {
  const doc = xmlPart(docx, 'word/document.xml');
  if (how === 'accept') acceptChanges(doc, author);
  else rejectChanges(doc, author);
  return doc;
}

/** The WordprocessingML elements of a local name under a node, in document order. */
export function elementsOf(root: Document | Element, local: string): Element[] {
  const found = root.getElementsByTagNameNS(W, local);
  return Array.from({ length: found.length }, (_, i) => found.item(i) as Element);
}
