/**
 * One clause the other side changed, weighed: the clause as it read before their changes and as
 * it reads now, each judged by the analysts against the playbook's positions (or, without one,
 * the risk categories). A position that falls a rung (standard → fallback → not acceptable), or a
 * term taken out, makes the change worse for us; so does a rise of the clause's risk.
 *
 * - `accept`: nothing falls; or a position falls to the very next rung the playbook accepts (a
 *   fallback, perhaps with its approver), with no rung between to offer.
 * - `counter`: a position falls past a fallback that lies between ours and theirs: the best such
 *   fallback is offered, as the smallest edit of their text.
 * - `reject`: a position falls below every rung we could still offer (not acceptable, with no
 *   fallback between), a term we do not accept is brought in where the clause had none, or, with
 *   no position falling, the clause's risk rises to medium or above: our text should stand.
 */
import type { Rung } from '../../text/rung.js';
import type { FallbackIndex, PositionFinding } from '../playbooks/review-types.js';
import type { Position } from '../playbooks/schema.js';
import type { ChangeVerdict, CounterProposal, RiskRise, RungShift } from '../records/negotiation.js';
import type { ReportClause, Risk } from '../report-types.js';
import { counterProposal, type Focus } from './counter.js';

/** A clause's verdict, shared by the changes in it. */
export interface ClauseVerdict {
  readonly verdict: ChangeVerdict;
  readonly reason: string;
  readonly shifts?: readonly RungShift[];
  readonly risk?: {
    readonly before: Risk | null;
    readonly after: Risk | null;
    readonly rose: readonly RiskRise[];
  };
  readonly quotes?: { readonly before: readonly string[]; readonly after: readonly string[] };
  readonly restore?: string;
  readonly counter?: Omit<CounterProposal, 'id'>;
  readonly approver?: string;
}

/** What a clause is weighed with. */
export interface ClauseSides {
  /** The clause as it reads now, with its findings (and positions, against a playbook). */
  readonly after: ReportClause | undefined;
  /** The clause as it read before, judged as a clause of its own; undefined when there was none. */
  readonly before: ReportClause | undefined;
  /** Whether the clause had a text before (false: the other side inserted it whole). */
  readonly existed: boolean;
  /** The span of the clause's text their changes cover (offsets in the clause). */
  readonly focus: Focus;
}

const RISKS: readonly (Risk | null)[] = [null, 'none', 'low', 'medium', 'high', 'critical'];
const riskRank = (r: Risk | null | undefined) => RISKS.indexOf(r ?? null);
const NOT_ADDRESSED: Rung = { rung: 'not-addressed' };
const depthOf = (r: Rung): number | undefined =>
  r.rung === 'standard'
    ? 0
    : r.rung === 'fallback'
      ? (r.fallback ?? 1)
      : r.rung === 'not-acceptable'
        ? 4
        : undefined;
const rungOf = (f: PositionFinding | undefined): Rung =>
  f ? { rung: f.rung, ...(f.fallback !== undefined ? { fallback: f.fallback } : {}) } : NOT_ADDRESSED;

/** The analysts' reason for a rung, cut at its first sentence (and 200 characters). */
function firstSentence(reason: string): string {
  // The rung is said already: "Not acceptable: the clause states 180…" reads from "the clause".
  const bare = reason.replace(
    /^(not acceptable|not addressed|the standard|standard|fallback \d)\s*[:.]\s*/i,
    '',
  );
  const first = /^.*?[.;](?=\s|$)/.exec(bare)?.[0] ?? bare;
  const cut = first.length > 200 ? `${first.slice(0, 199)}…` : first;
  return cut.replace(/[.;]$/, '');
}

/** A rung as a reader says it. */
export const rungWords = (r: Rung): string =>
  r.rung === 'fallback' ? `fallback ${r.fallback ?? 1}` : r.rung.replace('-', ' ');

/** What one fallen position calls for. */
type TopicOutcome =
  | { readonly kind: 'counter'; readonly topic: string; readonly offer: FallbackIndex }
  | { readonly kind: 'accept'; readonly topic: string; readonly approver?: string }
  | { readonly kind: 'reject'; readonly topic: string };

/** The positions whose rung differs, and what each fall calls for. */
function shiftsOf(sides: ClauseSides, positions: ReadonlyMap<string, Position>) {
  const before = new Map((sides.before?.positions ?? []).map((f) => [f.topic, f]));
  const after = new Map((sides.after?.positions ?? []).map((f) => [f.topic, f]));
  const shifts: RungShift[] = [];
  const outcomes: TopicOutcome[] = [];
  for (const [topic, position] of positions) {
    const b = rungOf(before.get(topic));
    const a = rungOf(after.get(topic));
    if (b.rung === a.rung && b.fallback === a.fallback) continue;
    shifts.push({ topic, question: position.question, before: b, after: a });
    const dB = depthOf(b) ?? 0;
    // A term taken out is as bad as one we do not accept; a new one counts only when we do not.
    const dA = depthOf(a) ?? (b.rung === 'not-addressed' ? 0 : 4);
    if (dA <= dB || (b.rung === 'not-addressed' && a.rung !== 'not-acceptable')) continue;
    // A term they brought in that we do not accept is struck, not bargained over: there was none of ours to concede from.
    const between =
      b.rung === 'not-addressed' ? -1 : position.fallbacks.findIndex((_, i) => i + 1 > dB && i + 1 < dA);
    if (between >= 0) outcomes.push({ kind: 'counter', topic, offer: (between + 1) as FallbackIndex });
    else if (a.rung === 'fallback') {
      const approver = position.fallbacks[(a.fallback ?? 1) - 1]?.approver;
      outcomes.push({ kind: 'accept', topic, ...(approver ? { approver } : {}) });
    } else outcomes.push({ kind: 'reject', topic });
  }
  return { shifts, outcomes };
}

