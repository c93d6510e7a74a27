/**
 * Per-model tokens- and requests-per-minute budgets on the state table in the emulator: each
 * "process" is its own TokenBudget leasing from the same ModelBudgets item. The clock the
 * budgets lease by stands still unless a test moves it, so the waits they compute from it are
 * exact, and a test reads each wait from the budget's own count of them rather than timing it (a
 * loaded machine would stretch the round trips, not the waits). The waits themselves are real
 * timers of a few hundred milliseconds.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { MODEL_BUDGET_SK, modelLimitPk } from '../../lambdas/core/state/keys.js';
import { ModelBudgets } from '../../lambdas/core/state/model-budgets.js';
import { AttemptScope } from '../../lambdas/core/worker/attempt-scope.js';
import { ChunkBudget } from '../../lambdas/core/worker/chunk-budget.js';
import {
  type BudgetTicket,
  isBudgetWaitAbortedError,
  type ModelBudgetLimits,
  TokenBudget,
  TokenBudgets,
} from '../../lambdas/core/worker/token-budget.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('token-budget');
const db = stack.clients.documents;
const table = stack.resources.tableName;
const store = new ModelBudgets(db, table);

/** A clock that stands still, and a model id no other test uses. */
function setting() {
  const clock = { t: 1_700_000_000_000 };
  return { clock, model: `model-${randomUUID().slice(0, 8)}` };
}

/**
 * One process's budget: 60,000 tokens a minute (1,000 a second), leases of 250 ms (250
 * tokens), spendable 250 ms ahead of the rate: the fleet's first slice goes at once.
 */
function processOn(
  clock: { t: number },
  model: string,
  limits: ModelBudgetLimits = { tokensPerMinute: 60_000 },
) {
  return new TokenBudget(model, limits, { store, sliceMs: 250, leadMs: 250, now: () => clock.t });
}

/** Whole milliseconds a lease of `tokens` takes to earn at 60,000 a minute, earned over a minute and the 250 ms lead. */
const earnMs = (tokens: number) => Math.ceil((tokens * 60_250) / 60_000);

/**
 * How long `budget` made one acquire wait, from its own count of waits. A lease granted at once
 * waits the few milliseconds its slice is earned after the lead (`earnMs(250) - 250`, 2 ms); a
 * slice taken from what is in hand waits none.
 */
async function waitOf(budget: TokenBudget, acquiring: Promise<BudgetTicket>) {
  const before = budget.stats().waitedMs;
  const ticket = await acquiring;
  return { ticket, waitedMs: budget.stats().waitedMs - before };
}

/** At most this long a wait is "at once": a lease granted from the rate's lead. */
const AT_ONCE_MS = earnMs(250) - 250;

async function budgetItem(model: string) {
  const r = await db.send(
    new GetCommand({
      TableName: table,
      Key: { pk: modelLimitPk(model), sk: MODEL_BUDGET_SK },
      ConsistentRead: true,
    }),
  );
  return r.Item;
}

