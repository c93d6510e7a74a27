/**
 * Merges the answers of the panel for one clause into one assessment: per category the
 * most cautious score and the evidence of every analyst, with the same passage quoted by
 * several analysts shown once. The result depends only on the set of answers, not on the
 * order they arrive in, so a redelivered chunk consolidates to the same report.
 */

import type { Clause } from '../clause.js';
import type { AnalystAnswer } from './answer.js';
import { CATEGORY_IDS, type CategoryId } from './categories.js';
import { AnalystError } from './errors.js';
import type { AnswerRedline, LocatedQuote, PositionAnswer } from './position-answer.js';
import type { Score } from './tool-schema.js';

/** Overall risk of a clause, from its category scores (see {@link riskFromScores}). */
export type ClauseRisk = 'none' | 'low' | 'medium' | 'high' | 'critical';

/** A piece of evidence after de-duplication across analysts. */
export interface ConsolidatedFinding {
  /** `text.slice(start, end)` of the job's normalised text. */
  readonly quote: string;
  readonly start: number;
  readonly end: number;
  /** The longest of the merged rationales. */
  readonly rationale: string;
  /** Every analyst who raised it, sorted. */
  readonly analysts: readonly string[];
  /** The highest score those analysts gave the category. */
  readonly score: Score;
}

/** The panel's verdict on one category of one clause. */
export interface CategoryVerdict {
  /** The highest score any analyst gave; `null` when none scored it (not addressed, or not assessed). */
  readonly score: Score | null;
  /** Analysts that gave a non-null score, sorted. */
  readonly scoredBy: readonly string[];
  /** Sorted by start, then end. */
  readonly findings: readonly ConsolidatedFinding[];
}

/**
 * The panel's verdict on one playbook position the clause addresses: the lowest rung any
 * analyst gave (the cautious reading, as for scores), with that analyst's reason, number and
 * redline, and the quotes of every analyst that addressed it.
 */
export interface PositionVerdict {
  readonly topic: string;
  readonly rung: PositionAnswer['rung'];
  readonly fallback?: PositionAnswer['fallback'];
  /** Every analyst's quotes, each passage once, in text order. */
  readonly quotes: readonly LocatedQuote[];
  readonly reason: string;
  readonly measured?: number;
  readonly redline?: AnswerRedline;
  /** Analysts that addressed the position, sorted. */
  readonly analysts: readonly string[];
}

/** The consolidated assessment of one clause. */
export interface ClauseAssessment {
  readonly clauseId: string;
  /**
   * In a review against a playbook: the positions the clause addresses, in the order the
   * analysts list them. Absent without a playbook.
   */
  readonly positions?: readonly PositionVerdict[];
  /** All twelve categories. */
  readonly categories: Readonly<Record<CategoryId, CategoryVerdict>>;
  /** Highest category score, `null` when no category was scored. */
  readonly maxScore: Score | null;
  readonly risk: ClauseRisk;
  readonly coverage: {
    /** Analysts whose answer is included, sorted. */
    readonly analystsAnswered: readonly string[];
    /** Analysts with no valid answer (failed, skipped for budget), sorted. */
    readonly analystsFailed: readonly string[];
    /**
     * Categories no answering analyst covers: their `null` score means "not assessed",
     * not "not addressed". Empty when the full panel answered.
     */
    readonly categoriesUnassessed: readonly CategoryId[];
  };
}

/** Share of the shorter of two quoted spans that must overlap for them to count as the same evidence. */
const SAME_EVIDENCE_OVERLAP = 0.5;

/**
 * The clause's risk from its category scores:
 * - `critical`: a severe score (3) and at least one other category at 2 or more;
 * - `high`: a severe score alone, or three or more categories at 2;
 * - `medium`: a significant score (2) in one or two categories;
 * - `low`: at most a minor score (1);
 * - `none`: only standard terms (0), or no category addressed.
 *
 * Several significant issues in one clause compound (a cap, an indemnity and a
 * termination fee together), hence the step up when they accumulate.
 */
