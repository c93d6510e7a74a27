import { describe, expect, it, vi } from 'vitest';
import type { AllotmentMove, Allotments, MoveResult } from '../../../lambdas/core/state/allotments.js';
import type { Lease } from '../../../lambdas/core/state/claims.js';
import type { Job } from '../../../lambdas/core/state/job.js';
import { ChunkBudget } from '../../../lambdas/core/worker/chunk-budget.js';

const lease = { jobId: 'job-1', chunk: 3, stage: 'analyze', workerId: 'w', fence: 1 } as Lease;

/** A job item in memory that moves money as the real one does, with its ceiling condition. */
function fakeJob(limit: number, init: Partial<Job> = {}) {
  const job = {
    jobId: 'job-1',
    status: 'running',
    ceilingMicros: limit,
    costCommitted: 0,
    costReserved: 0,
    costSpent: 0,
    ...init,
  } as Job & { costCommitted: number; costReserved: number; costSpent: number; budgetExceededAt?: string };
  const moves: AllotmentMove[] = [];
  const move = vi.fn(async (_lease: Lease, m: AllotmentMove): Promise<MoveResult> => {
    const net = m.take - m.release;
    if (m.take > 0 && (job.status !== 'running' || job.budgetExceededAt || job.costCommitted > limit - net)) {
      return { ok: false, job: { ...job } };
    }
    moves.push(m);
    job.costCommitted += net;
    job.costReserved += m.take - m.release - m.spent;
    job.costSpent += m.spent;
    return { ok: true };
  });
  return { job, moves, allotments: { move } as unknown as Allotments };
}

function budget(
  f: ReturnType<typeof fakeJob>,
  options: { callsLeft?: number; perAllotment?: number; waitMs?: number; clock?: { t: number } } = {},
) {
  const clock = options.clock ?? { t: 0 };
  const markBudgetExceeded = vi.fn(async () => {
    f.job.budgetExceededAt = 'now';
  });
  const b = new ChunkBudget({
    allotments: f.allotments,
    lease,
    job: f.job,
    markBudgetExceeded,
    callsLeft: () => options.callsLeft ?? 10,
    ...(options.perAllotment ? { callsPerAllotment: options.perAllotment } : {}),
    contendedWaitMs: options.waitMs ?? 1000,
    now: () => clock.t,
    sleep: async (ms) => {
      clock.t += ms;
    },
    random: () => 0.5,
  });
  return { b, markBudgetExceeded };
}

