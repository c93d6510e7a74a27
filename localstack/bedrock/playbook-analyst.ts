/**
 * The stand-in's answer to a playbook's positions, offline: which rung a clause reaches and the
 * smallest edit of its text that brings it to the standard.
 *
 * - Whether the clause deals with a position's topic: the position's category must be found in it
 *   (by the offline analyst's models, or by the lexicon, which also knows topics CUAD has no
 *   label for, such as termination for breach), and one of its sentences must speak of the
 *   topic: it holds a word that is the topic's own among the positions of its category, and
 *   shares enough of the topic's words (from the position's question and standard), the CUAD
 *   kind the learned models read the position's words as (a cap, a renewal notice) counting as
 *   two of them when the learned models read the sentence as that kind too.
 * - The rung: from the number the clause states where the position has a measure (a notice
 *   period, a cap as a multiple of the fees), compared with each rung's threshold in the
 *   measure's direction; a cap stated as a fixed sum, or no number where one is needed, fails
 *   every rung; a standard written for both parties ("each party", "either party") that the
 *   clause applies to one only loses a rung. Without a measure, from the words the clause shares
 *   with each rung's language and with what the position lists as not acceptable.
 * - The redline: the clause's own number rewritten in its own style ("ninety (90) days" →
 *   "thirty (30) days"), or the standard's language inserted after the sentence that deals with
 *   the topic; offsets are the clause's own.
 *
 * Deterministic, like the rest of the stand-in; not a legal-grade judgement.
 */
import { CATEGORIES } from '../../lambdas/core/analysts/categories.js';
import { featuresOf, type LearnedModel, probability, shippedModel } from '../../lambdas/core/screen/index.js';
import type { ClauseIndex, Segment } from './clause-text.js';
import type { AnalystRequest, OfflineAnalyst } from './heuristic-types.js';
import type { SchemaNode } from './json-schema.js';
import { HEURISTIC_ANALYST } from './offline-analysts.js';
import { oneSidedWords } from './one-sided.js';
import {
  overlap,
  ownStems,
  type PositionData,
  type PositionReply,
  type RequestNames,
  requestNames,
  requestPositions,
  stem,
  stems,
  topicStems,
} from './playbook-data.js';
import { onePartyHolds, redlineOf } from './playbook-edits.js';
import { conversion, type Mention, mentions } from './playbook-measure.js';

export { type PositionData, type PositionReply, requestPositions } from './playbook-data.js';

/** The probability of each CUAD kind of the position's category that the position's own words read as. */
function kindScores(model: LearnedModel, p: PositionData): Map<string, number> {
  const category = CATEGORIES.find((c) => c.id === p.category);
  const f = featuresOf(model, `${p.question} ${p.standard.position} ${p.standard.language}`);
  const out = new Map<string, number>();
  for (const k of category?.cuad ?? []) {
    const label = model.cuad.get(k.toLowerCase());
    if (label) out.set(k.toLowerCase(), probability(label, f.ids, f.count));
  }
  return out;
}

/**
 * The CUAD kinds a position's words read as (at least even odds), each kept by the position of
 * its category that reads most like it: a cap is the limitation of liability's kind, not the
 * carve-outs'.
 */
function topicKinds(model: LearnedModel, p: PositionData, siblings: readonly PositionData[]): string[] {
  const mine = kindScores(model, p);
  const theirs = siblings.map((q) => kindScores(model, q));
  return [...mine].filter(([k, v]) => v >= 0.5 && theirs.every((t) => (t.get(k) ?? 0) <= v)).map(([k]) => k);
}

/** Whether the learned models read a sentence as one of the topic's CUAD kinds. */
function readsAsKind(segment: Segment, kinds: readonly string[], model: LearnedModel): boolean {
  if (kinds.length === 0) return false;
  const f = featuresOf(model, segment.text);
  return kinds.some((k) => {
    const label = model.cuad.get(k);
    return label !== undefined && probability(label, f.ids, f.count) >= 0.5;
  });
}

/** A sentence must score this much to speak of a topic. */
const TOPIC_RELEVANCE = 3;

/**
 * The sentences of the clause that deal with the position's topic, most relevant first: each
 * holds a word of the topic's own name among its siblings' (a "breach" for termination for
 * breach, not only "terminate") or reads, to the learned models, as the topic's CUAD kind; and
 * shares enough of the topic's words, the kind counting as two.
 */
