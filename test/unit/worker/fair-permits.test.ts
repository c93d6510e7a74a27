/**
 * A model's permits are shared fairly between owners, and between one owner's jobs, inside
 * each lane, while the lanes keep their order and their aging.
 */
import { describe, expect, it } from 'vitest';
import type { Lane } from '../../../lambdas/core/clause.js';
import { FairQueue, FairShares } from '../../../lambdas/core/worker/fair-queue.js';
import { AdaptiveLimiter, type Permit } from '../../../lambdas/core/worker/limiter.js';

/** A limiter of `limit` permits on a hand-moved clock, windows too long to move the limit. */
function setup(limit: number, agingMs = 1_000) {
  const clock = { t: 0 };
  const limiter = new AdaptiveLimiter({ initial: limit, windowMs: 1e9, agingMs, now: () => clock.t });
  return { limiter, clock };
}

/** Lets granted waiters' promise callbacks run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Queues a call that records its name when granted and keeps its permit in `held`, to be
 * released by the test.
 */
function ask(
  limiter: AdaptiveLimiter,
  name: string,
  owner: string,
  job: string,
  order: string[],
  held: Permit[],
  lane: Lane = 'realtime',
): void {
  void limiter.acquire(lane, { owner, job }).then((permit) => {
    order.push(name);
    held.push(permit);
  });
}

/** Releases the oldest held permit and lets the next grant happen. */
async function releaseOne(held: Permit[]): Promise<void> {
  held.shift()?.release();
  await flush();
}

describe('fair permits between owners', () => {
  it("gives the next free permit to a second owner's one call, ahead of fifty calls of the first", async () => {
    const { limiter, clock } = setup(2);
    const order: string[] = [];
    const held: Permit[] = [];
    for (let i = 0; i < 52; i++) ask(limiter, `a${i}`, 'owner-a', 'job-a', order, held);
    await flush();
    expect(order).toEqual(['a0', 'a1']);
    clock.t += 500;
    ask(limiter, 'b0', 'owner-b', 'job-b', order, held);
    await releaseOne(held);
    expect(order.at(-1)).toBe('b0');
    expect(limiter.waiting).toBe(50);
  });

  it('shares the permits evenly once both owners have calls waiting', async () => {
    const { limiter } = setup(4);
    const order: string[] = [];
    const held: Permit[] = [];
    for (let i = 0; i < 20; i++) ask(limiter, `a${i}`, 'owner-a', 'job-a', order, held);
    await flush();
    for (let i = 0; i < 20; i++) ask(limiter, `b${i}`, 'owner-b', 'job-b', order, held);
    // Owner a holds all four permits; as they free, b's calls take them until each holds two.
    for (let i = 0; i < 2; i++) await releaseOne(held);
    expect(order.slice(4)).toEqual(['b0', 'b1']);
    // From then on each release goes to the owner that released it, keeping two each.
    for (let i = 0; i < 8; i++) await releaseOne(held);
    const owners = held.map((_, i) => order[order.length - held.length + i]?.[0]);
    expect(owners.filter((o) => o === 'a')).toHaveLength(2);
    expect(owners.filter((o) => o === 'b')).toHaveLength(2);
  });

  it("alternates between one owner's jobs", async () => {
    const { limiter } = setup(1);
    const order: string[] = [];
    const held: Permit[] = [];
    for (let i = 0; i < 4; i++) ask(limiter, `x${i}`, 'owner-a', 'job-x', order, held);
    await flush();
    for (let i = 0; i < 3; i++) ask(limiter, `y${i}`, 'owner-a', 'job-y', order, held);
    for (let i = 0; i < 6; i++) await releaseOne(held);
    expect(order).toEqual(['x0', 'y0', 'x1', 'y1', 'x2', 'y2', 'x3']);
  });

  it('serves owners in turn, each taking its jobs in turn', async () => {
    const { limiter } = setup(1);
    const order: string[] = [];
    const held: Permit[] = [];
    const first = await limiter.acquire('realtime', { owner: 'owner-z', job: 'job-z' });
    for (let i = 0; i < 2; i++) {
      ask(limiter, `a-x${i}`, 'owner-a', 'job-x', order, held);
      ask(limiter, `a-y${i}`, 'owner-a', 'job-y', order, held);
      ask(limiter, `b-w${i}`, 'owner-b', 'job-w', order, held);
    }
    first.release();
    await flush();
    for (let i = 0; i < 5; i++) await releaseOne(held);
    expect(order).toEqual(['a-x0', 'b-w0', 'a-y0', 'b-w1', 'a-x1', 'a-y1']);
  });

  it('serves the calls of one job first come, first served', async () => {
    const { limiter } = setup(1);
    const order: string[] = [];
    const held: Permit[] = [];
    for (let i = 0; i < 5; i++) ask(limiter, `${i}`, 'owner-a', 'job-a', order, held);
    await flush();
    for (let i = 0; i < 4; i++) await releaseOne(held);
    expect(order).toEqual(['0', '1', '2', '3', '4']);
  });

  it('counts an owner with no waiting calls by the permits it still holds', async () => {
    const { limiter } = setup(3);
    const order: string[] = [];
    const held: Permit[] = [];
    const a = [
      await limiter.acquire('realtime', { owner: 'owner-a', job: 'j' }),
      await limiter.acquire('realtime', { owner: 'owner-a', job: 'j' }),
    ];
    const b = await limiter.acquire('realtime', { owner: 'owner-b', job: 'k' });
    ask(limiter, 'a', 'owner-a', 'j', order, held);
    ask(limiter, 'b', 'owner-b', 'k', order, held);
    // A frees one of its two: a has 1 in use, b has 1; the tie goes to a, granted longest ago.
    a[0]?.release();
    await flush();
    expect(order).toEqual(['a']);
    b.release();
    await flush();
    expect(order).toEqual(['a', 'b']);
    a[1]?.release();
  });

  it('forgets a withdrawn call and serves the owner behind it', async () => {
    const { limiter } = setup(1);
    const first = await limiter.acquire('realtime', { owner: 'owner-a', job: 'j' });
    const controller = new AbortController();
    const gone = limiter.acquire('realtime', { owner: 'owner-b', job: 'k', signal: controller.signal });
    const next = limiter.acquire('realtime', { owner: 'owner-c', job: 'm' });
    controller.abort(new Error('lease lost'));
    await expect(gone).rejects.toThrow('lease lost');
    expect(limiter.waiting).toBe(1);
    first.release();
    const permit = await next;
    expect(limiter.active).toBe(1);
    permit.release();
    expect(limiter.active).toBe(0);
  });
});

