/**
 * The money limits around a job: the most a ceiling may be (a submission asking for more is
 * refused, naming the stack's maximum), what a job counts on its owner's day (its bound) and on
 * which day, the stack's default daily cap per owner sized from the primary model's budget, and
 * what `clause-review plan` makes of a batch against that cap.
 */
import { describe, expect, it } from 'vitest';
import { ownerDay } from '../../../bin/capacity/owner-day.js';
import { ownerDayLine } from '../../../bin/commands/plan.js';
import type { JobEstimate } from '../../../lambdas/core/intake/quote.js';
import { isInvalidJobRequestError } from '../../../lambdas/core/jobs/errors.js';
import { readSubmission } from '../../../lambdas/core/jobs/submission.js';
import { spendBoundOf, spendDayOf, spendWait } from '../../../lambdas/core/state/owner-spend.js';
import { DEFAULT_TOKENS_PER_MINUTE, defaultDailySpendPerOwner } from '../../../lib/owner-cap.js';

const defaults = {
  defaultLane: 'realtime' as const,
  defaultCeilingMicros: 20_000_000,
  maxCeilingMicros: 1_000_000_000,
};

describe('the most a ceiling may be', () => {
  it("refuses a submission over the stack's maximum, naming it, and takes one at it", () => {
    const refusal = (() => {
      try {
        readSubmission({ ceilingUsd: 1000.01 }, defaults);
      } catch (error) {
        return error;
      }
      throw new Error('accepted');
    })();
    expect(isInvalidJobRequestError(refusal)).toBe(true);
    expect((refusal as Error).message).toBe(
      "invalid submission: the 'ceiling-usd' option of $1000.01 is above this stack's maximum ceiling of $1000.00 (-c maxCeiling); ask for at most that",
    );
    expect(readSubmission({ ceilingUsd: 1000 }, defaults).options.ceilingMicros).toBe(1_000_000_000);
    // Without a maximum of the stack's own, $100,000 still bounds it.
    expect(
      readSubmission({ ceilingUsd: 100_000 }, { ...defaults, maxCeilingMicros: undefined }).options
        .ceilingMicros,
    ).toBe(100_000_000_000);
  });
});

describe("what a job counts on its owner's day", () => {
  it('is the lower of its ceiling and its worst case, on the UTC day it starts', () => {
    const quote = { expectedMicros: 100, worstCaseMicros: 900 };
    expect(spendBoundOf({ ceilingMicros: 20_000_000, quote })).toBe(900);
    expect(spendBoundOf({ ceilingMicros: 500, quote })).toBe(500);
    expect(spendBoundOf({ ceilingMicros: 700 })).toBe(700);
    expect(spendDayOf(Date.UTC(2026, 11, 31, 23, 59, 59))).toBe('2026-12-31');
    expect(spendDayOf(Date.UTC(2027, 0, 1, 0, 0, 0))).toBe('2027-01-01');
    expect(spendWait(31_900_000, 33_000_000, 2_400_000)).toBe(
      "its owner's jobs started today may spend $31.90 of the $33.00 a day allowed; this one may spend up to $2.40",
    );
  });
});

describe('the default daily cap per owner', () => {
  it("is an hour of the primary model's token budget at its input price", () => {
    // 300 million quota tokens at $0.11 a million through us.
    expect(defaultDailySpendPerOwner('us.anthropic.claude-haiku-5-5')).toBe(33_000_000);
    expect(defaultDailySpendPerOwner('us.anthropic.claude-sonnet-4-6')).toBe(990_000_000);
    // A deployer who raises the model's budget raises the cap with it.
    expect(defaultDailySpendPerOwner('us.anthropic.claude-haiku-5-5', 2 * DEFAULT_TOKENS_PER_MINUTE)).toBe(
      66_000_000,
    );
    expect(() => defaultDailySpendPerOwner('us.example.unpriced')).toThrow(/no entry in the price table/);
  });
});

describe("a batch against one owner's day", () => {
  const estimate = (expectedMicros: number, worstCaseMicros: number): JobEstimate =>
    ({ quote: { expectedMicros, worstCaseMicros }, loads: {} }) as unknown as JobEstimate;

  it('counts each job at its bound as it starts, takes the days its expected cost needs, and names the refused', () => {
    const batch = [
      estimate(2_000_000, 9_000_000),
      estimate(3_000_000, 40_000_000),
      estimate(30_000_000, 60_000_000),
    ];
    const day = ownerDay(batch, 33_000_000, 20_000_000, 'test');
    // Bounds: 9, 20 (the ceiling) and 20; expected 2 + 3 + 20 (capped at the ceiling) = 25.
    expect(day).toEqual({
      capMicros: 33_000_000,
      capSource: 'test',
      boundsMicros: 49_000_000,
      largestBoundMicros: 20_000_000,
      refused: 0,
      days: 1,
    });
    expect(ownerDay(batch, 10_000_000, 20_000_000, 'test')).toMatchObject({ refused: 2, days: 3 });
    expect(ownerDay(batch, 0, 20_000_000, 'none')).toMatchObject({ refused: 0, days: 0 });
    expect(ownerDayLine(ownerDay(batch, 10_000_000, 20_000_000, '--daily-spend'))).toBe(
      "Owner's day: $10.00 a day per owner (--daily-spend). From one owner, this batch counts $49.00 as its jobs start " +
        '(each at its worst case, up to the default ceiling; the largest $20.00) and settles at what they spend: about ' +
        "3 day(s) of that owner's spending; 2 job(s) could never start under the cap and would be refused (raise -c dailySpendPerOwner).",
    );
  });
});
