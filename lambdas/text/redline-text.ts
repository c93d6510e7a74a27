/**
 * A redline's edits as text: what they make of a clause, the clause shown as kept, deleted and
 * inserted runs, the edits a reviewer's rewording amounts to, and the check a reviewer's edits
 * pass before they are recorded. Edits replace the clause's text at [start, end) (UTF-16
 * offsets into the clause's own text) with `insert`, in order and not overlapping.
 *
 * Browser-safe, like the rest of lambdas/text/, so the app, the add-in, the CLI, the review gate
 * and report.html use this one implementation; and the words they all name a rung by.
 */

import { editsClash, inPlaceOrder, type RedlineEdit } from './redline-edits.js';
import type { Rung } from './rung.js';

/** Most edits one redline may make. */
export const MAX_REDLINE_EDITS = 200;
/** Longest text one edit may insert: a playbook's model language is at most 6000 characters. */
export const MAX_INSERT_CHARS = 6000;

/** A run of a clause as a redline shows it: kept, struck out, or inserted. */
export interface EditSegment {
  readonly kind: 'kept' | 'deleted' | 'inserted';
  readonly text: string;
}

/**
 * The clause as kept, deleted and inserted runs, in reading order: each edit's deleted text,
 * then what it inserts. Empty runs are left out.
 * @example editSegments('ten days', [{ start: 0, end: 3, insert: 'thirty' }])
 * // [{ kind: 'deleted', text: 'ten' }, { kind: 'inserted', text: 'thirty' }, { kind: 'kept', text: ' days' }]
 */
export function editSegments(text: string, edits: readonly RedlineEdit[]): EditSegment[] {
  const out: EditSegment[] = [];
  const push = (kind: EditSegment['kind'], t: string) => {
    if (t) out.push({ kind, text: t });
  };
  let at = 0;
  for (const e of [...edits].sort(inPlaceOrder)) {
    push('kept', text.slice(at, e.start));
    push('deleted', text.slice(e.start, e.end));
    push('inserted', e.insert);
    at = e.end;
  }
  push('kept', text.slice(at));
  return out;
}

/** Words and the space between them, so an edit never starts or ends inside a word. */
function tokens(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu) ?? [];
}

/** Most tokens compared word by word; longer texts are compared as one span between their common ends. */
const MAX_DIFF_TOKENS = 4000;

/**
 * The edits that turn `from` into `to`, word by word (a longest common subsequence of words,
 * spaces and punctuation): what a reviewer's rewording of a clause amounts to. Empty when the
 * two are the same.
 * @example editsBetween('within ninety days', 'within thirty days') // [{ start: 7, end: 13, insert: 'thirty' }]
 */
export function editsBetween(from: string, to: string): RedlineEdit[] {
  const a = tokens(from);
  const b = tokens(to);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const offset = a.slice(0, head).join('').length;
  if (x.length === 0 && y.length === 0) return [];
  if (x.length * y.length > MAX_DIFF_TOKENS * MAX_DIFF_TOKENS || x.length === 0 || y.length === 0) {
    const removed = x.join('');
    return [{ start: offset, end: offset + removed.length, insert: y.join('') }];
  }
  // lcs[i][j]: the longest common subsequence of x[i..] and y[j..].
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    const row = lcs[i] as Uint32Array;
    const below = lcs[i + 1] as Uint32Array;
    for (let j = y.length - 1; j >= 0; j--)
      row[j] =
        x[i] === y[j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
  }
  const edits: RedlineEdit[] = [];
  let pos = offset;
  let open: { start: number; end: number; insert: string } | undefined;
  const close = () => {
    if (open) edits.push(open);
    open = undefined;
  };
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    const xi = x[i];
    const yj = y[j];
    if (xi !== undefined && xi === yj) {
      close();
      pos += xi.length;
      i++;
      j++;
    } else if (yj === undefined || (xi !== undefined && (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      const t = xi as string;
      open ??= { start: pos, end: pos, insert: '' };
      open.end += t.length;
      pos += t.length;
      i++;
    } else {
      open ??= { start: pos, end: pos, insert: '' };
      open.insert += yj;
      j++;
    }
  }
  close();
  return edits;
}

const isWordChar = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);

/**
 * A reviewer's edits of a clause, checked as the analysts' proposed edits are: whole offsets
 * within the clause, an insertion never inside a word, no two edits overlapping (nor an insertion
 * at another's edge, which has no order of its own), and something changed. Answers the edits in
 * order, those that change nothing left out, or every problem found.
 *
 * @example
 * checkRedlineEdits('ten days', [{ start: 0, end: 3, insert: 'thirty' }]) // { edits: [{ start: 0, end: 3, insert: 'thirty' }] }
 * checkRedlineEdits('ten days', [{ start: 1, end: 1, insert: 'x' }]).problems // ['edit 0: insertion point 1 falls inside the word "ten"']
 */
export function checkRedlineEdits(
  text: string,
  given: readonly RedlineEdit[],
): { readonly edits: RedlineEdit[]; readonly problems?: undefined } | { readonly problems: string[] } {
  const problems: string[] = [];
  if (given.length > MAX_REDLINE_EDITS)
    problems.push(`at most ${MAX_REDLINE_EDITS} edits; got ${given.length}`);
  const edits: RedlineEdit[] = [];
  given.forEach((e, i) => {
    const at = `edit ${i}`;
    if (!Number.isInteger(e.start) || !Number.isInteger(e.end) || e.start < 0 || e.end < e.start) {
      problems.push(
        `${at}: start and end must be whole numbers with 0 ≤ start ≤ end; got [${e.start}, ${e.end})`,
      );
      return;
    }
    if (e.end > text.length) {
      problems.push(`${at}: [${e.start}, ${e.end}) runs past the clause's ${text.length} characters`);
      return;
    }
    if (e.insert.length > MAX_INSERT_CHARS)
      problems.push(`${at}: inserts ${e.insert.length} characters; at most ${MAX_INSERT_CHARS}`);
    if (e.start === e.end && isWordChar(text[e.start - 1]) && isWordChar(text[e.start])) {
      let a = e.start;
      let b = e.start;
      while (isWordChar(text[a - 1])) a--;
      while (isWordChar(text[b])) b++;
      problems.push(`${at}: insertion point ${e.start} falls inside the word "${text.slice(a, b)}"`);
      return;
    }
    if (text.slice(e.start, e.end) !== e.insert) edits.push({ start: e.start, end: e.end, insert: e.insert });
  });
  // In place order, an edit that clashes with any later one clashes with the one right after it.
  edits.sort(inPlaceOrder);
  for (let k = 1; k < edits.length; k++) {
    const a = edits[k - 1] as RedlineEdit;
    const b = edits[k] as RedlineEdit;
    if (editsClash(a, b)) problems.push(`edits at [${a.start}, ${a.end}) and [${b.start}, ${b.end}) overlap`);
  }
  if (problems.length === 0 && edits.length === 0) problems.push('the edits change nothing in the clause');
  return problems.length > 0 ? { problems } : { edits };
}

/**
 * A rung in words, as the app, the CLI and report.html name it.
 * @example rungLabel({ rung: 'fallback', fallback: 2 }) // 'fallback 2'
 */
export function rungLabel(r: Pick<Rung, 'rung' | 'fallback'>): string {
  if (r.rung === 'fallback') return `fallback ${r.fallback ?? 1}`;
  return r.rung === 'not-acceptable'
    ? 'not acceptable'
    : r.rung === 'not-addressed'
      ? 'not addressed'
      : 'standard';
}
