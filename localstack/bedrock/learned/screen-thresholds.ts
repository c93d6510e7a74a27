/**
 * The relevance screen's thresholds, chosen in training, and how a screen is scored: per risk
 * category, the highest probability at which at least a target share of its labelled clauses
 * (out of fold) still reach it; and, for a panel, the share of labelled clause-category pairs
 * whose category some analyst was still asked about, and the share of calls left out. Training
 * scores candidate targets on the cross-validation; the agreement bench scores the shipped
 * screen on the development set with the same tally.
 */

import { CATEGORY_IDS, type CategoryId } from '../../../lambdas/core/analysts/categories.js';
import { ANALYSTS } from '../../../lambdas/core/analysts/index.js';

/**
 * Per risk category (CATEGORY_IDS order), the highest threshold at which at least `recall` of the
 * category's labelled clauses have a probability at or above it, rounded down to four decimals
 * (rounding down keeps the recall).
 *
 * @param truth each clause's labelled risk categories, by index
 * @param probs each clause's out-of-fold probabilities, by category index
 */
export function chooseScreenThresholds(
  truth: readonly ReadonlySet<number>[],
  probs: readonly Float64Array[],
  recall: number,
): number[] {
  if (!(recall > 0 && recall <= 1)) throw new RangeError(`recall must be in (0, 1]; got ${recall}`);
  return CATEGORY_IDS.map((_, label) => {
    const held = probs
      .filter((_, i) => truth[i]?.has(label))
      .map((p) => p[label] as number)
      .sort((a, b) => a - b);
    // At most this many labelled clauses may fall below the threshold.
    const allowed = Math.floor((1 - recall) * held.length + 1e-9);
    return Math.floor((held[allowed] ?? 0) * 10_000) / 10_000;
  });
}

/** What a screen did over some clauses, for the panel. */
export interface ScreenTally {
  /** Labelled clause-category pairs, and those whose category some analyst was still asked about. */
  labelled: number;
  covered: number;
  /** Clause × analyst pairs, and those the screen left out. */
  calls: number;
  screened: number;
}

/** An empty tally. */
export const emptyTally = (): ScreenTally => ({ labelled: 0, covered: 0, calls: 0, screened: 0 });

/**
 * Adds one clause: its labelled categories, and which categories the screen lets through (an
 * analyst is asked when one of its categories passes).
 */
export function tallyClause(
  tally: ScreenTally,
  labels: ReadonlySet<CategoryId>,
  passes: (category: CategoryId) => boolean,
  panel: readonly { readonly categories: readonly CategoryId[] }[] = ANALYSTS,
): void {
  const asked = new Set<CategoryId>();
  for (const analyst of panel) {
    tally.calls++;
    if (analyst.categories.some(passes)) for (const c of analyst.categories) asked.add(c);
    else tally.screened++;
  }
  for (const category of labels) {
    tally.labelled++;
    if (asked.has(category)) tally.covered++;
  }
}

/** The tally as shares, rounded to three decimals. */
export function tallyShares(t: ScreenTally): { coverage: number; screenedShare: number } {
  const share = (a: number, b: number) => (b === 0 ? 0 : Math.round((a / b) * 1000) / 1000);
  return { coverage: share(t.covered, t.labelled), screenedShare: share(t.screened, t.calls) };
}

/** How thresholds screen out-of-fold probabilities. */
export function screenOutOfFold(
  truth: readonly ReadonlySet<number>[],
  probs: readonly Float64Array[],
  thresholds: readonly number[],
): ScreenTally {
  const tally = emptyTally();
  probs.forEach((p, i) => {
    const labels = new Set([...(truth[i] ?? [])].map((l) => CATEGORY_IDS[l] as CategoryId));
    tallyClause(tally, labels, (c) => {
      const l = CATEGORY_IDS.indexOf(c);
      return (p[l] as number) >= (thresholds[l] as number);
    });
  });
  return tally;
}
