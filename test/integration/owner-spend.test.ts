/**
 * The daily spend cap per owner on the local pipeline, with no cap on running jobs (so the
 * spend alone decides): an owner's second job, whose bound would take the owner's day past the
 * cap, waits as `queued` and says so with the figures, while another owner's starts at once; once
 * the first ends and settles at what it spent (far below its bound), the second starts; a job
 * whose bound alone is over the cap is rejected with the figures; and a ceiling above the
 * stack's maximum is refused naming it.
 */
import { describe, expect, it } from 'vitest';
import { selectAnalysts } from '../../lambdas/core/analysts/index.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { quoteDocument } from '../../lambdas/core/intake/quote.js';
import { SUBMITTED_BY_METADATA } from '../../lambdas/core/intake/submitter.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { OwnerSpend, spendDayOf } from '../../lambdas/core/state/owner-spend.js';
import { money } from '../../lambdas/text/money.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

const ANALYSTS = ['liability-counsel', 'ip-counsel', 'term-lifecycle'];
const source = fixture(SMALL);
const quoteOf = async (analysts?: string[]) =>
  quoteDocument(await parseDocument(source, { key: SMALL, maxBytes: 10 * 1024 * 1024 }), {
    analysts: selectAnalysts(analysts).map((a) => a.id),
    models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID },
    fullPanel: false,
  }).quote;
// A job of three analysts counts its worst case on its owner's day (its ceiling, $3, is above
// it) and spends about its expected cost; the whole panel's worst case is over the cap.
const quote = await quoteOf(ANALYSTS);
const whole = await quoteOf(undefined);
const CEILING = 3_000_000;
const bound = quote.worstCaseMicros;
const cap = Math.floor(bound * 1.5);
const MAX_CEILING = 5_000_000;

// Calls take 300 ms, so the first job still runs when the second reaches intake.
const h = await startHarness('spendcap', {
  plan: { latency: { kind: 'fixed', ms: 300 } },
  settings: { maxJobsPerOwner: 0, dailySpendPerOwnerMicros: cap, maxCeilingMicros: MAX_CEILING },
  pipeline: { sweepIntervalMs: 1000 },
});
const ANN = 'arn:aws:iam::000000000000:user/ann';
const BEN = 'arn:aws:iam::000000000000:user/ben';
const spend = new OwnerSpend(h.pipeline.clients.db, h.stack.resources.tableName);

/** Uploads the small contract as `owner` with a ceiling of `micros`, under a key of its own. */
const upload = (name: string, owner: string, micros = CEILING, analysts: string[] | 'all' = ANALYSTS) =>
  h.upload(`${name}-${SMALL}`, source, {
    [SUBMITTED_BY_METADATA]: owner,
    'ceiling-usd': (micros / 1_000_000).toFixed(6),
    ...(analysts === 'all' ? {} : { analysts: analysts.join(',') }),
  });

describe("an owner's daily spend cap", () => {
  it('holds the second job queued with the figures, starts it once the first settles, and lets another owner by', async () => {
    // The assumptions the figures rest on: a job counts its worst case and spends far less.
    expect(bound).toBeLessThan(CEILING);
    expect(quote.expectedMicros).toBeLessThan(bound / 2);
    const first = await upload('first', ANN);
    await h.until(first, (j) => j.status === 'running');
    const second = await upload('second', ANN);
    const waiting = await h.until(second, (j) => j.status === 'queued');
    expect(waiting.waitingFor).toBe(
      `its owner's jobs started today may spend ${money(bound)} of the ${money(cap)} a day allowed; ` +
        `this one may spend up to ${money(bound)}`,
    );
    expect(waiting.holdsSlot).toBeUndefined();
    const other = await upload('other', BEN);
    expect((await h.until(other, (j) => j.status !== 'intake')).status).not.toBe('queued');

    const ended = await h.waitForEnd(first);
    expect(ended.status).toBe('completed');
    const started = await h.until(second, (j) => j.status !== 'queued');
    expect(started.waitingFor).toBeUndefined();
    // The first job's count was replaced by what it spent, the ledger's figure, once.
    const settled = await h.until(first, (j) => j.spendSettledAt !== undefined);
    expect(settled.spendSettled).toBe(settled.costSpent);
    expect(settled.costSpent).toBeLessThan(bound / 2);
    const day = spendDayOf(Date.now());
    expect([started.spendDay, started.spendBound]).toEqual([day, bound]);
    await h.waitForEnd(second);
    const both = (await h.until(second, (j) => j.spendSettledAt !== undefined)).costSpent + settled.costSpent;
    expect(await spend.committed(ANN, day)).toBe(both);
  }, 240_000);

  it('rejects a job whose bound alone is over the cap, with the figures, and a ceiling over the maximum', async () => {
    const wholeBound = Math.min(CEILING, whole.worstCaseMicros);
    expect(wholeBound).toBeGreaterThan(cap);
    const big = await upload('big', ANN, CEILING, 'all');
    const rejected = await h.waitForEnd(big);
    expect(rejected).toMatchObject({ status: 'rejected', rejection: 'daily-spend-cap' });
    expect(rejected.reason).toContain(`this job may spend up to ${money(wholeBound)}`);
    expect(rejected.reason).toContain(`more than the ${money(cap)} one owner's jobs may spend in a day`);
    const over = await upload('over', ANN, MAX_CEILING + 1_000_000);
    const refused = await h.waitForEnd(over);
    expect(refused).toMatchObject({ status: 'rejected', rejection: 'invalid-options' });
    expect(refused.reason).toContain(`above this stack's maximum ceiling of ${money(MAX_CEILING)}`);
  }, 120_000);
});