export function riskFromScores(scores: readonly (Score | null)[]): ClauseRisk {
  const scored = scores.filter((s): s is Score => s !== null);
  const max = Math.max(-1, ...scored);
  const significant = scored.filter((s) => s >= 2).length;
  if (max === 3) return significant >= 2 ? 'critical' : 'high';
  if (max === 2) return significant >= 3 ? 'high' : 'medium';
  if (max === 1) return 'low';
  return 'none';
}

/**
 * Consolidates the panel's answers for one clause.
 *
 * Per category: the score is the maximum over the analysts that scored it (the cautious
 * reading, since a missed risk costs more than a double-checked one); findings whose
 * spans are the same or overlap by at least half of the shorter one become one finding
 * covering both spans, listing every analyst and keeping the longest rationale.
 *
 * @param failedAnalysts analysts of the selection with no valid answer for this clause.
 * @throws AnalystError if an answer belongs to another clause.
 */
export function consolidateClause(
  clause: Clause,
  answers: readonly AnalystAnswer[],
  failedAnalysts: readonly string[] = [],
): ClauseAssessment {
  const foreign = answers.find((a) => a.clauseId !== clause.id);
  if (foreign) {
    throw new AnalystError(
      `answer of analyst '${foreign.analystId}' is for clause ${foreign.clauseId}, not ${clause.id}`,
    );
  }
  // Sorting first makes every later step independent of the order answers arrived in.
  const sorted = [...answers].sort((a, b) => compareText(a.analystId, b.analystId));

  const categories = Object.fromEntries(
    CATEGORY_IDS.map((id) => [id, consolidateCategory(clause, id, sorted)]),
  ) as Record<CategoryId, CategoryVerdict>;
  const scores = CATEGORY_IDS.map((id) => categories[id].score);
  const assessed = new Set(sorted.flatMap((a) => Object.keys(a.assessments)));
  const maxScore = scores.reduce<Score | null>(
    (max, s) => (s !== null && (max === null || s > max) ? s : max),
    null,
  );

  const positions = consolidatePositions(sorted);
  return {
    clauseId: clause.id,
    ...(positions ? { positions } : {}),
    categories,
    maxScore,
    risk: riskFromScores(scores),
    coverage: {
      analystsAnswered: uniqueSorted(sorted.map((a) => a.analystId)),
      analystsFailed: uniqueSorted(failedAnalysts),
      categoriesUnassessed: CATEGORY_IDS.filter((id) => !assessed.has(id)),
    },
  };
}

/**
 * Every finding of a consolidated clause in one list, each tagged with its category, in
 * text order (then category order): the shape a report lists evidence in. Derived on
 * demand rather than stored, so the checkpoint holds each finding once.
 */
export function clauseFindings(
  assessment: ClauseAssessment,
): (ConsolidatedFinding & { readonly category: CategoryId })[] {
  return CATEGORY_IDS.flatMap((category) =>
    assessment.categories[category].findings.map((f) => ({ category, ...f })),
  ).sort((a, b) => a.start - b.start || a.end - b.end);
}

/** How far below the standard a rung is (0 standard, n the n-th fallback, 4 not acceptable). */
function depth(p: Pick<PositionAnswer, 'rung' | 'fallback'>): number {
  return p.rung === 'standard' ? 0 : p.rung === 'fallback' ? (p.fallback ?? 1) : 4;
}

