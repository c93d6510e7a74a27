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
import { conversion, type Mention, mentions, writeNumber, writeQuantity } from './playbook-measure.js';

/** A rung as a playbook position's data gives it. */
interface RungData {
  readonly position: string;
  readonly language: string;
  readonly threshold?: number;
}

/** A position as the request's playbook block carries it. */
export interface PositionData {
  readonly topic: string;
  readonly category: string;
  readonly question: string;
  readonly measure?: {
    readonly quantity: string;
    readonly unit: string;
    readonly direction: 'at-least' | 'at-most';
  };
  readonly standard: RungData;
  readonly fallbacks: readonly RungData[];
  readonly notAcceptable: readonly string[];
}

/** One position's answer, in the tool schema's shape. */
export interface PositionReply {
  rung: string;
  quotes: string[];
  reason: string;
  measured?: number | null;
  redline: {
    target: string;
    edits: { start: number; end: number; deleted: string; insert: string }[];
  } | null;
}

const PLAYBOOK_BLOCK = /<playbook-([0-9a-f]{8,64})>\n([\s\S]*?)\n<\/playbook-\1>/;

/** The positions a request's system blocks carry, or undefined when it has none. */
export function requestPositions(
  system: readonly Record<string, unknown>[] | undefined,
): PositionData[] | undefined {
  for (const block of system ?? []) {
    const text = typeof block.text === 'string' ? block.text : '';
    const m = PLAYBOOK_BLOCK.exec(text);
    if (!m) continue;
    try {
      const parsed = JSON.parse(m[2] ?? '') as unknown;
      if (Array.isArray(parsed)) return parsed as PositionData[];
    } catch {
      return undefined;
    }
  }
  return undefined;
}

const STOP = new Set(
  (
    'a an the and or of to in on for by with at as is are be been being this that these those it its any all ' +
    'no not nor we our us they their them may must shall will would can could should than then there which who ' +
    'whom what when where from into under over per each either neither both other such only if unless also more ' +
    'less least most up out within without before after so do does did has have had agreement contract clause ' +
    'party parties supplier customer we us our one two three position standard does is'
  ).split(' '),
);

/** A light stem: the first five letters, so "renews", "renewal" and "renewing" meet, as do "terminate" and "termination". */
function stem(word: string): string {
  const w = word.toLowerCase();
  return w.length > 5 ? w.slice(0, 5) : w.replace(/s$/, '');
}

function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.match(/[A-Za-z]+/g) ?? []) {
    if (w.length < 3 || STOP.has(w.toLowerCase())) continue;
    out.add(stem(w));
  }
  return out;
}

/** The stems that say what a position is about: its topic, question and standard position. */
function topicStems(p: PositionData): Set<string> {
  return stems(`${p.topic.replace(/-/g, ' ')} ${p.question} ${p.standard.position}`);
}

/**
 * The words that are a topic's own among the positions of its category: those of its topic name
 * no sibling's name has ("breach" in termination-for-breach), else those of its question.
 */
function ownStems(p: PositionData, siblings: readonly PositionData[]): string[] {
  const name = (q: PositionData) => stems(q.topic.replace(/-/g, ' '));
  const taken = new Set(siblings.flatMap((q) => [...name(q)]));
  const own = [...name(p)].filter((t) => !taken.has(t));
  if (own.length > 0) return own;
  const asked = new Set(siblings.flatMap((q) => [...stems(q.question)]));
  return [...stems(p.question)].filter((t) => !asked.has(t));
}

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

