import { describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import {
  type Delivery,
  firstFindingMs,
  freeTime,
  occupancy,
  percentile,
  pickupLatency,
  pickupsOf,
  planUploads,
  runViolations,
  spread,
  VIOLATIONS_NAMED,
} from '../../bench/thousand-measure.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

function cp(chunk: number, stage: 'analyze' | 'consolidate', over: Partial<Checkpoint> = {}): Checkpoint {
  return { jobId: 'j-1', chunk, stage, status: 'done', fence: 1, attempts: 1, ...over };
}

describe('percentile', () => {
  it('takes the nearest rank, whatever the order given', () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 95)).toBe(10);
    expect(percentile(values, 10)).toBe(1);
    expect(percentile([7], 99)).toBe(7);
  });

  it('is NaN for no values and refuses a percentile outside (0, 100]', () => {
    expect(percentile([], 50)).toBeNaN();
    expect(() => percentile([1], 0)).toThrow(/percentile must be in/);
    expect(() => percentile([1], 101)).toThrow(/percentile must be in/);
  });

  it('spread gives p50, p95, p99 and the count', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(spread(values)).toEqual({ n: 100, p50: 50, p95: 95, p99: 99 });
  });
});

describe('planUploads', () => {
  it('gives the hot owner its share and the quiet owners the rest in turn, interleaved over the window', () => {
    const plan = planUploads(1000, 10, 0.8, 60_000, ['a', 'b', 'c']);
    const byOwner = new Map<number, number>();
    for (const u of plan) byOwner.set(u.owner, (byOwner.get(u.owner) ?? 0) + 1);
    expect(byOwner.get(0)).toBe(800);
    for (let q = 1; q <= 9; q++) expect(byOwner.get(q)).toBeGreaterThanOrEqual(22);
    expect([...byOwner.values()].reduce((a, b) => a + b, 0)).toBe(1000);
    // Interleaved: no long run of the hot owner (one quiet upload at least every five).
    let run = 0;
    let longest = 0;
    for (const u of plan) {
      run = u.owner === 0 ? run + 1 : 0;
      longest = Math.max(longest, run);
    }
    expect(longest).toBeLessThanOrEqual(4);
    expect(plan[0]?.atMs).toBe(0);
    expect(plan.at(-1)?.atMs).toBe(60_000);
    expect(plan.map((u) => u.file).slice(0, 4)).toEqual(['a', 'b', 'c', 'a']);
  });

  it('refuses a plan it cannot make, naming the problem', () => {
    expect(() => planUploads(0, 10, 0.8, 1000, ['a'])).toThrow(/jobs must be/);
    expect(() => planUploads(10, 1, 0.8, 1000, ['a'])).toThrow(/owners must be/);
    expect(() => planUploads(10, 10, 1.5, 1000, ['a'])).toThrow(/hotShare/);
    expect(() => planUploads(10, 10, 0.8, 1000, [])).toThrow(/no contracts/);
  });
});

describe('occupancy and freeTime', () => {
  const steps = occupancy([
    { from: 0, to: 100 },
    { from: 50, to: 150 },
    { from: 100, to: 200 },
  ]);

  it('counts the slots held from each step on, a slot given back taken again at the same instant', () => {
    expect(steps).toEqual([
      { at: 0, held: 1 },
      { at: 50, held: 2 },
      { at: 100, held: 2 },
      { at: 150, held: 1 },
      { at: 200, held: 0 },
    ]);
  });

  it('counts only the time fewer than the slots were held', () => {
    // Two slots: both held from 50 to 150.
    expect(freeTime(steps, 0, 200, 2)).toBe(100);
    expect(freeTime(steps, 60, 140, 2)).toBe(0);
    expect(freeTime(steps, -50, 10, 2)).toBe(60);
    expect(freeTime(steps, 140, 300, 2)).toBe(150);
    expect(freeTime(steps, 0, 200, 3)).toBe(200);
    expect(freeTime(steps, 10, 10, 1)).toBe(0);
  });
});