/** The answers' positions merged by topic; undefined when no answer judged positions. */
function consolidatePositions(sorted: readonly AnalystAnswer[]): PositionVerdict[] | undefined {
  if (!sorted.some((a) => a.positions)) return undefined;
  const byTopic = new Map<string, { answer: PositionAnswer; analystId: string }[]>();
  for (const a of sorted) {
    for (const p of a.positions ?? []) {
      const list = byTopic.get(p.topic) ?? [];
      list.push({ answer: p, analystId: a.analystId });
      byTopic.set(p.topic, list);
    }
  }
  return [...byTopic.values()].map((list) => {
    // The deepest rung stands; among equals the first analyst by id, so arrival order never matters.
    const lowest = list.reduce((best, x) => (depth(x.answer) > depth(best.answer) ? x : best));
    const { topic, rung, fallback, reason, measured, redline } = lowest.answer;
    const quotes = new Map<string, LocatedQuote>();
    for (const x of list) for (const q of x.answer.quotes) quotes.set(`${q.start}:${q.end}`, q);
    return {
      topic,
      rung,
      ...(fallback !== undefined ? { fallback } : {}),
      quotes: [...quotes.values()].sort((a, b) => a.start - b.start || a.end - b.end),
      reason,
      ...(measured !== undefined ? { measured } : {}),
      ...(redline ? { redline } : {}),
      analysts: uniqueSorted(list.map((x) => x.analystId)),
    };
  });
}

/** A finding while merging: its span may grow as overlapping findings join it. */
interface Cluster {
  start: number;
  end: number;
  rationale: string;
  analysts: Set<string>;
  score: Score;
}

function consolidateCategory(
  clause: Clause,
  id: CategoryId,
  answers: readonly AnalystAnswer[],
): CategoryVerdict {
  let score: Score | null = null;
  const scoredBy: string[] = [];
  const candidates: { start: number; end: number; rationale: string; analystId: string; score: Score }[] = [];
  for (const answer of answers) {
    const assessment = answer.assessments[id];
    if (!assessment || assessment.score === null) continue;
    const s = assessment.score;
    if (score === null || s > score) score = s;
    scoredBy.push(answer.analystId);
    for (const f of assessment.findings) {
      candidates.push({
        start: f.start,
        end: f.end,
        rationale: f.rationale,
        analystId: answer.analystId,
        score: s,
      });
    }
  }

  candidates.sort(
    (a, b) =>
      a.start - b.start ||
      b.end - a.end ||
      compareText(a.analystId, b.analystId) ||
      compareText(a.rationale, b.rationale),
  );
  const clusters: Cluster[] = [];
  for (const c of candidates) {
    const home = bestOverlap(clusters, c);
    if (!home) {
      clusters.push({ ...c, analysts: new Set([c.analystId]) });
      continue;
    }
    home.start = Math.min(home.start, c.start);
    home.end = Math.max(home.end, c.end);
    home.analysts.add(c.analystId);
    if (c.score > home.score) home.score = c.score;
    if (c.rationale.length > home.rationale.length) home.rationale = c.rationale;
  }

  const findings = clusters
    .map((k) => ({
      quote: clause.text.slice(k.start - clause.start, k.end - clause.start),
      start: k.start,
      end: k.end,
      rationale: k.rationale,
      analysts: uniqueSorted([...k.analysts]),
      score: k.score,
    }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  return { score, scoredBy: uniqueSorted(scoredBy), findings };
}

/** The cluster sharing the most of the candidate's evidence, if any shares enough; ties go to the earliest. */
function bestOverlap(clusters: readonly Cluster[], c: { start: number; end: number }): Cluster | undefined {
  let best: Cluster | undefined;
  let bestRatio = SAME_EVIDENCE_OVERLAP;
  for (const k of clusters) {
    const overlap = Math.min(k.end, c.end) - Math.max(k.start, c.start);
    const shorter = Math.min(k.end - k.start, c.end - c.start);
    if (overlap <= 0 || shorter <= 0) continue;
    const ratio = overlap / shorter;
    if (ratio >= bestRatio && (!best || ratio > bestRatio)) {
      best = k;
      bestRatio = ratio;
    }
  }
  return best;
}

function uniqueSorted(values: readonly string[]): string[] {
  return [...new Set(values)].sort(compareText);
}

/** Code-unit order, independent of the runtime's locale (unlike `localeCompare`). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