function topicSegments(
  index: ClauseIndex,
  p: PositionData,
  siblings: readonly PositionData[],
  analyst: OfflineAnalyst,
  model?: LearnedModel,
): Segment[] {
  const spec = { key: p.category, description: p.question };
  // The learned models know the topics CUAD labels; the lexicon also knows, say, termination for breach.
  if (!analyst.match(index, spec).present && !HEURISTIC_ANALYST.match(index, spec).present) return [];
  const terms = topicStems(p);
  const own = ownStems(p, siblings);
  const kinds = model ? topicKinds(model, p, siblings) : [];
  const scored: { segment: Segment; score: number }[] = [];
  for (const segment of index.segments) {
    const words = stems(segment.text);
    const kind = model ? readsAsKind(segment, kinds, model) : false;
    if (!kind && own.length > 0 && !own.some((t) => words.has(t))) continue;
    let score = kind ? 2 : 0;
    for (const w of words) if (terms.has(w)) score++;
    if (score >= TOPIC_RELEVANCE) scored.push({ segment, score });
  }
  return scored.sort((a, b) => b.score - a.score || a.segment.start - b.segment.start).map((x) => x.segment);
}

const MUTUAL =
  /\b(each party|either party|neither party|both parties|each of the parties|the parties|mutual(?:ly)?)\b/i;
const CAP_WORDS =
  /\b(shall not exceed|will not exceed|not to exceed|limited to|cap(?:ped)?|maximum|aggregate liability|in no event)\b/i;
const FEE_WORDS = /\b(fees?|charges?|amounts? paid|paid or payable|compensation|price|consideration)\b/i;

/** Characters from a mention to the nearest word of the measured quantity ("notice", "cap"). */
function distanceToQuantity(text: string, m: Mention, words: Set<string>): number {
  let best = Number.POSITIVE_INFINITY;
  for (const w of text.matchAll(/[A-Za-z]+/g)) {
    if (!words.has(stem(w[0]))) continue;
    const d = w.index < m.start ? m.start - (w.index + w[0].length) : w.index - m.end;
    best = Math.min(best, Math.max(0, d));
  }
  return best;
}

/**
 * The number a sentence states for the measure, in the measure's unit, with the mention it came
 * from: of the numbers in a unit that converts, the one nearest the measure's own words (the
 * notice period rather than the renewal term).
 */
function measuredIn(
  segment: Segment,
  measure: NonNullable<PositionData['measure']>,
): { value: number; mention?: Mention; fixedSum?: boolean } | undefined {
  const { unit } = measure;
  const quantity = stems(measure.quantity);
  const near = (list: Mention[]) =>
    [...list].sort(
      (a, b) => distanceToQuantity(segment.text, a, quantity) - distanceToQuantity(segment.text, b, quantity),
    );
  const found = near(mentions(segment.text));
  if (unit === 'multiple-of-fees') {
    if (!FEE_WORDS.test(segment.text) && found.some((m) => m.unit === 'money'))
      return { value: 0, fixedSum: true };
    const multiple = found.find((m) => m.unit === 'times' || m.unit === 'percent');
    if (multiple)
      return { value: multiple.value * (conversion(multiple.unit, unit) ?? 1), mention: multiple };
    const months = found.find((m) => m.unit === 'month' || m.unit === 'year');
    if (months && FEE_WORDS.test(segment.text))
      return { value: (months.value * (months.unit === 'year' ? 12 : 1)) / 12, mention: months };
    if (found.some((m) => m.unit === 'money')) return { value: 0, fixedSum: true };
    if (CAP_WORDS.test(segment.text) && FEE_WORDS.test(segment.text)) return { value: 1 };
    return undefined;
  }
  for (const m of found) {
    const factor = conversion(m.unit, unit);
    if (factor !== undefined) return { value: Math.round(m.value * factor * 100) / 100, mention: m };
  }
  return undefined;
}

/** The rung a number reaches: 0 standard, n fallback n, 4 none. */
function numberRung(p: PositionData, value: number): number {
  const { direction } = p.measure as NonNullable<PositionData['measure']>;
  const meets = (t: number | undefined) =>
    t !== undefined && (direction === 'at-most' ? value <= t : value >= t);
  if (meets(p.standard.threshold)) return 0;
  const i = p.fallbacks.findIndex((f) => meets(f.threshold));
  return i >= 0 ? i + 1 : 4;
}

/** Below this share of its words, no rung's language describes the clause. */
const WORDING_MATCH = 0.3;
/** A not-acceptable term this much present in the clause puts it below every rung. */
const NOT_ACCEPTABLE_MATCH = 0.6;