/** The categories the change raised to 2 or more. */
function risesOf(sides: ClauseSides): RiskRise[] {
  const out: RiskRise[] = [];
  for (const [category, score] of Object.entries(sides.after?.scores ?? {})) {
    const was = sides.before?.scores[category] ?? null;
    if (score !== null && score >= 2 && score > (was ?? 0)) out.push({ category, before: was, after: score });
  }
  return out;
}

/** Quotes of the fallen positions, or of the risen categories' findings, on one side. */
function quotesOf(
  clause: ReportClause | undefined,
  topics: readonly string[],
  categories: readonly string[],
) {
  const positions = (clause?.positions ?? [])
    .filter((f) => topics.includes(f.topic))
    .flatMap((f) => f.quotes);
  const findings = (clause?.findings ?? []).filter((f) => categories.includes(f.category));
  return [...new Set([...positions.map((q) => q.quote), ...findings.map((f) => f.quote)])].slice(0, 3);
}

/**
 * Weighs one clause the other side changed.
 *
 * @param positions the playbook's positions judged for the contract, by topic (empty without a playbook)
 */
export function judgeClause(sides: ClauseSides, positions: ReadonlyMap<string, Position>): ClauseVerdict {
  const { after, before } = sides;
  if (!after || after.status === 'not-analysed')
    return { verdict: 'not-judged', reason: 'The clause as it reads now was not analysed.' };
  if (sides.existed && (!before || before.status === 'not-analysed'))
    return { verdict: 'not-judged', reason: 'The clause as it read before their change was not analysed.' };
  const { shifts, outcomes } = shiftsOf(sides, positions);
  const rose = risesOf(sides);
  const riskUp =
    rose.length > 0 &&
    riskRank(after.risk) >= riskRank('medium') &&
    riskRank(after.risk) > riskRank(before?.risk);
  const risk = { before: before?.risk ?? null, after: after.risk, rose };
  const fell = outcomes.map((o) => o.topic);
  const quotes = {
    before: quotesOf(
      before,
      fell,
      rose.map((r) => r.category),
    ),
    after: quotesOf(
      after,
      fell,
      rose.map((r) => r.category),
    ),
  };
  const base = { ...(shifts.length > 0 ? { shifts } : {}), risk, quotes };
  const said = (topic: string) => {
    const s = shifts.find((x) => x.topic === topic) as RungShift;
    const why = after.positions?.find((f) => f.topic === topic)?.reason;
    return `${topic}: ${rungWords(s.before)} before, ${rungWords(s.after)} now${why ? ` (${firstSentence(why)})` : ''}`;
  };
  const rejected = outcomes.find((o) => o.kind === 'reject');
  const restore = sides.existed ? (before?.text ?? '') : '';
  if (rejected || (outcomes.length === 0 && riskUp)) {
    const why = rejected
      ? `${said(rejected.topic)}, and the playbook has no fallback between ours and theirs`
      : `the clause's risk rose from ${before?.risk ?? 'none'} to ${after.risk} (${rose.map((r) => `${r.category} ${r.before ?? 0} → ${r.after}`).join(', ')})`;
    return { verdict: 'reject', reason: `Worse for us: ${why}.`, ...base, restore };
  }
  const countered = outcomes.find((o) => o.kind === 'counter');
  if (countered?.kind === 'counter') {
    const position = positions.get(countered.topic) as Position;
    const finding = after.positions?.find((f) => f.topic === countered.topic);
    const counter = counterProposal(after, sides.focus, position, countered.offer, finding);
    const offered = position.fallbacks[countered.offer - 1]?.position ?? '';
    const reason = `Worse for us: ${said(countered.topic)}. Fallback ${countered.offer} would do: ${offered}`;
    if (counter) return { verdict: 'counter', reason, ...base, counter };
    return {
      verdict: 'reject',
      reason: `${reason} (no edit of their text could be drawn up: our text should stand).`,
      ...base,
      restore,
    };
  }
  const accepted = outcomes.find((o) => o.kind === 'accept');
  if (accepted?.kind === 'accept') {
    const who = accepted.approver ? `, with the approval of ${accepted.approver}` : '';
    return {
      verdict: 'accept',
      reason: `Acceptable (${said(accepted.topic)}): the next rung the playbook accepts${who}, and no better fallback to offer.`,
      ...base,
      ...(accepted.approver ? { approver: accepted.approver } : {}),
    };
  }
  const better = shifts
    .filter((s) => (depthOf(s.after) ?? 5) < (depthOf(s.before) ?? 5))
    .map((s) => said(s.topic));
  const reason =
    better.length > 0
      ? `No worse for us: ${better.join('; ')}.`
      : positions.size > 0
        ? `No worse for us: no position of the playbook falls a rung and the clause's risk does not rise (${after.risk ?? 'none'}).`
        : `No worse for us: the clause's risk does not rise (${before?.risk ?? 'none'} before, ${after.risk ?? 'none'} now).`;
  return { verdict: 'accept', reason, ...base };
}