describe('ChunkBudget', () => {
  it("takes one allotment for the chunk's next calls and reserves against it without another write", async () => {
    const f = fakeJob(1_000_000);
    const { b } = budget(f, { callsLeft: 10 });
    for (let i = 0; i < 10; i++) expect(await b.reserve(100)).toEqual({ ok: true });
    expect(f.moves).toEqual([{ spent: 0, release: 0, take: 1_000 }]);
  });

  it('asks at most `callsPerAllotment` calls at a time, and takes more when it runs short', async () => {
    const f = fakeJob(1_000_000);
    const { b } = budget(f, { callsLeft: 10, perAllotment: 4 });
    for (let i = 0; i < 6; i++) await b.reserve(100);
    expect(f.moves.map((m) => m.take)).toEqual([400, 400]);
  });

  it('accounts what it spent in its next move, and returns the rest when the lease ends', async () => {
    const f = fakeJob(1_000_000);
    const { b } = budget(f, { callsLeft: 2 });
    await b.reserve(100);
    await b.reserve(100);
    b.settle(100, 30);
    b.release(100);
    expect(b.closing()).toEqual({ spent: 30, release: 170, take: 0 });
    await f.allotments.move(lease, b.closing(), f.job);
    b.closed();
    expect(f.job).toMatchObject({ costCommitted: 30, costReserved: 0, costSpent: 30 });
  });

  it('never takes more than a quarter of the room left, once it knows the room', async () => {
    const f = fakeJob(10_000, { costCommitted: 6_000, costReserved: 6_000 });
    const { b } = budget(f, { callsLeft: 48 });
    expect(await b.reserve(100)).toEqual({ ok: true });
    // The job as read at claim time shows 4,000 of room: the first ask is a quarter of it.
    expect(f.moves).toEqual([{ spent: 0, release: 0, take: 1_000 }]);
    expect(f.allotments.move).toHaveBeenCalledOnce();
  });

  it('takes a share of the room the job showed at claim, not all its calls need, in its first take', async () => {
    const f = fakeJob(100_000, { costCommitted: 20_000, costReserved: 20_000 });
    const { b } = budget(f, { callsLeft: 48 });
    expect(await b.reserve(1_000)).toEqual({ ok: true });
    // 48 calls' worth (48,000) would fit in the 80,000 left, but leave little for other chunks.
    expect(f.moves).toEqual([{ spent: 0, release: 0, take: 20_000 }]);
  });

  it('waits for its own calls in flight to free their reservations before asking the job again', async () => {
    // Room for 2,000 more: this chunk takes it all for four calls of 500.
    const f = fakeJob(8_000, { costCommitted: 6_000, costReserved: 6_000 });
    const clock = { t: 0 };
    const { b, markBudgetExceeded } = budget(f, { callsLeft: 10, clock });
    for (let i = 0; i < 4; i++) expect(await b.reserve(500)).toEqual({ ok: true });
    let fifth: unknown;
    const pending = b.reserve(500).then((r) => (fifth = r));
    await new Promise((r) => setTimeout(r, 10));
    expect(fifth).toBeUndefined();
    // Each answered call frees most of its reservation: two of them make room for the fifth.
    b.settle(500, 100);
    await new Promise((r) => setTimeout(r, 10));
    expect(fifth).toBeUndefined();
    b.settle(500, 100);
    await pending;
    expect(fifth).toEqual({ ok: true });
    // Nothing was given back to the job and taken again, nobody slept, no ceiling was recorded.
    expect(f.moves).toEqual([{ spent: 0, release: 0, take: 2_000 }]);
    expect(clock.t).toBe(0);
    expect(markBudgetExceeded).not.toHaveBeenCalled();
  });

  it('reports the ceiling at once when its own give-back leaves no room and nobody else holds any', async () => {
    const f = fakeJob(1_000);
    const clock = { t: 0 };
    const { b, markBudgetExceeded } = budget(f, { callsLeft: 1, clock });
    expect(await b.reserve(600)).toEqual({ ok: true });
    b.settle(600, 500);
    // 100 held unused and 400 of room: not enough for another 600, and what the job counts
    // reserved was this chunk's own allotment, so there is nobody to wait for.
    expect(await b.reserve(600)).toEqual({ ok: false, why: 'budget' });
    expect(markBudgetExceeded).toHaveBeenCalledOnce();
    expect(clock.t).toBe(0);
    expect(f.job).toMatchObject({ costSpent: 500, costReserved: 0, costCommitted: 500 });
  });

  it("takes four calls' worth near the ceiling while the room has it, not one call at a time", async () => {
    const f = fakeJob(10_000, { costCommitted: 9_400, costReserved: 9_400 });
    const { b } = budget(f, { callsLeft: 48 });
    expect(await b.reserve(100)).toEqual({ ok: true });
    // 600 left: a quarter would be 150, but four calls' worth (400) fits.
    expect(f.moves).toEqual([{ spent: 0, release: 0, take: 400 }]);
  });

  it('gives back its unused money, waits for other chunks, and then reports the ceiling reached', async () => {
    const f = fakeJob(1_000, { costCommitted: 950, costReserved: 950 });
    const clock = { t: 0 };
    const { b, markBudgetExceeded } = budget(f, { callsLeft: 1, waitMs: 2_000, clock });
    expect(await b.reserve(100)).toEqual({ ok: false, why: 'budget' });
    expect(markBudgetExceeded).toHaveBeenCalledOnce();
    // Nothing is spent yet, so the room others hold may come back: it waits four times as long.
    expect(clock.t).toBeGreaterThan(8_000);
    // Every later call of the chunk gets the same answer without asking again.
    const asked = vi.mocked(f.allotments.move).mock.calls.length;
    expect(await b.reserve(1)).toEqual({ ok: false, why: 'budget' });
    expect(vi.mocked(f.allotments.move).mock.calls.length).toBe(asked);
  });

  it('reports the ceiling at once when what is already spent leaves no room, even while others hold some', async () => {
    const f = fakeJob(1_000, { costCommitted: 960, costReserved: 10, costSpent: 950 });
    const clock = { t: 0 };
    const { b, markBudgetExceeded } = budget(f, { clock });
    expect(await b.reserve(100)).toEqual({ ok: false, why: 'budget' });
    expect(markBudgetExceeded).toHaveBeenCalledOnce();
    expect(clock.t).toBe(0);
  });

  it('asks nothing of a job whose ceiling was recorded before the chunk was claimed', async () => {
    const f = fakeJob(1_000, { budgetExceededAt: '2026-11-23T10:00:00.000Z' });
    const { b, markBudgetExceeded } = budget(f);
    expect(await b.reserve(100)).toEqual({ ok: false, why: 'budget' });
    expect(f.allotments.move).not.toHaveBeenCalled();
    expect(markBudgetExceeded).not.toHaveBeenCalled();
  });

  it('reports the ceiling at once when no other chunk holds any room', async () => {
    const f = fakeJob(1_000, { costCommitted: 950, costSpent: 950 });
    const clock = { t: 0 };
    const { b } = budget(f, { clock });
    expect(await b.reserve(100)).toEqual({ ok: false, why: 'budget' });
    expect(clock.t).toBe(0);
  });

  it('gets room back that another chunk returns while it waits', async () => {
    const f = fakeJob(1_000, { costCommitted: 950, costReserved: 950 });
    let t = 0;
    const b = new ChunkBudget({
      allotments: f.allotments,
      lease,
      job: f.job,
      markBudgetExceeded: async () => {},
      callsLeft: () => 1,
      contendedWaitMs: 10_000,
      now: () => t,
      // While this chunk waits, the other ends: it spent 100 of its 950.
      sleep: async (ms) => {
        t += ms;
        f.job.costCommitted -= 850;
        f.job.costReserved -= 950;
        f.job.costSpent += 100;
      },
      random: () => 0.5,
    });
    expect(await b.reserve(100)).toEqual({ ok: true });
    expect(f.job.costCommitted).toBeLessThanOrEqual(1_000);
  });

  it('stops for a job that is no longer running, and for one whose ceiling another chunk recorded', async () => {
    const cancelled = fakeJob(1_000_000, { status: 'cancelled' });
    expect(await budget(cancelled).b.reserve(100)).toEqual({ ok: false, why: 'stopped' });
    const over = fakeJob(1_000_000, { budgetExceededAt: 'earlier' });
    expect(await budget(over).b.reserve(100)).toEqual({ ok: false, why: 'budget' });
  });

  it('lets no call reserve what a give-back is returning while that write is in flight', async () => {
    // Other chunks hold 7,500 of a 10,000 ceiling; this one holds 2,000 and nothing in flight.
    const f = fakeJob(10_000, { costCommitted: 7_500, costReserved: 7_500 });
    const clock = { t: 0 };
    const { b, markBudgetExceeded } = budget(f, { callsLeft: 1, waitMs: 1_000, clock });
    expect(await b.reserve(2_000)).toEqual({ ok: true });
    b.release(2_000);
    // The give-back waits until the test lets it through.
    let reachGiveBack = () => {};
    const atGiveBack = new Promise<void>((resolve) => (reachGiveBack = resolve));
    let letThrough = () => {};
    const gate = new Promise<void>((resolve) => (letThrough = resolve));
    const move = vi.mocked(f.allotments.move);
    const real = move.getMockImplementation();
    move.mockImplementation(async (lease, m, job) => {
      if (m.release > 0 && m.take === 0) {
        reachGiveBack();
        await gate;
      }
      return (real as NonNullable<typeof real>)(lease, m, job);
    });
    // A call asks for more than is free: the job has 500 of room, so the 2,000 go back.
    const big = b.reserve(3_000);
    await atGiveBack;
    // While that write is out, a smaller call must not be sent on the 2,000 going back.
    const small = b.reserve(1_500);
    letThrough();
    expect(await big).toEqual({ ok: false, why: 'budget' });
    expect(await small).toEqual({ ok: false, why: 'budget' });
    expect(markBudgetExceeded).toHaveBeenCalledOnce();
    // Nothing reserved, so nothing spent can take the allotment below zero: it ends at zero.
    const closing = b.closing();
    expect(closing).toEqual({ spent: 0, release: 0, take: 0 });
    expect(f.job.costReserved).toBe(7_500);
  });

  it('reports a move that would take the allotment below zero and writes it to end at zero', async () => {
    const f = fakeJob(1_000_000);
    const overdraws: number[] = [];
    const b = new ChunkBudget({
      allotments: f.allotments,
      lease,
      job: f.job,
      markBudgetExceeded: async () => {},
      callsLeft: () => 1,
      contendedWaitMs: 1_000,
      onOverdraw: (overdrawn) => overdraws.push(overdrawn),
      now: () => 0,
      sleep: async () => {},
      random: () => 0.5,
    });
    expect(await b.reserve(100)).toEqual({ ok: true });
    // The answer cost more than its worst case: 190 spent of 100 held.
    b.settle(100, 190);
    const closing = b.closing();
    expect(overdraws).toEqual([90]);
    expect(closing).toEqual({ spent: 190, release: -90, take: 0 });
    await f.allotments.move(lease, closing, f.job);
    // The allotment ends at zero, and the 90 over is committed on the job, not lost.
    expect(f.job).toMatchObject({ costReserved: 0, costSpent: 190, costCommitted: 190 });
  });

  it('asks the job once for calls that run short at the same moment', async () => {
    const f = fakeJob(1_000_000);
    const { b } = budget(f, { callsLeft: 3 });
    const results = await Promise.all([b.reserve(100), b.reserve(100), b.reserve(100)]);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(f.moves).toHaveLength(1);
  });
});
