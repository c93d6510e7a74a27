/**
 * The other side's turn in one line, as report.html, the reviewer app, the add-in and the CLI say
 * it: "Their changes: 3 — accept 1, reject 1, counter 1".
 */

/** How many of their changes got each answer (report.json's `negotiation.summary`). */
export interface TheirChangesCount {
  readonly changes: number;
  readonly accept: number;
  readonly reject: number;
  readonly counter: number;
  readonly notJudged: number;
  readonly comments?: number;
}

/**
 * The line, the answers with none left out, the changes not judged and their comments added when
 * there are any.
 *
 * @example theirChangesLine({ changes: 3, accept: 1, reject: 1, counter: 1, notJudged: 0 }) // 'Their changes: 3 — accept 1, reject 1, counter 1'
 */
export function theirChangesLine(n: TheirChangesCount): string {
  const answers = [`accept ${n.accept}`, `reject ${n.reject}`, `counter ${n.counter}`];
  if (n.notJudged > 0) answers.push(`not judged ${n.notJudged}`);
  const comments = n.comments ? `; their comments: ${n.comments}, each with a proposed reply` : '';
  return `Their changes: ${n.changes} — ${answers.join(', ')}${comments}`;
}

/** A verdict as a reader says it. */
export const VERDICT_LABELS = {
  accept: 'accept',
  reject: 'reject',
  counter: 'counter',
  'not-judged': 'not judged',
} as const;
