/**
 * The learned offline analyst: for the twelve risk categories of this project's analysts, the
 * shipped logistic models decide whether a clause addresses a category (the threshold chosen in
 * training), the sentences with the most evidence for it become the findings, and
 * {@link readPassage} says in plain words what each says and how severe it is. A category the
 * model does not know (another caller's schema) is matched by the heuristic lexicon.
 */
import { CATEGORIES } from '../../../lambdas/core/analysts/categories.js';
import {
  evidence,
  featuresOf,
  type LearnedModel,
  probability,
  riskIndex,
} from '../../../lambdas/core/screen/index.js';
import type { ClauseIndex, Segment } from '../clause-text.js';
import { type CategoryMatch, type CategorySpec, matchCategory, type SegmentMatch } from '../risk-lexicon.js';
import { readPassage } from './reasons.js';

/** At most this many sentences are quoted as findings of one category. */
const MAX_EVIDENCE = 3;
/** A further sentence is quoted when its evidence is at least this share of the strongest's. */
const EVIDENCE_SHARE = 0.5;

const MEMO_KEY = 'learned';

interface Features {
  readonly ids: Int32Array;
  readonly count: number;
}

interface ClauseMemo {
  readonly clause: Features;
  readonly segments: (Features | undefined)[];
  readonly matches: Map<number, CategoryMatch>;
}

function memoOf(model: LearnedModel, index: ClauseIndex): ClauseMemo {
  let memo = index.memo.get(MEMO_KEY) as ClauseMemo | undefined;
  if (!memo) {
    memo = { clause: featuresOf(model, index.clause), segments: [], matches: new Map() };
    index.memo.set(MEMO_KEY, memo);
  }
  return memo;
}

function segmentFeatures(model: LearnedModel, index: ClauseIndex, memo: ClauseMemo, s: number): Features {
  let features = memo.segments[s];
  if (!features) {
    features = featuresOf(model, (index.segments[s] as Segment).text);
    memo.segments[s] = features;
  }
  return features;
}

/** The CUAD kinds of each risk category, lower case, as the model names them. */
const KINDS_OF_RISK: readonly (readonly string[])[] = CATEGORIES.map((c) =>
  c.cuad.map((n) => n.toLowerCase()),
);

/** The most likely CUAD kind of a passage within a risk category. */
function kindOf(model: LearnedModel, risk: number, features: Features): string | undefined {
  let best: string | undefined;
  let bestP = -1;
  for (const kind of KINDS_OF_RISK[risk] ?? []) {
    const label = model.cuad.get(kind);
    if (!label) continue;
    const p = probability(label, features.ids, features.count);
    if (p > bestP) {
      bestP = p;
      best = kind;
    }
  }
  return best;
}

const ABSENT: CategoryMatch = { present: false, level: 0, terms: [], riskTerms: [], segments: [] };

/** The sentences that carried the decision, strongest evidence first, at most {@link MAX_EVIDENCE}. */
function evidenceSegments(model: LearnedModel, index: ClauseIndex, memo: ClauseMemo, risk: number): number[] {
  const label = model.risk[risk];
  if (!label) return [];
  const scored = index.segments.map((_, s) => {
    const f = segmentFeatures(model, index, memo, s);
    return { s, score: evidence(label, f.ids, f.count) };
  });
  scored.sort((a, b) => b.score - a.score || a.s - b.s);
  const top = scored[0];
  if (!top) return [];
  const chosen = scored
    .slice(0, MAX_EVIDENCE)
    .filter((x, i) => i === 0 || (x.score > 0 && x.score >= top.score * EVIDENCE_SHARE));
  return chosen.map((x) => x.s).sort((a, b) => a - b);
}

function learnedCategory(model: LearnedModel, index: ClauseIndex, risk: number): CategoryMatch {
  const memo = memoOf(model, index);
  const cached = memo.matches.get(risk);
  if (cached) return cached;
  const label = model.risk[risk];
  const category = CATEGORIES[risk];
  let match = ABSENT;
  if (label && category && probability(label, memo.clause.ids, memo.clause.count) >= label.threshold) {
    const segments: SegmentMatch[] = evidenceSegments(model, index, memo, risk).map((s) => {
      const segment = index.segments[s] as Segment;
      const reading = readPassage(
        kindOf(model, risk, segmentFeatures(model, index, memo, s)),
        segment.text,
        category.name,
      );
      return { segment, terms: [], riskTerms: [], level: reading.level, reason: reading.reason };
    });
    const level = Math.max(0, ...segments.map((m) => m.level));
    const reason = `${category.name}: ${segments[0]?.reason ?? ''}`;
    match = { present: segments.length > 0, level, terms: [], riskTerms: [], segments, reason };
  }
  memo.matches.set(risk, match);
  return match;
}

/**
 * How a clause matches a category under the learned model: the model's answer for the twelve
 * risk categories, the heuristic lexicon's for any other.
 */
export function learnedMatch(model: LearnedModel, index: ClauseIndex, category: CategorySpec): CategoryMatch {
  const risk = riskIndex(category.key);
  return risk === -1 ? matchCategory(index, category) : learnedCategory(model, index, risk);
}
