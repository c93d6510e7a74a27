/**
 * A counter-proposal: the fallback the playbook lets us offer, written as the smallest edit of the
 * clause as the other side left it. On a measured position (a notice period, a cap) it is the
 * analysts' own edit of the clause's number, with the fallback's number in place of the one they
 * aimed at ("one hundred eighty (180) days" → "sixty (60) days"); otherwise the sentence holding
 * their change, edited word by word into the fallback's language.
 */
import { applyEdits, editsClash, type RedlineEdit } from '../../text/redline-edits.js';
import type { FallbackIndex, PositionFinding } from '../playbooks/review-types.js';
import type { Position } from '../playbooks/schema.js';
import type { CounterProposal } from '../records/negotiation.js';
import { tokensOf } from './clause-tokens.js';
import { restateNumber } from './restate-number.js';
import { diffWords } from './word-diff.js';

/** A clause as the counter-proposal edits it. */
interface CounteredClause {
  readonly id: string;
  readonly text: string;
}

/** The span of the clause's text their changes cover (offsets in the clause). */
export interface Focus {
  readonly start: number;
  readonly end: number;
}

/**
 * Our counter-proposal for one position of a clause: the fallback `offer`, as edits of the clause's
 * text; undefined when the edits would change nothing.
 *
 * @param after the clause's finding on the position as it reads now (its proposed redline, if any)
 */
export function counterProposal(
  clause: CounteredClause,
  focus: Focus,
  position: Position,
  offer: FallbackIndex,
  after: PositionFinding | undefined,
): Omit<CounterProposal, 'id'> | undefined {
  const fallback = position.fallbacks[offer - 1];
  if (!fallback) return undefined;
  const edits =
    numberEdits(clause.text, position, offer, after) ?? languageEdits(clause.text, focus, fallback.language);
  if (edits.length === 0) return undefined;
  return {
    clauseId: clause.id,
    topic: position.topic,
    target: { rung: 'fallback', fallback: offer },
    position: fallback.position,
    language: fallback.language,
    edits,
    text: applyEdits(clause.text, edits),
    ...(fallback.approver ? { approver: fallback.approver } : {}),
  };
}

/** The threshold of a rung of the position. */
function thresholdOf(position: Position, rung: { rung: string; fallback?: number }): number | undefined {
  return rung.rung === 'fallback'
    ? position.fallbacks[(rung.fallback ?? 1) - 1]?.threshold
    : position.standard.threshold;
}

/**
 * The analysts' number edit of the clause, aimed at the fallback instead: each inserted number
 * scaled from the threshold their redline aimed at to the fallback's. Undefined when the position
 * has no measure, the clause no redline, or an edit of it states no number.
 */
function numberEdits(
  text: string,
  position: Position,
  offer: FallbackIndex,
  after: PositionFinding | undefined,
): RedlineEdit[] | undefined {
  const redline = after?.redline;
  const to = position.fallbacks[offer - 1]?.threshold;
  const from = redline ? thresholdOf(position, redline.target) : undefined;
  if (!position.measure || !redline || to === undefined || !from) return undefined;
  const out: RedlineEdit[] = [];
  for (const e of redline.edits) {
    const insert = restateNumber(e.insert, to / from);
    if (insert === undefined || e.insert.length > 120) return undefined;
    const edit = withUnitNumber(text, { start: e.start, end: e.end, insert });
    if (edit.insert !== text.slice(edit.start, edit.end)) out.push(edit);
  }
  return out.length > 0 ? out : undefined;
}

const UNIT = /^ (day|business day|week|month|year)(?![a-z])/i;

/** An edit of a number whose unit follows it, the unit taken in too where the number is no longer one: "one (1) month" → "eighteen (18) months". */
function withUnitNumber(text: string, edit: RedlineEdit): RedlineEdit {
  const unit = UNIT.exec(text.slice(edit.end));
  if (!unit || /^(one|1)\b|\(1\)$/i.test(edit.insert.trim())) return edit;
  return { start: edit.start, end: edit.end + unit[0].length, insert: `${edit.insert}${unit[0]}s` };
}

/** Where the sentence holding `focus` starts and ends in the clause. */
function sentenceAround(text: string, focus: Focus): Focus {
  let start = 0;
  for (const m of text.slice(0, focus.start).matchAll(/[.;:]\s+|\n+/g)) start = m.index + m[0].length;
  const rest = /[.;](?=\s|$)|\n/.exec(text.slice(focus.end));
  const end = rest ? focus.end + rest.index + (rest[0] === '\n' ? 0 : 1) : text.length;
  return { start, end: Math.max(end, focus.end) };
}

/**
 * The sentence holding their change, edited word by word into `language`: each stretch of words
 * that differs replaced by the language's words there, the words the two share kept.
 */
export function languageEdits(text: string, focus: Focus, language: string): RedlineEdit[] {
  const s = sentenceAround(text, focus);
  const sentence = text.slice(s.start, s.end);
  // A clause's own number at the sentence's start is not words the language could replace.
  const a = tokensOf(sentence).filter((t) => !t.label);
  const b = tokensOf(language);
  const out: RedlineEdit[] = [];
  for (const h of diffWords(
    a.map((t) => t.key),
    b.map((t) => t.key),
  )) {
    const words = h.bEnd > h.bStart ? language.slice(b[h.bStart]?.start ?? 0, b[h.bEnd - 1]?.end ?? 0) : '';
    let edit: RedlineEdit;
    if (h.aEnd > h.aStart) {
      const start = s.start + (a[h.aStart]?.start ?? 0);
      // A stretch only deleted takes the space after it too.
      const end =
        words === '' && h.aEnd < a.length
          ? s.start + (a[h.aEnd]?.start ?? 0)
          : s.start + (a[h.aEnd - 1]?.end ?? 0);
      edit = { start, end, insert: words };
    } else {
      const next = a[h.aStart];
      edit = next
        ? { start: s.start + next.start, end: s.start + next.start, insert: `${words} ` }
        : { start: s.end, end: s.end, insert: ` ${words}` };
    }
    if (!out.some((o) => editsClash(o, edit))) out.push(edit);
  }
  return out;
}
