/**
 * Edits of a clause's own text, and how several of them go together. Two edits can both be made
 * unless they delete the same characters, or one inserts inside the other's deletion. Edits that
 * meet at a point (two insertions there, or an insertion at the edge of a deletion) go in place
 * order: by start, then by end (an insertion at a deletion's start comes before it, one at its
 * end after it), and edits at one point keep the order they are given in (for redlines, the
 * order of their positions in the playbook, then each redline's own order).
 */

/**
 * One edit of a clause's own text: the text at [start, end) is replaced by `insert` (either may
 * be empty). Offsets are UTF-16 indexes into the clause's text as report.json carries it.
 */
export interface RedlineEdit {
  readonly start: number;
  readonly end: number;
  readonly insert: string;
}

type Span = { readonly start: number; readonly end: number };

/**
 * Whether two edits, as [start, end) with end ≥ start, may not both be made: they delete a
 * character in common, or one inserts strictly inside the other's deletion.
 *
 * @example
 * editsClash({ start: 4, end: 4 }, { start: 4, end: 4 }) // false: two insertions at one point
 * editsClash({ start: 0, end: 4 }, { start: 4, end: 4 }) // false: an insertion at a deletion's end
 * editsClash({ start: 0, end: 4 }, { start: 2, end: 2 }) // true
 */
export function editsClash(x: Span, y: Span): boolean {
  if (Math.max(x.start, y.start) < Math.min(x.end, y.end)) return true;
  const inside = (point: Span, span: Span) =>
    point.start === point.end && span.start < point.start && point.start < span.end;
  return inside(x, y) || inside(y, x);
}

/** Place order of two edits: by start, then end; a stable sort keeps edits at one point as given. */
export const inPlaceOrder = (x: Span, y: Span): number => x.start - y.start || x.end - y.end;

/**
 * `text` with each edit made; the edits must not clash. Insertions at one point go in the order
 * given.
 * @example applyEdits('ninety (90) days', [{ start: 0, end: 11, insert: 'thirty (30)' }]) // 'thirty (30) days'
 * @example applyEdits('net 60', [{ start: 6, end: 6, insert: ' days' }, { start: 6, end: 6, insert: ', in writing' }]) // 'net 60 days, in writing'
 */
export function applyEdits(text: string, edits: readonly RedlineEdit[]): string {
  let out = '';
  let at = 0;
  for (const e of [...edits].sort(inPlaceOrder)) {
    out += text.slice(at, e.start) + e.insert;
    at = e.end;
  }
  return out + text.slice(at);
}