describe('fair permits keep the lanes in order and aged', () => {
  it('serves a heavy owner in the realtime lane before a new owner in the batch lane', async () => {
    const { limiter, clock } = setup(1);
    const order: string[] = [];
    const held: Permit[] = [];
    ask(limiter, 'a0', 'owner-a', 'j', order, held);
    await flush();
    ask(limiter, 'a1', 'owner-a', 'j', order, held);
    ask(limiter, 'a2', 'owner-a', 'j', order, held);
    clock.t += 10;
    ask(limiter, 'b0', 'owner-b', 'k', order, held, 'batch');
    for (let i = 0; i < 3; i++) await releaseOne(held);
    expect(order).toEqual(['a0', 'a1', 'a2', 'b0']);
  });

  it("ages a lane by its oldest call, and then serves that lane's fair choice", async () => {
    const { limiter, clock } = setup(1, 1_000);
    const order: string[] = [];
    const held: Permit[] = [];
    ask(limiter, 'z0', 'owner-z', 'z', order, held, 'batch');
    await flush();
    ask(limiter, 'z1', 'owner-z', 'z', order, held, 'batch');
    clock.t += 100;
    ask(limiter, 'b0', 'owner-b', 'k', order, held, 'batch');
    clock.t += 1_500;
    ask(limiter, 'rt', 'owner-c', 'm', order, held);
    // The batch lane's oldest call (z1) has waited more than agingMs longer than the realtime
    // one: the batch lane goes first, and in it owner b, never served, ahead of z, just served.
    await releaseOne(held);
    expect(order).toEqual(['z0', 'b0']);
    expect(limiter.stats().agedBatchGrants).toBe(1);
    // z1 is still older than the realtime call by more than agingMs.
    await releaseOne(held);
    expect(order).toEqual(['z0', 'b0', 'z1']);
    await releaseOne(held);
    expect(order).toEqual(['z0', 'b0', 'z1', 'rt']);
  });
});

describe('FairShares and FairQueue', () => {
  it('counts permits in use per owner and job, and drops what reaches zero', () => {
    const shares = new FairShares();
    shares.took({ owner: 'a', job: 'x' });
    shares.took({ owner: 'a', job: 'y' });
    shares.took({ owner: 'a', job: 'y' });
    expect(shares.ownerInUse('a')).toBe(3);
    expect(shares.jobInUse({ owner: 'a', job: 'y' })).toBe(2);
    shares.gaveBack({ owner: 'a', job: 'y' });
    shares.gaveBack({ owner: 'a', job: 'x' });
    expect(shares.jobInUse({ owner: 'a', job: 'x' })).toBe(0);
    expect(shares.ownerInUse('a')).toBe(1);
    // A release of a key that holds nothing changes nothing.
    shares.gaveBack({ owner: 'b', job: 'x' });
    shares.gaveBack({ owner: 'a', job: 'x' });
    expect(shares.ownerInUse('a')).toBe(1);
    shares.gaveBack({ owner: 'a', job: 'y' });
    expect(shares.ownerInUse('a')).toBe(0);
  });

  it('tells its earliest deadline, whichever waiter it serves next', () => {
    const shares = new FairShares();
    const queue = new FairQueue<{ owner: string; job: string; deadline: number }>(shares);
    expect(queue.earliestDeadline()).toBeUndefined();
    expect(queue.shift()).toBeUndefined();
    const old = { owner: 'a', job: 'x', deadline: 5 };
    const fresh = { owner: 'b', job: 'y', deadline: 9 };
    queue.push(old);
    queue.push(fresh);
    shares.took({ owner: 'a', job: 'x' });
    expect(queue.earliestDeadline()).toBe(5);
    expect(queue.peek()).toBe(fresh);
    expect(queue.remove(old)).toBe(true);
    expect(queue.remove(old)).toBe(false);
    expect(queue.earliestDeadline()).toBe(9);
    expect(queue.shift()).toBe(fresh);
    expect(queue.length).toBe(0);
  });
});