/** Text in the case of the clause's words it replaces or follows: an all-capitals clause gets capitals. */
function inCaseOf(context: string, text: string): string {
  const letters = context.replace(/[^A-Za-z]/g, '');
  return letters.length >= 8 && letters === letters.toUpperCase() ? text.toUpperCase() : text;
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

/** The share of a text's stems the clause's topic sentences hold. */
function overlap(text: string, clause: Set<string>): number {
  const own = stems(text);
  if (own.size === 0) return 0;
  let shared = 0;
  for (const s of own) if (clause.has(s)) shared++;
  return shared / own.size;
}

/** Below this share of its words, no rung's language describes the clause. */
const WORDING_MATCH = 0.3;
/** A not-acceptable term this much present in the clause puts it below every rung. */
const NOT_ACCEPTABLE_MATCH = 0.6;

/** The rung by wording: the rung whose words the clause holds most of, or none. */
function wordingRung(p: PositionData, segments: readonly Segment[]): { depth: number; why: string } {
  const clause = stems(segments.map((s) => s.text).join(' '));
  const bad = p.notAcceptable.find((n) => overlap(n, clause) >= NOT_ACCEPTABLE_MATCH);
  if (bad) return { depth: 4, why: `it reads as what the playbook does not accept: "${bad}"` };
  const rungs = [p.standard, ...p.fallbacks].map((r, depth) => ({
    depth,
    share: overlap(r.language, clause),
  }));
  const best = rungs.reduce((a, b) => (b.share > a.share ? b : a));
  if (best.share < WORDING_MATCH)
    return { depth: 4, why: 'its terms match neither the standard nor any fallback the playbook accepts' };
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

/** The redline that brings the clause to the standard: its number rewritten, or the standard's language inserted. */
function redlineOf(
  clause: string,
  p: PositionData,
  at: Segment,
  numbered?: { mention?: Mention },
): PositionReply['redline'] {
  const target = p.standard;
  const m = numbered?.mention;
  if (p.measure && m && target.threshold !== undefined) {
    const factor = clauseFactor(m, p.measure.unit);
    if (factor !== undefined) {
      const mentioned = clause.slice(at.start + m.start, at.start + m.end);
      const inClauseUnits = Math.round((target.threshold / factor) * 100) / 100;
      let start = at.start + m.numberStart;
      let end = at.start + m.numberEnd;
      let insert: string;
      if (/^(twice|double)$/i.test(mentioned))
        insert = writeQuantity(target.threshold, 'multiple-of-fees', 'words');
      else if (Number.isInteger(inClauseUnits) && inClauseUnits !== 1)
        insert = writeNumber(inClauseUnits, m.style);
      else {
        // "one (1) months" or "1.5 months" would not read: the whole mention, in the position's unit.
        start = at.start + m.start;
        end = at.start + m.end;
        insert = writeQuantity(target.threshold, p.measure.unit, m.style);
      }
      return {
        target: 'standard',
        edits: [{ start, end, deleted: clause.slice(start, end), insert: inCaseOf(at.text, insert) }],
      };
    }
  }
  // The standard's language after the sentence that deals with the topic.
  const point = at.end;
  return {
    target: 'standard',
    edits: [{ start: point, end: point, deleted: '', insert: ` ${inCaseOf(at.text, target.language)}` }],
  };
}

/** How many of the position's unit one of the mention's unit makes (a year of fees is one multiple). */
function clauseFactor(m: Mention, unit: string): number | undefined {
  if (unit === 'multiple-of-fees' && (m.unit === 'month' || m.unit === 'year'))
    return m.unit === 'year' ? 1 : 1 / 12;
  return conversion(m.unit, unit);
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
    // A position measured by a number, and the clause states none that can be compared (no cap,
    // a redacted amount): no rung can be shown to be met.
    depth = 4;
    why = `it states no ${measure.quantity} that can be compared with the playbook's (${measure.direction} ${thresholdsOf(p)} ${measure.unit})`;
  } else {
    ({ depth, why } = wordingRung(p, segments));
  }
  // A standard both parties share that the clause gives one of them only is one rung down.
  if (depth < 4 && MUTUAL.test(p.standard.language) && !segments.some((s) => MUTUAL.test(s.text))) {
    depth = depth + 1 > p.fallbacks.length ? 4 : depth + 1;
    why += '; it binds one party only where the playbook asks for a mutual term';
    numbered = undefined;
  }
  const oneSided = oneSidedWords(segments, p);
  if (oneSided)
    [depth, why] = [4, `${why}; it lets a party act "${oneSided}", which no rung of the playbook allows`];
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
    redline: depth === 0 ? null : redlineOf(index.clause, p, at, numbered),
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
    out[p.topic] = judgePosition(index, p, siblings, analyst, limits, model);
  }
  (input as Record<string, unknown>).positions = out;
}