/**
 * Whether a clause's words read as one of a position's not-acceptable terms: it holds most of the
 * term's words. A term that names an absence ("No intellectual property indemnity") is the whole
 * contract's to show, never one clause's: a clause on something else lacks it too.
 */
function readsAsNotAcceptable(term: string, clause: Set<string>): boolean {
  if (/^(?:no|none|without|nothing)\b/i.test(term.trim())) return false;
  return overlap(term, clause) >= NOT_ACCEPTABLE_MATCH;
}

/**
 * Words that say a measured quantity is none at all: no notice, no cap. Not the drafting habits
 * that only widen a list ("including, but not limited to", "including without limitation").
 */
const NONE_AT_ALL =
  /\b(without\s+(?:prior\s+)?notice|at\s+any\s+time\s+without|unlimited|not\s+(?:be\s+)?limited(?!\s+to\b)|no\s+limit(?:ation)?\s+(?:on|of)|without\s+limit\b(?!ation))/i;

/** The rung by wording: the rung whose words the clause holds most of, or none. */
function wordingRung(p: PositionData, segments: readonly Segment[]): { depth: number; why: string } {
  const clause = stems(segments.map((s) => s.text).join(' '));
  const bad = p.notAcceptable.find((n) => readsAsNotAcceptable(n, clause));
  if (bad) return { depth: 4, why: `it reads as what the playbook does not accept: "${bad}"` };
  const rungs = [p.standard, ...p.fallbacks].map((r, depth) => ({
    depth,
    share: overlap(r.language, clause),
  }));
  const best = rungs.reduce((a, b) => (b.share > a.share ? b : a));
  // Words too far from every rung say nothing of where the clause stands: a reader would not
  // call it unacceptable on that, nor bolt the standard onto it.
  if (best.share < WORDING_MATCH)
    return { depth: -1, why: 'its words match no rung closely enough to judge' };
  return {
    depth: best.depth,
    why: `its wording is closest to the ${best.depth === 0 ? 'standard' : `fallback ${best.depth}`} position (${Math.round(best.share * 100)}% of its words)`,
  };
}

/** The thresholds of a position's rungs, best first: "30, 60, 90". */
const thresholdsOf = (p: PositionData) =>
  [p.standard, ...p.fallbacks]
    .map((r) => r.threshold)
    .filter((t) => t !== undefined)
    .join(', ');

const rungValue = (depth: number) =>
  depth === 0 ? 'standard' : depth === 4 ? 'not-acceptable' : `fallback-${depth}`;

const rungName = (depth: number) =>
  depth === 0 ? 'the standard' : depth === 4 ? 'not acceptable' : `fallback ${depth}`;

/** A verbatim piece of the sentence of at most `max` characters, around the offset it must show. */
function quoteOf(segment: Segment, max: number, around?: number): string {
  if (segment.text.length <= max) return segment.text;
  const centre = around === undefined ? 0 : Math.max(0, around - segment.start - max / 2);
  let from = Math.min(Math.floor(centre), segment.text.length - max);
  // Start and end on word boundaries where the text allows.
  if (from > 0) {
    const space = segment.text.indexOf(' ', from);
    if (space >= 0 && space < from + 20) from = space + 1;
  }
  let piece = segment.text.slice(from, from + max);
  const space = piece.lastIndexOf(' ');
  if (from + max < segment.text.length && space > max / 2) piece = piece.slice(0, space);
  return piece.trim();
}

/** Limits the stand-in keeps to, from the caller's schema. */
export interface ReplyLimits {
  readonly maxQuotes: number;
  readonly maxQuoteChars: number;
  readonly maxReasonChars: number;
}

/**
 * The answer for one position.
 * @param siblings the other positions of the request in the same category
 * @param model the learned model, when the learned analyst answers (its CUAD kinds help find the topic)
 */
