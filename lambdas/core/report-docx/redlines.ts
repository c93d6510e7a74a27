/**
 * Where a redline's edits go in the document. An edit names a span of its clause's text (UTF-16
 * offsets into the clause's `text` in report.json); the clause's offsets place it in the
 * normalised text, and the alignment of that text with the document's characters
 * (`text-map.ts`) places it among the runs. An edit is written only where the document is sure
 * to hold that very text: every visible character of the deleted span aligned, one after the
 * other with nothing visible between them in the document, and a span that begins or ends in
 * whitespace covering all of it (a space between words, a paragraph break). A redline is
 * written whole or not at all: if one of its edits cannot be placed, none is, and the redline
 * is reported back with the reason, never applied somewhere near.
 */

import { applyEdits, editsClash, inPlaceOrder, type RedlineEdit } from '../../text/redline-edits.js';
import type { RedlinedClause, UnplacedReason, UnplacedRedline } from '../playbooks/review-types.js';
import type { ReportClause } from '../report-types.js';
import { after, before, type TextPoint } from './anchor.js';
import { isW } from './ooxml.js';
import { type Atom, positionless } from './text-map.js';

/** A proposed redline of one clause, with the reviewer's decision. `rejected` ones are not written. */
export interface DocxRedline {
  readonly id: string;
  readonly clauseId: string;
  readonly edits: readonly RedlineEdit[];
  readonly decision: 'proposed' | 'accepted' | 'edited' | 'rejected';
  readonly note?: string;
  /** Who decided it, by the name the review trail shows; the author of its tracked changes. */
  readonly decidedBy?: string;
  /** Where its language came from, and the playbook's own language beside it. */
  readonly source?: 'playbook' | 'model';
  readonly language?: string;
  /** `appended`: the playbook's language added to the clause, no smaller edit reaching the rung. */
  readonly shape?: 'in-place' | 'appended';
  /** Terms the contract does not use that the inserted text was written without. */
  readonly rewritten?: readonly { readonly from: string; readonly to: string }[];
}

/** One edit to write: the points its deleted span runs between in the document. */
export interface PlannedEdit {
  readonly redline: DocxRedline;
  /** Offsets of the deleted span in the normalised text. */
  readonly start: number;
  readonly end: number;
  readonly from: TextPoint;
  readonly to: TextPoint;
  readonly insert: string;
}

/** The edits to write, in document order, and the redlines that could not be placed. */
export interface RedlinePlan {
  readonly edits: readonly PlannedEdit[];
  readonly placed: readonly string[];
  readonly notPlaced: readonly UnplacedRedline[];
  /** Each clause with a redline placed, in the order of the redlines given. */
  readonly clauses: readonly RedlinedClause[];
}

