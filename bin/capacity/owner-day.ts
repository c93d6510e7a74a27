/**
 * What the stack's daily spend cap per owner (`-c dailySpendPerOwner`) makes of a batch one
 * owner submits: each job counts on its owner's day, as it starts, the most it may spend (its
 * ceiling, or its worst case when lower: `spendBoundOf`), and once it ends what it spent; a job
 * whose start would pass the cap waits for the next day, and one whose bound alone passes it is
 * refused. So one owner's batch spends at most the cap a day, and takes about as many days as
 * its expected cost is caps.
 */
import type { JobEstimate } from '../../lambdas/core/intake/quote.js';
import { spendBoundOf } from '../../lambdas/core/state/owner-spend.js';

/** A batch against one owner's day. */
export interface OwnerDay {
  /** The cap, micro-dollars a day (0: none). */
  readonly capMicros: number;
  /** Where the cap comes from, in words. */
  readonly capSource: string;
  /** Each job's bound at the ceiling it would run with, summed: what the batch counts as it starts. */
  readonly boundsMicros: number;
  /** The largest job's bound. */
  readonly largestBoundMicros: number;
  /** Jobs whose bound alone is over the cap: intake refuses them (`daily-spend-cap`). */
  readonly refused: number;
  /** Days of spending the batch takes from one owner at its expected cost (0 without a cap). */
  readonly days: number;
}

/**
 * The batch against a cap of `capMicros` a day, each job at a ceiling of `ceilingMicros` (the
 * stack's default ceiling, which a job naming none runs with).
 *
 * @example
 * ownerDay(estimates, 33_000_000, 20_000_000, 'default').days; // 2 for $40 expected
 */
export function ownerDay(
  estimates: readonly JobEstimate[],
  capMicros: number,
  ceilingMicros: number,
  capSource: string,
): OwnerDay {
  const bounds = estimates.map((e) => spendBoundOf({ ceilingMicros, quote: e.quote }));
  const expected = estimates.reduce((s, e) => s + Math.min(e.quote.expectedMicros, ceilingMicros), 0);
  return {
    capMicros,
    capSource,
    boundsMicros: bounds.reduce((s, b) => s + b, 0),
    largestBoundMicros: Math.max(0, ...bounds),
    refused: capMicros > 0 ? bounds.filter((b) => b > capMicros).length : 0,
    days: capMicros > 0 ? Math.max(1, Math.ceil(expected / capMicros)) : 0,
  };
}
