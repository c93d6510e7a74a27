/**
 * Per-model tokens- and requests-per-minute budgets on the state table in the emulator: each
 * "process" is its own TokenBudget leasing from the same ModelBudgets item, on a clock the test
 * moves (the waits themselves are real timers, at most one slot long).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { modelBudgetSk, modelLimitPk } from '../../lambdas/core/state/keys.js';
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
const SLOT = 1_000;

/** A clock at the start of a slot, and a model id no other test uses. */
function setting() {
  const clock = { t: 1_700_000_000_000 };
  return { clock, model: `model-${randomUUID().slice(0, 8)}` };
}

/** One process's budget: 100 tokens per 1 s slot for 6,000 a minute, leases of a quarter slot. */
function processOn(
  clock: { t: number },
  model: string,
  limits: ModelBudgetLimits = { tokensPerMinute: 6_000 },
  leadMs = SLOT,
) {
  return new TokenBudget(model, limits, { store, slotMs: SLOT, sliceMs: 250, leadMs, now: () => clock.t });
}

/** Whether a promise settles within `ms`, and its value when it does. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);
}

async function slotItem(model: string, slotStart: number) {
  const r = await db.send(
    new GetCommand({
      TableName: table,
      Key: { pk: modelLimitPk(model), sk: modelBudgetSk(slotStart) },
      ConsistentRead: true,
    }),
  );
  return r.Item;
}

describe('a model budget on the state table', () => {
  it('waits when the slot is spent, and goes once the next slot begins', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    const first = await budget.acquire(60);
    expect(first.tokens).toBe(60);
    const second = budget.acquire(60);
    expect(await within(second, 300)).toBe('pending');
    clock.t += SLOT;
    expect(await within(second, 2 * SLOT)).not.toBe('pending');
    expect((await slotItem(model, clock.t - SLOT))?.tokens).toBe(60);
    expect((await slotItem(model, clock.t))?.tokens).toBeGreaterThanOrEqual(60);
  });

  it('corrects a reservation to the tokens billed, and takes a refund back whole', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    (await budget.acquire(80)).settle(20); // 60 of the 80 come back
    const next = await within(budget.acquire(70), 500);
    expect(next).not.toBe('pending');
    (next as BudgetTicket).refund();
    (next as BudgetTicket).refund(); // once only
    expect(await within(budget.acquire(70), 500)).not.toBe('pending');
    expect(await within(budget.acquire(20), 300)).toBe('pending'); // 10 left: refunded twice would be 80
  });

  it('queues the calls after one that cost more than its estimate until the debt is paid', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    (await budget.acquire(50)).settle(230); // 180 over its estimate: a debt of 180
    const after = budget.acquire(10);
    expect(await within(after, 300)).toBe('pending');
    clock.t += SLOT; // the next slot's 100 pays 100 of it
    expect(await within(after, 1_500)).toBe('pending');
    clock.t += SLOT; // the one after pays the last 80 and the call's 10
    const ticket = await within(after, 2_000);
    expect(ticket).not.toBe('pending');
    expect((ticket as BudgetTicket).tokens).toBe(10);
  });

  it('is shared by two processes: the second waits for what the first leased', async () => {
    const { clock, model } = setting();
    const a = processOn(clock, model);
    const b = processOn(clock, model);
    await a.acquire(60);
    const waiting = b.acquire(60);
    expect(await within(waiting, 300)).toBe('pending');
    expect((await slotItem(model, clock.t))?.tokens).toBeLessThanOrEqual(100);
    // A smaller call behind it waits its turn, though 40 are left in the slot.
    const behind = b.acquire(30);
    expect(await within(behind, 100)).toBe('pending');
    clock.t += SLOT;
    expect(await within(waiting, 2 * SLOT)).not.toBe('pending');
    expect(await within(behind, 2 * SLOT)).not.toBe('pending');
    expect(b.stats().refused).toBeGreaterThan(0);
  });

  it('keeps what is left of a slot for the next, without counting it again there', async () => {
    const { clock, model } = setting();
    const a = processOn(clock, model);
    const b = processOn(clock, model);
    (await a.acquire(80)).settle(20); // 60 left in hand
    clock.t += SLOT;
    expect((await a.acquire(100)).tokens).toBe(100); // the 60 kept and 40 leased
    expect((await slotItem(model, clock.t))?.tokens).toBe(40);
    expect((await b.acquire(60)).tokens).toBe(60); // the slot's other 60
    expect(await within(b.acquire(1), 300)).toBe('pending');
  });

  it('counts requests per minute across processes', async () => {
    const { clock, model } = setting();
    const limits = { requestsPerMinute: 120 }; // 2 a slot
    const a = processOn(clock, model, limits);
    const b = processOn(clock, model, limits);
    await a.acquire(1_000);
    await b.acquire(1_000);
    const third = a.acquire(0);
    expect(await within(third, 300)).toBe('pending');
    expect((await slotItem(model, clock.t))?.requests).toBe(2);
    clock.t += SLOT;
    expect(await within(third, 2 * SLOT)).not.toBe('pending');
  });

  it('spends a slot along its line: no more than leadMs ahead of it', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model, { tokensPerMinute: 6_000 }, 250); // 25 at the slot's start
    await budget.acquire(25);
    const more = budget.acquire(25);
    expect(await within(more, 100)).toBe('pending');
    clock.t += 250; // the line is at 50 now
    expect(await within(more, SLOT)).not.toBe('pending');
  });

  it('lets a waiting call go when its signal aborts, and has no budget for a model without one', async () => {
    const { clock, model } = setting();
    const budget = processOn(clock, model);
    await budget.acquire(100);
    const abort = new AbortController();
    const waiting = budget.acquire(1, abort.signal);
    abort.abort();
    await expect(waiting).rejects.toSatisfy(isBudgetWaitAbortedError);
    const budgets = new TokenBudgets({ [model]: { tokensPerMinute: 6_000 } }, { store });
    expect(budgets.for(model)).toBe(budgets.for(model));
    expect(budgets.for('another-model')).toBeUndefined();
    expect(() => new TokenBudget(model, { tokensPerMinute: 0 }, { store })).toThrow(/positive integer/);
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
      job: { jobId: 'j', costLimit: 1_000_000 },
      markBudgetExceeded: async () => {},
      callsLeft: () => 1,
      contendedWaitMs: 1_000,
      now: () => clock.t,
      sleep: async () => {},
      random: () => 0.5,
    });
    {
      using scope = new AttemptScope(money);
      scope.budgeted(await budget.acquire(100));
    } // never sent: all 100 back
    {
      using scope = new AttemptScope(money);
      scope.budgeted(await within(budget.acquire(100), 300).then((t) => (t === 'pending' ? undefined : t)));
      scope.sending();
      scope.answered(0, 40); // billed 40: 60 back
    }
    {
      using scope = new AttemptScope(money);
      scope.budgeted(await within(budget.acquire(60), 300).then((t) => (t === 'pending' ? undefined : t)));
      scope.sending();
    } // sent, outcome unknown: the 60 stay spent
    expect(await within(budget.acquire(1), 300)).toBe('pending');
    expect(budget.stats().granted).toBe(3);
  });
});