describe('a model budget on the state table', () => {
  it('spends a slice at once, then waits for the next to be earned at the model rate', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    expect((await budget.acquire(200)).tokens).toBe(200); // a slice of 250
    // 50 in hand, a lease of 500 more: earned about 500 ms on.
    const next = await waitOf(budget, budget.acquire(550));
    const earned = earnMs(250) + earnMs(500);
    expect(next.waitedMs).toBe(earned - 250);
    expect((await budgetItem(model))?.tokensAt).toBe(clock.t + earned);
    expect(budget.stats()).toEqual({ leases: 2, granted: 2, waitedMs: earnMs(250) - 250 + earned - 250 });
  });

  it('corrects a reservation to the tokens billed, and takes a refund back whole', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    (await budget.acquire(80)).settle(20); // 170 left of the slice, and 60 back
    const next = await waitOf(budget, budget.acquire(230));
    expect(next.waitedMs).toBe(0); // from what is in hand
    next.ticket.refund();
    next.ticket.refund(); // once only
    expect((await waitOf(budget, budget.acquire(230))).waitedMs).toBe(0);
    // Refunded twice, it would go from what is in hand; it leases the next slice and waits for it.
    expect((await waitOf(budget, budget.acquire(1))).waitedMs).toBeGreaterThan(AT_ONCE_MS);
    expect(budget.stats().leases).toBe(2);
  });

  it('makes the calls after one that cost more than its estimate wait out the excess', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    (await budget.acquire(100)).settle(1_100); // 1,000 over its estimate: 150 in hand less 1,000
    // A lease of 860, earned 860 ms after the first slice.
    const after = await waitOf(budget, budget.acquire(10));
    expect(after.waitedMs).toBeGreaterThanOrEqual(800);
    expect(after.waitedMs).toBeLessThan(1_000);
  });

  it('is shared by two processes: the second waits for what the first leased', async () => {
    const { clock, model } = setting();
    const a = processOn(clock, model);
    const b = processOn(clock, model);
    expect((await waitOf(a, a.acquire(250))).waitedMs).toBe(AT_ONCE_MS);
    // The fleet's second slice: earned 250 ms after the first.
    expect((await waitOf(b, b.acquire(250))).waitedMs).toBe(2 * earnMs(250) - 250);
    expect((await budgetItem(model))?.tokensAt).toBe(clock.t + 2 * earnMs(250));
    // Alone, the same process would have gone at once.
    const alone = processOn(clock, `${model}-alone`);
    expect((await waitOf(alone, alone.acquire(250))).waitedMs).toBe(AT_ONCE_MS);
  });

  it('counts requests per minute across processes', async () => {
    const { clock, model } = setting();
    const limits = { requestsPerMinute: 240 }; // 4 a second: a request is 250 ms
    const a = processOn(clock, model, limits);
    const b = processOn(clock, model, limits);
    await a.acquire(1_000_000); // tokens unlimited
    const second = await waitOf(b, b.acquire(0));
    expect(second.waitedMs).toBeGreaterThanOrEqual(150);
    expect(second.waitedMs).toBeLessThan(500);
    const item = await budgetItem(model);
    expect(item?.requestsAt).toBe(clock.t + 2 * Math.ceil(60_250 / 240));
    expect(item?.tokensAt).toBeUndefined();
  });

  it('gives no credit for idle time: after a pause the fleet starts from the clock', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    await budget.acquire(250);
    clock.t += 60_000; // a minute idle: the budget's times are far behind the clock
    expect((await waitOf(budget, budget.acquire(250))).waitedMs).toBe(AT_ONCE_MS);
    expect((await budgetItem(model))?.tokensAt).toBe(clock.t + earnMs(250));
    // No minute's worth saved up: the next slice is earned after this one.
    expect((await waitOf(budget, budget.acquire(250))).waitedMs).toBe(2 * earnMs(250) - 250);
  });

  it('restarts from the clock only the rate that fell behind it', async () => {
    const { clock, model } = setting();
    const a = processOn(clock, model, { tokensPerMinute: 60_000, requestsPerMinute: 60 }); // a request is a second
    await a.acquire(10);
    clock.t += 600; // tokens (252 ms on) are behind the clock now, requests (1,005 ms on) are not
    const before = await budgetItem(model);
    expect(before?.tokensAt).toBeLessThan(clock.t);
    expect(before?.requestsAt).toBeGreaterThan(clock.t);
    await a.acquire(250);
    const after = await budgetItem(model);
    expect(after?.tokensAt).toBe(clock.t + earnMs(250));
    expect(after?.requestsAt).toBe((before?.requestsAt as number) + Math.ceil(60_250 / 60));
  });

  it("is held by a call's attempt: given back unsent, kept at its reservation when sent and never recorded", async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    const money = new ChunkBudget({
      allotments: new Allotments(db, table),
      lease: {
        jobId: 'j',
        chunk: 0,
        stage: 'analyze',
        workerId: 'w',
        fence: 1,
        attempts: 1,
        expiresAt: clock.t,
      },
      job: { jobId: 'j', ceilingMicros: 1_000_000 },
      markBudgetExceeded: async () => {},
      callsLeft: () => 1,
      contendedWaitMs: 1_000,
      now: () => clock.t,
      sleep: async () => {},
      random: () => 0.5,
    });
    const now = async (estimate: number) => {
      const { ticket, waitedMs } = await waitOf(budget, budget.acquire(estimate));
      if (waitedMs > AT_ONCE_MS) throw new Error(`the budget made the call wait ${waitedMs} ms`);
      return ticket;
    };
    {
      using scope = new AttemptScope(money);
      scope.budgeted(await now(100));
    } // never sent: all 100 back, 250 in hand
    {
      using scope = new AttemptScope(money);
      scope.budgeted(await now(100));
      scope.sending();
      scope.answered(0, 40); // billed 40: 210 in hand
    }
    {
      using scope = new AttemptScope(money);
      scope.budgeted(await now(60));
      scope.sending();
    } // sent, outcome unknown: the 60 stay spent, 150 in hand
    expect((await waitOf(budget, budget.acquire(151))).waitedMs).toBeGreaterThan(AT_ONCE_MS);
    expect(budget.stats().leases).toBe(2);
  });

  it('lets a waiting call go when its signal aborts, and has no budget for a model without one', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    await budget.acquire(250);
    const abort = new AbortController();
    const waiting = budget.acquire(1, abort.signal);
    abort.abort();
    await expect(waiting).rejects.toSatisfy(isBudgetWaitAbortedError);
    const budgets = new TokenBudgets({ [model]: { tokensPerMinute: 6_000 } }, { store });
    expect(budgets.for(model)).toBe(budgets.for(model));
    expect(budgets.for('another-model')).toBeUndefined();
    expect(() => new TokenBudget(model, { tokensPerMinute: 0 }, { store })).toThrow(/positive integer/);
    expect(() => new TokenBudget(model, {}, { store, leadMs: -1 })).toThrow(/leadMs/);
    await expect(store.lease({ modelId: model, tokensMs: 1.5, requestsMs: 0, now: clock.t })).rejects.toThrow(
      /tokensMs must be a whole number of milliseconds/,
    );
  });
});
