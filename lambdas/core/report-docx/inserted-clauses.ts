/**
 * A clause the playbook requires and the contract lacks, written once as a paragraph of its own,
 * where the playbook places it (after the paragraph its `placement` clause ends in, else after
 * the body's last paragraph), as a tracked insertion: its runs in `w:ins`, and its paragraph mark
 * inserted too (ECMA-376 Part 1, 17.13.5.16), so rejecting the change removes the paragraph and
 * leaves the document as it was, and accepting it keeps the clause. Never appended to another
 * clause's paragraph.
 */
import type { ReportClause } from '../report-types.js';
import { isW, wElement } from './ooxml.js';
import type { ChangeStamp } from './tracked-changes.js';

/** A required clause to insert. */
export interface DocxClauseInsert {
  /** The finding's id (`document/playbook/<topic>`). */
  readonly id: string;
  /** The clause it goes after; absent: after the last paragraph of the body. */
  readonly afterClauseId?: string;
  /** The clause's language, in the contract's terms. */
  readonly text: string;
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

/** The paragraph properties of a new paragraph: `w:pPr` with an inserted paragraph mark. */
function insertedMark(doc: Document, stamp: ChangeStamp): Element {
  const pPr = wElement(doc, 'pPr');
  const rPr = wElement(doc, 'rPr');
  rPr.appendChild(
    wElement(doc, 'ins', { id: String(stamp.nextId()), author: stamp.author, date: stamp.date }),
  );
  pPr.appendChild(rPr);
  return pPr;
}

/** A new paragraph holding `text` as one inserted run. */
function insertedParagraph(doc: Document, text: string, stamp: ChangeStamp): Element {
  const p = wElement(doc, 'p');
  p.appendChild(insertedMark(doc, stamp));
  const ins = wElement(doc, 'ins', { id: String(stamp.nextId()), author: stamp.author, date: stamp.date });
  const r = wElement(doc, 'r');
  const t = wElement(doc, 't');
  t.setAttribute('xml:space', 'preserve');
  t.appendChild(doc.createTextNode(text));
  r.appendChild(t);
  ins.appendChild(r);
  p.appendChild(ins);
  return p;
}

/**
 * Writes each required clause after its placement's paragraph. Returns the ids written and the
 * paragraphs written, by id, for their comments.
 */
export function insertClauses(
  body: Element,
  clauses: readonly Pick<ReportClause, 'id' | 'end'>[],
  inserts: readonly DocxClauseInsert[],
  paragraphAt: ParagraphAt,
  stampOf: (insert: DocxClauseInsert) => ChangeStamp,
): Map<string, Element> {
  const doc = body.ownerDocument as Document;
  const written = new Map<string, Element>();
  for (const insert of inserts) {
    const after = insert.afterClauseId ? clauses.find((c) => c.id === insert.afterClauseId) : undefined;
    const anchor = (after ? paragraphAt(Math.max(0, after.end - 1)) : undefined) ?? lastParagraph(body);
    if (!anchor?.parentNode) continue;
    const p = insertedParagraph(doc, insert.text, stampOf(insert));
    // After the anchor, and after any paragraphs already inserted after it, in order.
    let at: Node = anchor;
    while (at.nextSibling && [...written.values()].includes(at.nextSibling as Element)) at = at.nextSibling;
    anchor.parentNode.insertBefore(p, at.nextSibling);
    written.set(insert.id, p);
  }
  return written;
}
