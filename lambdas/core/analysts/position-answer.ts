/**
 * The positions part of an analyst's answer, checked as findings are: every quote must be in
 * the clause, and every edit of a proposed redline must delete the clause's own text. An edit
 * whose offsets do not hold the text it says it deletes is repaired by finding that text in the
 * clause (the occurrence nearest the offsets given); one whose text is not in the clause, that
 * inserts inside a word, or that overlaps another edit is a validation issue, and the worker's
 * repair retry asks the model again.
 */

import type { RedlineEdit } from '../../text/redline-edits.js';
import { checkRedlineEdits } from '../../text/redline-text.js';
import type { FallbackIndex, Rung } from '../../text/rung.js';
import type { Clause } from '../clause.js';
import { excerpt } from './errors.js';
import { locateQuote } from './locate-quote.js';
import { type AnalystPlaybook, type RungValue, rungDepth } from './positions.js';
import type { RawEdit, RawPositionAnswer } from './tool-schema.js';

/** A quote located in the job's normalised text. */
export interface LocatedQuote {
  readonly quote: string;
  /** Offsets into the job's normalised text. */
  readonly start: number;
  readonly end: number;
}

/** A proposed redline as one analyst gave it, its edits checked against the clause. */
export interface AnswerRedline {
  readonly target: Rung;
  /** In order, not overlapping; offsets into the clause's text. */
  readonly edits: readonly RedlineEdit[];
}

/** One analyst's answer for a position the clause addresses. */
export interface PositionAnswer extends Rung {
  readonly topic: string;
  readonly quotes: readonly LocatedQuote[];
  readonly reason: string;
  /** The number the clause states for the position's measure, in its unit. */
  readonly measured?: number;
  /** Below the standard. */
  readonly redline?: AnswerRedline;
}

/** The {@link Rung} a tool-schema rung value names; undefined for `not-addressed`. */
export function rungOf(value: RungValue): Rung | undefined {
  if (value === 'not-addressed') return undefined;
  if (value === 'standard' || value === 'not-acceptable') return { rung: value };
  return { rung: 'fallback', fallback: rungDepth(value) as FallbackIndex };
}

/**
 * Checks the positions of an answer that passed the schema, in playbook order. Issues go into
 * `issues` (the caller's list, so that one repair retry can fix everything at once).
 *
 * @returns the positions the clause addresses
 */
export function parsePositions(
  playbook: AnalystPlaybook,
  clause: Clause,
  raw: Readonly<Record<string, RawPositionAnswer>>,
  issues: string[],
): PositionAnswer[] {
  const out: PositionAnswer[] = [];
  for (const position of playbook.positions) {
    const answer = raw[position.topic];
    if (!answer) continue; // unreachable: the strict schema requires every topic
    const at = `positions.${position.topic}`;
    const rung = rungOf(answer.rung);
    if (!rung) {
      if (answer.quotes.length > 0 || answer.redline)
        issues.push(`${at}: quotes or a redline given with rung not-addressed; give a rung or neither`);
      continue;
    }
    const quotes: LocatedQuote[] = [];
    answer.quotes.forEach((quote, i) => {
      const span = locateQuote(clause.text, quote);
      if (!span) {
        issues.push(`${at}.quotes.${i}: not found verbatim in the clause: "${excerpt(quote)}"`);
        return;
      }
      quotes.push({
        quote: clause.text.slice(span.start, span.end),
        start: clause.start + span.start,
        end: clause.start + span.end,
      });
    });
    if (answer.quotes.length === 0)
      issues.push(`${at}: rung ${answer.rung} given without a quote; quote the words it rests on`);
    const redline = rung.rung === 'standard' ? undefined : checkRedline(at, answer, clause.text, issues);
    out.push({
      topic: position.topic,
      ...rung,
      quotes,
      reason: answer.reason,
      ...(typeof answer.measured === 'number' ? { measured: answer.measured } : {}),
      ...(redline ? { redline } : {}),
    });
  }
  return out;
}

/** The redline of a rung below the standard, its edits checked and repaired; undefined with issues. */
function checkRedline(
  at: string,
  answer: RawPositionAnswer,
  text: string,
  issues: string[],
): AnswerRedline | undefined {
  const { redline } = answer;
  if (!redline) {
    issues.push(
      `${at}.redline: rung ${answer.rung} is below the standard; propose the smallest edit of the clause that reaches a better rung`,
    );
    return undefined;
  }
  const target = rungOf(redline.target);
  if (!target || rungDepth(redline.target) >= rungDepth(answer.rung)) {
    issues.push(`${at}.redline.target: ${redline.target} is no better than the rung ${answer.rung}`);
    return undefined;
  }
  const edits = checkEdits(`${at}.redline.edits`, redline.edits, text, issues);
  return edits ? { target, edits } : undefined;
}

/**
 * The edits with offsets that hold the text they delete, in place order (insertions at one point
 * as given); undefined (with issues) when
 * one cannot be placed, or, placed, they fail the checks every redline's edits pass
 * (`checkRedlineEdits`, as a reviewer's own edits do): an insertion inside a word, edits that
 * overlap, edits that together change nothing.
 *
 * @example
 * checkEdits('e', [{ start: 0, end: 3, deleted: 'ten', insert: 'thirty' }], 'ten days', []) // [{ start: 0, end: 3, insert: 'thirty' }]
 */
export function checkEdits(
  at: string,
  raw: readonly RawEdit[],
  text: string,
  issues: string[],
): RedlineEdit[] | undefined {
  const before = issues.length;
  const placed: RedlineEdit[] = [];
  raw.forEach((edit, i) => {
    const span = spanOf(edit, text);
    if (typeof span === 'string') issues.push(`${at}.${i}: ${span}`);
    else placed.push({ ...span, insert: edit.insert });
  });
  if (issues.length > before) return undefined;
  const checked = checkRedlineEdits(text, placed);
  if (checked.problems) {
    // An edit's own problem names it by its index, as the answer's path does.
    for (const p of checked.problems) {
      const own = /^edit (\d+): /.exec(p);
      issues.push(own ? `${at}.${own[1]}: ${p.slice(own[0].length)}` : `${at}: ${p}`);
    }
    return undefined;
  }
  return checked.edits;
}

/** Where an edit's deleted text lies in the clause (an insertion: at its offset), or what is wrong with it. */
function spanOf(edit: RawEdit, text: string): { start: number; end: number } | string {
  if (edit.deleted === '') return { start: edit.start, end: edit.start };
  if (text.slice(edit.start, edit.end) === edit.deleted) return { start: edit.start, end: edit.end };
  const nearest = nearestOccurrence(text, edit.deleted, edit.start);
  if (nearest !== undefined) return { start: nearest, end: nearest + edit.deleted.length };
  const loose = locateQuote(text, edit.deleted);
  if (loose) return loose;
  return `deleted text not found verbatim in the clause: "${excerpt(edit.deleted)}"`;
}

/** The start of the occurrence of `needle` in `text` nearest `near`. */
function nearestOccurrence(text: string, needle: string, near: number): number | undefined {
  let best: number | undefined;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
    if (best === undefined || Math.abs(i - near) < Math.abs(best - near)) best = i;
  }
  return best;
}