export function judgePosition(
  index: ClauseIndex,
  p: PositionData,
  siblings: readonly PositionData[],
  analyst: OfflineAnalyst,
  limits: ReplyLimits,
  model?: LearnedModel,
  names?: RequestNames,
): PositionReply {
  const segments = topicSegments(index, p, siblings, analyst, model);
  const notAddressed: PositionReply = {
    rung: 'not-addressed',
    quotes: [],
    reason: `The clause does not deal with ${p.topic.replace(/-/g, ' ')}.`,
    ...(p.measure ? { measured: null } : {}),
    redline: null,
  };
  const first = segments[0];
  if (!first) return notAddressed;
  const clip = (s: string) => s.slice(0, limits.maxReasonChars);
  let depth: number;
  let why: string;
  let measured: number | null = null;
  let numbered: { mention?: Mention } | undefined;
  let at = first;
  const measure = p.measure;
  const stated = measure
    ? segments.map((s) => ({ s, m: measuredIn(s, measure) })).find((x) => x.m !== undefined)
    : undefined;
  if (measure && stated?.m) {
    at = stated.s;
    if (stated.m.fixedSum) {
      depth = 4;
      why = `the clause states a fixed sum where the playbook measures ${measure.quantity} in ${measure.unit}`;
    } else {
      measured = stated.m.value;
      numbered = stated.m;
      depth = numberRung(p, measured);
      why = `the clause states ${measured} (${measure.quantity}, ${measure.unit}); the playbook asks ${measure.direction} ${thresholdsOf(p)}, so it is ${rungName(depth)}`;
    }
  } else if (measure) {
    // A position measured by a number, and the clause states none. Only words that mean the
    // number is none at all ("without notice", "unlimited") put it below every rung; otherwise the
    // clause is about something else near the topic, and the contract's other clauses (or the
    // required clause's absence) decide.
    if (!NONE_AT_ALL.test(segments.map((s) => s.text).join(' '))) return notAddressed;
    depth = 4;
    why = `it sets no ${measure.quantity} at all, where the playbook asks ${measure.direction} ${thresholdsOf(p)} ${measure.unit}`;
  } else {
    ({ depth, why } = wordingRung(p, segments));
  }
  // A standard both parties share that the clause gives one of them only is one rung down.
  const oneSided = MUTUAL.test(p.standard.language) && !segments.some((s) => MUTUAL.test(s.text));
  if (depth < 0) {
    // Only a term one named party holds, where the standard binds both, says where such a clause stands.
    if (!oneSided || !onePartyHolds(at, names)) return notAddressed;
    depth = 4;
    why = 'it binds one party only where the playbook asks for a mutual term';
  } else if (depth < 4 && oneSided) {
    depth = depth + 1 > p.fallbacks.length ? 4 : depth + 1;
    why += '; it binds one party only where the playbook asks for a mutual term';
    numbered = undefined;
  }
  const unbounded = oneSidedWords(segments, p);
  if (unbounded) {
    [depth, why] = [4, `${why}; it lets a party act "${unbounded}", which no rung of the playbook allows`];
    numbered = undefined;
  }
  const quotes = [at, ...segments.filter((s) => s !== at)]
    .slice(0, limits.maxQuotes)
    .map((s) =>
      quoteOf(
        s,
        limits.maxQuoteChars,
        s === at && numbered?.mention ? s.start + numbered.mention.start : undefined,
      ),
    )
    .filter((q) => q.length > 0);
  const label = analyst.name === 'learned' ? 'offline learned analyst' : 'offline heuristic';
  return {
    rung: rungValue(depth),
    quotes,
    reason: clip(`${rungName(depth)[0]?.toUpperCase()}${rungName(depth).slice(1)}: ${why} (${label}).`),
    ...(measure ? { measured } : {}),
    redline:
      depth === 0
        ? null
        : redlineOf(index.clause, p, at, {
            ...(numbered ? { numbered } : {}),
            oneSided,
            ...(names ? { names } : {}),
          }),
  };
}

/**
 * Fills the `positions` of an answer whose request carries a playbook's positions (and whose
 * schema asks for them) with the stand-in's judgement of each, in place of the generic fill.
 */
export function answerPositions(
  request: AnalystRequest,
  node: SchemaNode,
  input: unknown,
  index: ClauseIndex,
  analyst: OfflineAnalyst,
): void {
  const schema = node.properties?.get('positions');
  if (!schema || input === null || typeof input !== 'object') return;
  const positions = requestPositions(request.system);
  if (!positions) return;
  const names = requestNames(request.system);
  const model = analyst.name === 'learned' ? shippedModel() : undefined;
  const out: Record<string, unknown> = {};
  for (const p of positions) {
    const topic = schema.properties?.get(p.topic);
    if (!topic) continue;
    const quotes = topic.properties?.get('quotes');
    const limits: ReplyLimits = {
      maxQuotes: quotes?.maxItems ?? 3,
      maxQuoteChars: quotes?.items?.maxLength ?? 300,
      maxReasonChars: topic.properties?.get('reason')?.maxLength ?? 500,
    };
    const siblings = positions.filter((q) => q !== p && q.category === p.category);
    out[p.topic] = judgePosition(index, p, siblings, analyst, limits, model, names);
  }
  (input as Record<string, unknown>).positions = out;
}