describe('pickupsOf and pickupLatency', () => {
  const list = [
    cp(0, 'analyze', { startedAt: iso(100), finishedAt: iso(1000) }),
    cp(0, 'consolidate', { startedAt: iso(1010), finishedAt: iso(1050) }),
    cp(1, 'analyze', { startedAt: iso(2000), finishedAt: iso(2500) }),
    cp(1, 'consolidate', { startedAt: iso(2530), finishedAt: iso(2600) }),
    cp(2, 'analyze', { status: 'pending' }),
    cp(2, 'consolidate', { status: 'pending' }),
  ];
  const checkpoints = new Map([['j-1', list]]);
  const deliveries: Delivery[] = [
    { jobId: 'j-1', chunk: 0, sentAt: T0, receivedAt: T0 + 50, receiveCount: 1, doneAt: T0 + 1100 },
    // Not deleted (left to come back): its slot is held to the chunk's last recorded end.
    { jobId: 'j-1', chunk: 1, sentAt: T0 + 300, receivedAt: T0 + 1900, receiveCount: 1 },
    // A second delivery of a chunk never claimed: neither a pickup nor a known end.
    { jobId: 'j-1', chunk: 2, sentAt: T0 + 400, receivedAt: T0 + 2700, receiveCount: 2 },
  ];

  it('takes a chunk ready when its message was sent, and its consolidate when analyze finished', () => {
    const { pickups, busy } = pickupsOf(deliveries, checkpoints);
    expect(pickups).toEqual([
      { stage: 'analyze', readyAt: T0, claimedAt: T0 + 100, receivedAt: T0 + 50 },
      { stage: 'analyze', readyAt: T0 + 300, claimedAt: T0 + 2000, receivedAt: T0 + 1900 },
      { stage: 'consolidate', readyAt: T0 + 1000, claimedAt: T0 + 1010 },
      { stage: 'consolidate', readyAt: T0 + 2500, claimedAt: T0 + 2530 },
    ]);
    expect(busy).toEqual([
      { from: T0 + 50, to: T0 + 1100 },
      { from: T0 + 1900, to: T0 + 2600 },
    ]);
  });

  it('counts a wait only while a slot was free', () => {
    const { pickups, busy } = pickupsOf(deliveries, checkpoints);
    // One slot: chunk 1 waited 300 → 2000, free only from 1100 to 1900; chunk 0 from 0 to 50.
    const one = pickupLatency(pickups, busy, 1);
    expect(one.analyze.whole).toEqual({ n: 2, p50: 100, p95: 1700, p99: 1700 });
    expect(one.analyze.free).toEqual({ n: 2, p50: 50, p95: 800, p99: 800 });
    // The consolidate stages waited with their own chunk's slot held: never a free slot.
    expect(one.consolidate.free.p99).toBe(0);
    expect(one.consolidate.whole.p99).toBe(30);
    const two = pickupLatency(pickups, busy, 2);
    expect(two.analyze.free.p99).toBe(1700);
    expect(two.consolidate.free.p99).toBe(30);
  });

  it('counts a whole wait as with a slot only when the stage was ready while the lane had a slot for it', () => {
    const { pickups, busy } = pickupsOf(deliveries, checkpoints);
    // One slot: chunk 0 found it free; chunk 1 was sent while chunk 0 held it.
    const one = pickupLatency(pickups, busy, 1);
    expect(one.analyze.withSlot).toEqual({ n: 1, p50: 100, p95: 100, p99: 100 });
    // Two slots: chunk 1 found the second free, and waited 1,700 ms all the same.
    expect(pickupLatency(pickups, busy, 2).analyze.withSlot).toEqual({
      n: 2,
      p50: 100,
      p95: 1700,
      p99: 1700,
    });
    // A consolidate runs in its chunk's own slot: every one had a slot.
    expect(one.consolidate.withSlot).toEqual(one.consolidate.whole);
  });

  it('counts messages sent before and not yet received as taking the free slots, ties in send order', () => {
    // Three messages sent in the same millisecond to two idle slots, and one sent once the first
    // two were received while they still held both slots.
    const sent = (
      [
        [0, 10, 30],
        [0, 20, 40],
        [0, 900, 950],
        [500, 1000, 1100],
      ] as const
    ).map(([ready, received, claimed]) => ({
      stage: 'analyze' as const,
      readyAt: T0 + ready,
      receivedAt: T0 + received,
      claimedAt: T0 + claimed,
    }));
    const held = [
      { from: T0 + 10, to: T0 + 800 },
      { from: T0 + 20, to: T0 + 800 },
      { from: T0 + 900, to: T0 + 1200 },
      { from: T0 + 1000, to: T0 + 1200 },
    ];
    const r = pickupLatency(sent, held, 2);
    expect(r.analyze.withSlot).toEqual({ n: 2, p50: 30, p95: 40, p99: 40 });
    expect(r.analyze.whole.n).toBe(4);
  });

  it('firstFindingMs is the first chunk consolidated after the upload, or undefined', () => {
    expect(firstFindingMs(T0, list)).toBe(1050);
    expect(
      firstFindingMs(
        T0,
        list.filter((c) => c.stage === 'analyze'),
      ),
    ).toBeUndefined();
  });
});

describe('runViolations', () => {
  const job = (n: number) => ({ jobId: `j-${n}`, check: 'ceiling', detail: 'over' });

  it('counts the stand-in billing more than the jobs recorded', () => {
    const v = runViolations([], {}, 5_000, 4_000);
    expect(v.count).toBe(1);
    expect(v.named.map((x) => x.check)).toEqual(['spend']);
  });

  it('counts calls billed twice beside the jobs’ own violations', () => {
    const v = runViolations([job(1)], { q: { count: 3 } }, 100, 100);
    expect(v.billedTwice).toBe(2);
    expect(v.count).toBe(2);
    expect(v.named.map((x) => x.check)).toEqual(['ceiling', 'billed-once']);
  });

  it('names the first few and counts every one, the spend among them', () => {
    const jobs = Array.from({ length: VIOLATIONS_NAMED + 10 }, (_, i) => job(i));
    const v = runViolations(jobs, {}, 200, 100);
    expect(v.count).toBe(VIOLATIONS_NAMED + 11);
    expect(v.named).toHaveLength(VIOLATIONS_NAMED);
    expect(v.named[0]?.jobId).toBe('j-0');
  });

  it('finds nothing in a clean run', () => {
    expect(runViolations([], { q: { count: 1 } }, 100, 100)).toEqual({ count: 0, named: [], billedTwice: 0 });
  });
});