class Unplaced extends Error {
  override readonly name = 'Unplaced';
  constructor(
    readonly reason: UnplacedReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Block-level elements that may sit between two paragraphs a deletion joins. */
const BETWEEN_PARAGRAPHS = new Set([
  'bookmarkStart',
  'bookmarkEnd',
  'commentRangeStart',
  'commentRangeEnd',
  'permStart',
  'permEnd',
  'proofErr',
]);

function paragraphOf(node: Node): Element | undefined {
  for (let n: Node | null = node; n; n = n.parentNode) if (isW(n, 'p')) return n as Element;
  return undefined;
}

function inTextBox(node: Node): boolean {
  for (let n: Node | null = node; n; n = n.parentNode) if (isW(n, 'txbxContent')) return true;
  return false;
}

/**
 * Checks that a deletion from `from` to `to` joins only paragraphs side by side in one story,
 * none of them ending a section: the paragraph marks it deletes can be deleted.
 */
function checkStructure(from: TextPoint, to: TextPoint): void {
  const first = paragraphOf(from.atom.node);
  const last = paragraphOf(to.atom.node);
  if (!first || !last) throw new Unplaced('structure', 'the text is not in a paragraph');
  if (inTextBox(first) || inTextBox(last)) throw new Unplaced('structure', 'the text is in a text box');
  if (first === last) return;
  if (first.parentNode !== last.parentNode)
    throw new Unplaced('structure', 'the deletion would cross a table cell or a block around paragraphs');
  for (let n: Node | null = first; n && n !== last; n = n.nextSibling) {
    if (n.nodeType !== 1) continue;
    const el = n as Element;
    if (isW(el, 'p')) {
      for (let c = el.firstChild; c; c = c.nextSibling)
        if (isW(c, 'pPr'))
          for (let d = c.firstChild; d; d = d.nextSibling)
            if (isW(d, 'sectPr')) throw new Unplaced('structure', 'the deletion would cross a section break');
    } else if (!BETWEEN_PARAGRAPHS.has(el.localName ?? ''))
      throw new Unplaced('structure', `the deletion would cross a ${el.localName}`);
  }
}

/** Finds where the span [a, b) of the normalised text lies in the document. */
function locate(text: string, atoms: readonly Atom[], map: Int32Array, a: number, b: number) {
  const visible = (p: number) => p >= 0 && p < text.length && !positionless(text[p] ?? ' ');
  const atomOf = (p: number): number => {
    const i = map[p] ?? -1;
    if (i < 0) throw new Unplaced('not-in-document', `the character at ${p} is not found in the document`);
    return i;
  };
  const at = (i: number) => atoms[i] as Atom;
  const prevVisible = (p: number) => {
    for (let i = p - 1; i >= 0; i--) if (visible(i)) return i;
    return -1;
  };
  const nextVisible = (p: number) => {
    for (let i = p; i < text.length; i++) if (visible(i)) return i;
    return -1;
  };
  if (a === b) {
    // An insertion goes after the character before it, or before the one after it; inside a
    // blank line it would have no place of its own.
    if (visible(a - 1)) {
      const point = after(at(atomOf(a - 1)));
      return { from: point, to: point };
    }
    if (visible(a)) {
      const point = before(at(atomOf(a)));
      return { from: point, to: point };
    }
    throw new Unplaced('not-in-document', `offset ${a} falls inside the space between two paragraphs`);
  }
  const shown: number[] = [];
  for (let p = a; p < b; p++) if (visible(p)) shown.push(p);
  const wholeGap = (p: number, q: number) => {
    if (p < 0 || q < 0) throw new Unplaced('not-in-document', 'the span runs past the text');
    if (atomOf(q) !== atomOf(p) + 1)
      throw new Unplaced('not-in-document', 'the document holds other text within the span');
  };
  const firstShown = shown[0];
  const lastShown = shown[shown.length - 1];
  if (firstShown === undefined || lastShown === undefined) {
    // Only whitespace: all of the gap between two characters, or none of it.
    const p = prevVisible(a);
    const q = nextVisible(b);
    if (a !== p + 1 || b !== q)
      throw new Unplaced('not-in-document', 'the span is part of the space between two words or paragraphs');
    wholeGap(p, q);
    return { from: after(at(atomOf(p))), to: before(at(atomOf(q))) };
  }
  for (let k = 1; k < shown.length; k++) {
    if (atomOf(shown[k] as number) !== atomOf(shown[k - 1] as number) + 1)
      throw new Unplaced('not-in-document', 'the document holds other text within the span');
  }
  let from = before(at(atomOf(firstShown)));
  if (a < firstShown) {
    const p = prevVisible(a);
    if (a !== p + 1)
      throw new Unplaced('not-in-document', 'the span begins inside the space between two paragraphs');
    wholeGap(p, firstShown);
    from = after(at(atomOf(p)));
  }
  let to = after(at(atomOf(lastShown)));
  if (lastShown < b - 1) {
    const q = nextVisible(b);
    if (b !== q)
      throw new Unplaced('not-in-document', 'the span ends inside the space between two paragraphs');
    wholeGap(lastShown, q);
    to = before(at(atomOf(q)));
  }
  return { from, to };
}

/**
 * Plans the redlines: each one not rejected, whole or not at all, in the order given (a later
 * redline whose edit clashes with one already planned is not placed). Edits that meet at a point
 * (two insertions there, an insertion at a deletion's edge) are all written, in place order
 * (`edits.ts`): where two redlines insert at one point, the first given goes first.
 *
 * @param text the normalised text the report's offsets index
 * @param atoms the document's visible characters, and `map` the text's alignment with them
 */
export function planRedlines(
  text: string,
  atoms: readonly Atom[],
  map: Int32Array,
  clauses: readonly ReportClause[],
  redlines: readonly DocxRedline[],
): RedlinePlan {
  const byId = new Map(clauses.map((c) => [c.id, c]));
  const edits: PlannedEdit[] = [];
  const placed: string[] = [];
  const notPlaced: UnplacedRedline[] = [];
  /** Each clause's redlines placed, in the order given. */
  const written = new Map<string, DocxRedline[]>();
  for (const redline of redlines) {
    if (redline.decision === 'rejected') continue;
    const { id, clauseId } = redline;
    const clause = byId.get(clauseId);
    if (!clause) {
      notPlaced.push({
        id,
        clauseId,
        reason: 'unknown-clause',
        detail: `the report has no clause ${clauseId}`,
      });
      continue;
    }
    if (text.slice(clause.start, clause.end) !== clause.text) {
      notPlaced.push({
        id,
        clauseId,
        reason: 'clause-text',
        detail: `clause ${clauseId}'s text is not the document's text at its offsets`,
      });
      continue;
    }
    const mine: PlannedEdit[] = [];
    let failed: UnplacedRedline | undefined;
    for (const [index, edit] of redline.edits.entries()) {
      try {
        const { start, end, insert } = edit;
        if (
          !Number.isInteger(start) ||
          !Number.isInteger(end) ||
          start < 0 ||
          end < start ||
          end > clause.text.length
        )
          throw new Unplaced(
            'offsets',
            `[${start}, ${end}) is not a span of the clause's ${clause.text.length} characters`,
          );
        if (start === end && insert === '') continue;
        const span = { start: clause.start + start, end: clause.start + end };
        const other = [...edits, ...mine].find((e) => editsClash(e, span));
        if (other)
          throw new Unplaced(
            'overlap',
            other.redline === redline
              ? `it overlaps another edit of the same redline`
              : `it overlaps redline ${other.redline.id}`,
          );
        const { from, to } = locate(text, atoms, map, span.start, span.end);
        checkStructure(from, to);
        mine.push({ redline, ...span, from, to, insert });
      } catch (error) {
        if (!(error instanceof Unplaced)) throw error;
        failed = { id, clauseId, edit: index, reason: error.reason, detail: error.detail };
        break;
      }
    }
    if (failed) notPlaced.push(failed);
    else {
      edits.push(...mine);
      placed.push(id);
      written.set(clauseId, [...(written.get(clauseId) ?? []), redline]);
    }
  }
  // Stable: edits that meet at a point go clause by clause, then in the order of their redlines
  // (and within one, its own), as applyEdits makes them.
  const clauseStart = (e: PlannedEdit) => byId.get(e.redline.clauseId)?.start ?? 0;
  edits.sort((x, y) => inPlaceOrder(x, y) || clauseStart(x) - clauseStart(y));
  const redlined = [...written].map(([clauseId, mine]) => ({
    clauseId,
    redlines: mine.map((r) => r.id),
    text: applyEdits(
      (byId.get(clauseId) as ReportClause).text,
      mine.flatMap((r) => r.edits),
    ),
  }));
  return { edits, placed, notPlaced, clauses: redlined };
}
