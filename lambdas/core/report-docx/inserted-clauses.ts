/**
 * A clause the playbook requires and the contract lacks, written once as a paragraph of its own,
 * where the playbook places it (after the paragraph its `placement` clause ends in, else after
 * the body's last paragraph), as Word records a paragraph typed there: its runs in `w:ins`, and
 * the paragraph mark before it inserted (ECMA-376 Part 1, 17.13.5.16), so rejecting the change
 * leaves the document as it was and accepting it keeps the clause. Never appended to another
 * clause's paragraph.
 */
import type { ReportClause } from '../report-types.js';
import { isW, paragraphMarkProperties, wElement } from './ooxml.js';
import type { ChangeStamp } from './tracked-changes.js';

/** A required clause to insert. */
export interface DocxClauseInsert {
  /** The finding's id (`document/playbook/<topic>`). */
  readonly id: string;
  /** The clause it goes after; absent: after the last paragraph of the body. */
  readonly afterClauseId?: string;
  /** The clause's language, in the contract's terms. */
  readonly text: string;
  /** Its heading, written bold before the language ("Limitation of Liability."). */
  readonly heading?: string;
  /** Who decided it must go in, by the name the trail shows; absent while undecided. */
  readonly decidedBy?: string;
}

/** Where a paragraph is, found by its text's end: the offsets' paragraph in the body. */
export type ParagraphAt = (offset: number) => Element | undefined;

/** The body's paragraph that follows the last one, for an insertion at the end: before `w:sectPr`. */
function lastParagraph(body: Element): Element | undefined {
  let last: Element | undefined;
  for (let n = body.firstChild; n; n = n.nextSibling) if (isW(n, 'p')) last = n as Element;
  return last;
}

/** A paragraph's `w:pPr`, if it has one. */
function pPrOf(p: Element): Element | undefined {
  for (let c = p.firstChild; c; c = c.nextSibling) if (isW(c, 'pPr')) return c as Element;
  return undefined;
}

/**
 * The new paragraph's properties: the paragraph's it follows (its style, numbering and spacing),
 * without its section break, run properties or tracked changes.
 */
function copiedProperties(from: Element): Element | undefined {
  const pPr = pPrOf(from);
  if (!pPr) return undefined;
  const copy = pPr.cloneNode(true) as Element;
  for (let c = copy.firstChild; c; ) {
    const next = c.nextSibling;
    if (isW(c, 'sectPr') || isW(c, 'rPr') || isW(c, 'pPrChange')) copy.removeChild(c);
    c = next;
  }
  return copy;
}

/**
 * Marks a paragraph's mark inserted (CT_ParaRPr: `w:ins` first), as Word records the paragraph
 * mark typed to start a new paragraph after it. False when its mark is already a change.
 */
function markInserted(p: Element, stamp: ChangeStamp): boolean {
  const doc = p.ownerDocument as Document;
  const rPr = paragraphMarkProperties(p);
  for (let c = rPr.firstChild; c; c = c.nextSibling) if (isW(c, 'ins') || isW(c, 'del')) return false;
  rPr.insertBefore(
    wElement(doc, 'ins', { id: String(stamp.nextId()), author: stamp.author, date: stamp.date }),
    rPr.firstChild,
  );
  return true;
}

/** An inserted run of `text`, bold for a heading. */
function insertedRun(doc: Document, text: string, bold: boolean): Element {
  const r = wElement(doc, 'r');
  if (bold) r.appendChild(wElement(doc, 'rPr')).appendChild(wElement(doc, 'b'));
  const t = wElement(doc, 't');
  t.setAttribute('xml:space', 'preserve');
  t.appendChild(doc.createTextNode(text));
  r.appendChild(t);
  return r;
}

/**
 * A new paragraph holding the clause (its heading bold, then its language) as inserted runs,
 * with the properties of the one it follows.
 */
function insertedParagraph(
  doc: Document,
  after: Element,
  insert: Pick<DocxClauseInsert, 'text' | 'heading'>,
  stamp: ChangeStamp,
): Element {
  const p = wElement(doc, 'p');
  const pPr = copiedProperties(after);
  if (pPr) p.appendChild(pPr);
  const ins = wElement(doc, 'ins', { id: String(stamp.nextId()), author: stamp.author, date: stamp.date });
  if (insert.heading) ins.appendChild(insertedRun(doc, `${insert.heading}. `, true));
  ins.appendChild(insertedRun(doc, insert.text, false));
  p.appendChild(ins);
  return p;
}

/** Lines a page break left in a clause's text: a page number, alone ("- 9 -", "12"). */
const TRAILING_PAGE_NUMBERS = /(?:\n[ \t]*(?:-\s*)?\d{1,4}(?:\s*-)?[ \t]*)+\s*$/;

/** Where a clause's own words end: before any page number its text ends with. */
function ownEnd(c: Pick<ReportClause, 'start' | 'end' | 'text'>): number {
  const words = c.text.replace(TRAILING_PAGE_NUMBERS, '');
  return words.trim() === '' ? c.end : c.start + words.length;
}

/**
 * Writes each required clause after its placement's paragraph. Returns the ids written and the
 * paragraphs written, by id, for their comments.
 */
export function insertClauses(
  body: Element,
  clauses: readonly Pick<ReportClause, 'id' | 'start' | 'end' | 'text'>[],
  inserts: readonly DocxClauseInsert[],
  paragraphAt: ParagraphAt,
  stampOf: (insert: DocxClauseInsert) => ChangeStamp,
): Map<string, Element> {
  const doc = body.ownerDocument as Document;
  const written = new Map<string, Element>();
  for (const insert of inserts) {
    const after = insert.afterClauseId ? clauses.find((c) => c.id === insert.afterClauseId) : undefined;
    const anchor = (after ? paragraphAt(Math.max(0, ownEnd(after) - 1)) : undefined) ?? lastParagraph(body);
    if (!anchor?.parentNode) continue;
    // After the anchor, and after any paragraphs already inserted after it, in order.
    let at: Element = anchor;
    while (at.nextSibling && [...written.values()].includes(at.nextSibling as Element))
      at = at.nextSibling as Element;
    const stamp = stampOf(insert);
    // The mark that starts the new paragraph is the one before it: marked inserted, rejecting
    // the change joins what it ends to the new (emptied) paragraph, as the document was.
    if (!markInserted(at, stamp)) continue;
    const p = insertedParagraph(doc, at, insert, stamp);
    at.parentNode?.insertBefore(p, at.nextSibling);
    written.set(insert.id, p);
  }
  return written;
}
