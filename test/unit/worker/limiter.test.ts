import { describe, expect, it } from 'vitest';
import type { Lane } from '../../../lambdas/core/model.js';
import {
  AdaptiveLimiter,
  type AdaptiveLimiterOptions,
  type Permit,
  type WindowSnapshot,
} from '../../../lambdas/core/worker/limiter.js';
import { LimiterRegistry } from '../../../lambdas/core/worker/limiter-registry.js';
import type { Semaphore } from '../../../lambdas/core/worker/semaphore.js';

const WINDOW = 5_000;

/**
 * A limiter on a clock the test moves by hand; windows start at t = 0. The classic AIMD
 * approach unless the test asks for another: most tests here are about its mechanics.
 */
function setup(options: AdaptiveLimiterOptions = {}) {
  const clock = { t: 0 };
  const snapshots: WindowSnapshot[] = [];
  const limiter = new AdaptiveLimiter({
    approach: 'aimd',
    windowMs: WINDOW,
    now: () => clock.t,
    onWindow: (s) => snapshots.push(s),
    ...options,
  });
  return {
    limiter,
    snapshots,
    clock,
    advance: (ms: number) => {
      clock.t += ms;
    },
  };
}

type Setup = ReturnType<typeof setup>;

/** Lets granted waiters' promise callbacks run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Follows a promise without awaiting it, to see whether (and how) it has settled. */
function track<T>(promise: Promise<T>): { readonly done: boolean; value?: T; error?: unknown } {
  const state: { done: boolean; value?: T; error?: unknown } = { done: false };
  promise.then(
    (value) => {
      state.done = true;
      state.value = value;
    },
    (error: unknown) => {
      state.done = true;
      state.error = error;
    },
  );
  return state;
}

async function hold(limiter: AdaptiveLimiter, n: number, lane: Lane = 'realtime'): Promise<Permit[]> {
  const permits: Permit[] = [];
  for (let i = 0; i < n; i++) permits.push(await limiter.acquire(lane));
  return permits;
}

/**
 * One window of full load from the current time: the whole limit is taken, the calls last
 * `latencyMs` (the first `throttled` of them throttled), then the clock moves to the next
 * window boundary and the limiter evaluates it.
 */
async function loadedWindow(
  { limiter, clock }: Setup,
  { latencyMs = 100, throttled = 0 }: { latencyMs?: number; throttled?: number } = {},
): Promise<void> {
  const permits = await hold(limiter, limiter.limit);
  clock.t += latencyMs;
  permits.forEach((permit, i) => {
    permit.release({ throttled: i < throttled });
  });
  clock.t = (Math.floor(clock.t / WINDOW) + 1) * WINDOW;
  limiter.tick();
}

/** A call granted now and throttled at once: a counted throttle when nothing older is in flight. */
async function throttleOne({ limiter }: Setup): Promise<number> {
  const permit = await limiter.acquire('realtime');
  permit.release({ throttled: true });
  return limiter.limit;
}

describe("AdaptiveLimiter: approach 'probe' (the default)", () => {
  const probe = (options: AdaptiveLimiterOptions = {}) => setup({ approach: 'probe', ...options });

  it('is the default', async () => {
    const limiter = new AdaptiveLimiter();
    expect(limiter.limit).toBe(10);
    // One counted throttle before any window: no growth to undo, so one step down.
    (await limiter.acquire('realtime')).release({ throttled: true });
    expect(limiter.limit).toBe(9);
  });

  it('undoes a growth one permit per throttle, then cuts by decreaseFactor', async () => {
    const s = probe();
    await loadedWindow(s); // 15: the window added 5
    const limits: number[] = [];
    for (let i = 0; i < 6; i++) limits.push(await throttleOne(s));
    expect(limits).toEqual([14, 13, 12, 11, 10, 7]); // five steps, then floor(10 × 0.7)
    expect(s.limiter.stats()).toMatchObject({ decreases: 6, throttles: 6 });
  });

  it('holds one below the limit that met a throttle, and probes one above it every probeWindows windows', async () => {
    const s = probe();
    await loadedWindow(s); // 15
    await throttleOne(s); // 14; 15 met a throttle
    const limits: number[] = [];
    for (let i = 0; i < 7; i++) {
      await loadedWindow(s);
      limits.push(s.limiter.limit);
    }
    // The window of the throttle decides nothing more. 14 is the most the model took: two clean
    // windows hold, the third probes 15, which passes (the model took more this time); then 15
    // holds twice more and 16 is probed.
    expect(limits).toEqual([14, 14, 14, 15, 15, 15, 16]);
    expect(s.snapshots[2]?.decision).toEqual({ action: 'hold', reason: 'probing' });
    expect(await throttleOne(s)).toBe(15); // the probe overshot: one step back, no cut
  });

  it('waits twice as many clean windows before each probe the model refused at the same limit', async () => {
    const s = probe();
    await loadedWindow(s); // 15
    await throttleOne(s); // 14; 15 met a throttle
    await loadedWindow(s); // the throttle's window
    const probedAfter: number[] = [];
    for (let refused = 0; refused < 3; refused++) {
      let windows = 0;
      while (s.limiter.limit === 14) {
        await loadedWindow(s);
        windows++;
      }
      probedAfter.push(windows);
      expect(s.limiter.limit).toBe(15);
      expect(await throttleOne(s)).toBe(14); // refused again at 15
      await loadedWindow(s); // that throttle's window
    }
    expect(probedAfter).toEqual([3, 6, 12]);
    // A probe that passes brings the wait back to probeWindows.
    for (let i = 0; i < 24; i++) await loadedWindow(s);
    expect(s.limiter.limit).toBe(15);
    const limits: number[] = [];
    for (let i = 0; i < 4; i++) {
      await loadedWindow(s);
      limits.push(s.limiter.limit);
    }
    expect(limits).toEqual([15, 15, 16, 16]);
  });

  it('climbs back fast after a cut, to one below the limit that met the throttle', async () => {
    const s = probe();
    for (let i = 0; i < 3; i++) await loadedWindow(s); // 25: the last window added 5
    const limits: number[] = [];
    for (let i = 0; i < 6; i++) limits.push(await throttleOne(s));
    expect(limits).toEqual([24, 23, 22, 21, 20, 14]); // steps spent: floor(20 × 0.7); 20 met it
    await loadedWindow(s); // the window of the throttles
    expect(s.limiter.limit).toBe(14);
    await loadedWindow(s);
    expect(s.limiter.limit).toBe(19); // by increase, capped at one below 20
    await loadedWindow(s);
    expect(s.limiter.limit).toBe(19); // probing from here
  });

  it('grows by increase again once probes pass the last throttle by increase', async () => {
    const s = probe({ probeWindows: 1, increase: 2 });
    await loadedWindow(s); // 12
    await throttleOne(s); // 11; 12 met it
    const limits: number[] = [];
    for (let i = 0; i < 5; i++) {
      await loadedWindow(s);
      limits.push(s.limiter.limit);
    }
    // The throttle's window, then probes to 12 and 13 pass; 13 ≥ 11 + 2: +2 again.
    expect(limits).toEqual([11, 12, 13, 15, 17]);
  });

  it('moves the limit from outside with rebase, the throttled limit with it', async () => {
    const s = probe();
    await loadedWindow(s); // 15
    await throttleOne(s); // 14; 15 met it
    s.limiter.rebase(7); // a smaller share of a shared limit
    expect(s.limiter.limit).toBe(7);
    await loadedWindow(s); // the throttle's window
    await loadedWindow(s);
    expect(s.limiter.limit).toBe(7); // 7 is one below where the throttle came, moved with it: probing
    s.limiter.rebase(500);
    expect(s.limiter.limit).toBe(200); // within [min, max]
  });

  it('grants nothing while it waits for its limit, then grants up to it', async () => {
    const s = probe();
    let ready: () => void = () => {};
    s.limiter.waitFor(new Promise<void>((r) => (ready = r)));
    const first = track(s.limiter.acquire('realtime'));
    await flush();
    expect(first.done).toBe(false);
    s.limiter.rebase(1);
    ready();
    await flush();
    expect(first.done).toBe(true);
    const second = track(s.limiter.acquire('realtime'));
    await flush();
    expect(second.done).toBe(false); // the limit it was given is 1
  });

  it('rejects probeWindows below 1', () => {
    expect(() => new AdaptiveLimiter({ probeWindows: 0 })).toThrow(
      /probeWindows must be an integer ≥ 1; got 0/,
    );
  });
});

describe('AdaptiveLimiter: the limit', () => {
  it('starts at 10 permits and grants no more than the limit at once', async () => {
    const { limiter } = setup();
    expect(limiter.limit).toBe(10);
    await hold(limiter, 10);
    const eleventh = track(limiter.acquire('realtime'));
    await flush();
    expect(eleventh.done).toBe(false);
    expect(limiter.active).toBe(10);
    expect(limiter.waiting).toBe(1);
  });

  it('adds 5 after each clean, saturated window, and only once the window has ended', async () => {
    const s = setup();
    const permits = await hold(s.limiter, 10);
    s.advance(100);
    for (const permit of permits) permit.release();
    s.advance(WINDOW - 101); // t = 4,999: still inside the first window
    s.limiter.tick();
    expect(s.limiter.limit).toBe(10);
    s.advance(1);
    s.limiter.tick();
    expect(s.limiter.limit).toBe(15);
    await loadedWindow(s);
    expect(s.limiter.limit).toBe(20);
    await loadedWindow(s);
    expect(s.limiter.limit).toBe(25);
    expect(s.snapshots.map((w) => [w.limitBefore, w.limitAfter, w.decision.action])).toEqual([
      [10, 15, 'increase'],
      [15, 20, 'increase'],
      [20, 25, 'increase'],
    ]);
  });

  it('evaluates a window on the next acquire or release, without tick()', async () => {
    const s = setup();
    const permits = await hold(s.limiter, 10);
    s.advance(WINDOW);
    permits[0]?.release(); // closes the window in which all ten were busy, then records this call
    expect(s.limiter.limit).toBe(10); // no call had finished in that window: no evidence
    expect(s.snapshots[0]?.decision).toEqual({ action: 'hold', reason: 'no-successes' });
    for (const permit of permits.slice(1)) permit.release();
    s.advance(WINDOW);
    await s.limiter.acquire('batch');
    expect(s.limiter.limit).toBe(15);
  });

  it('does not increase when the window p99 latency reaches the target', async () => {
    const s = setup({ p99TargetMs: 500 });
    // 100 calls, 2 of them slow: the nearest-rank p99 (the 99th of 100) is slow.
    for (let round = 0; round < 10; round++) {
      const permits = await hold(s.limiter, 10);
      s.advance(10);
      permits.forEach((permit, i) => {
        permit.release({ latencyMs: round === 0 && i < 2 ? 600 : 50 });
      });
    }
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(10);
    expect(s.snapshots[0]).toMatchObject({ calls: 100, p99Ms: 600, decision: { reason: 'latency' } });

    // One slow call in 100 is the 1 % the p99 ignores.
    for (let round = 0; round < 10; round++) {
      const permits = await hold(s.limiter, 10);
      s.advance(10);
      permits.forEach((permit, i) => {
        permit.release({ latencyMs: round === 0 && i === 0 ? 600 : 50 });
      });
    }
    s.clock.t = 2 * WINDOW;
    s.limiter.tick();
    expect(s.snapshots[1]).toMatchObject({ p99Ms: 50, decision: { action: 'increase' } });
    expect(s.limiter.limit).toBe(15);
  });

  it('measures latency from grant to release when the caller does not report it', async () => {
    const s = setup({ p99TargetMs: 1_000 });
    await loadedWindow(s, { latencyMs: 1_000 });
    expect(s.snapshots[0]).toMatchObject({ p99Ms: 1_000, decision: { reason: 'latency' } });
    await loadedWindow(s, { latencyMs: 999 });
    expect(s.limiter.limit).toBe(15);
  });

  it('does not grow a limit that demand never reached', async () => {
    const s = setup();
    const permits = await hold(s.limiter, 9);
    s.advance(100);
    for (const permit of permits) permit.release();
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(10);
    expect(s.snapshots[0]).toMatchObject({ peakActive: 9, decision: { reason: 'unsaturated' } });
  });

  it('sums the time permits were held, leaving unused permits out', async () => {
    const s = setup();
    await loadedWindow(s, { latencyMs: 120 }); // 10 permits of 120 ms
    const [unused] = await hold(s.limiter, 1);
    s.advance(500);
    unused?.release({ unused: true });
    const [measured] = await hold(s.limiter, 1);
    measured?.release({ latencyMs: 30 });
    expect(s.limiter.stats()).toMatchObject({ calls: 11, heldMs: 10 * 120 + 30 });
  });

  it('multiplies the limit by 0.7, floored, on a throttle', async () => {
    const s = setup();
    await loadedWindow(s); // 15
    await loadedWindow(s); // 20
    await loadedWindow(s); // 25
    await loadedWindow(s, { throttled: 1 });
    expect(s.limiter.limit).toBe(17); // floor(25 × 0.7) = floor(17.5)
    await loadedWindow(s, { throttled: 17 });
    expect(s.limiter.limit).toBe(11); // floor(11.9): one cut, the other 16 were granted before it
    expect(s.snapshots.at(-1)).toMatchObject({
      throttles: 1,
      staleThrottles: 16,
      limitBefore: 17,
      limitAfter: 11,
      decision: { action: 'decrease' },
    });
    expect(s.limiter.stats()).toMatchObject({ increases: 3, decreases: 2, throttles: 18 });
  });

  it("cuts at the first throttle, before the window ends, and again only for calls granted since (decreaseOn: 'throttle')", async () => {
    const s = setup();
    const permits = await hold(s.limiter, 10);
    s.advance(100);
    permits[0]?.release({ throttled: true });
    expect(s.limiter.limit).toBe(7); // at once
    permits[1]?.release({ throttled: true });
    expect(s.limiter.limit).toBe(7); // granted before the cut: stale
    for (const permit of permits.slice(2, 5)) permit.release(); // 5 in use
    const later = await hold(s.limiter, 2); // granted under the limit of 7
    later[0]?.release({ throttled: true });
    expect(s.limiter.limit).toBe(4);
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(4); // the window's end adds no second cut, and no increase
    expect(s.snapshots[0]).toMatchObject({ throttles: 2, staleThrottles: 1, limitBefore: 10, limitAfter: 4 });
  });

  it("cuts once, when the window ends, however many throttles it had (decreaseOn: 'window')", async () => {
    const s = setup({ decreaseOn: 'window' });
    const permits = await hold(s.limiter, 10);
    s.advance(100);
    permits.slice(0, 8).forEach((permit, i) => {
      permit.release({ throttled: i < 5 });
    });
    expect(s.limiter.limit).toBe(10);
    s.clock.t = WINDOW - 1;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(10);
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(7);
    expect(s.snapshots[0]).toMatchObject({ throttles: 5, decision: { action: 'decrease' } });
    // The two still in flight were granted before the cut: their throttles do not cut again.
    permits[8]?.release({ throttled: true });
    permits[9]?.release({ throttled: true });
    await loadedWindow(s);
    expect(s.snapshots[1]).toMatchObject({ throttles: 0, staleThrottles: 2, limitAfter: 12 });
    await loadedWindow(s, { throttled: 3 });
    expect(s.limiter.limit).toBe(8); // floor(12 × 0.7)
  });

  it('never goes below min', async () => {
    const s = setup({ min: 3 });
    const limits: number[] = [];
    for (let i = 0; i < 5; i++) {
      await loadedWindow(s, { throttled: 1 });
      limits.push(s.limiter.limit);
    }
    expect(limits).toEqual([7, 4, 3, 3, 3]);
  });

  it('never goes below one permit by default', async () => {
    const s = setup({ initial: 2 });
    await loadedWindow(s, { throttled: 1 });
    expect(s.limiter.limit).toBe(1);
    await loadedWindow(s, { throttled: 1 });
    expect(s.limiter.limit).toBe(1);
  });

  it('never goes above max', async () => {
    const s = setup({ max: 22 });
    const limits: number[] = [];
    for (let i = 0; i < 4; i++) {
      await loadedWindow(s);
      limits.push(s.limiter.limit);
    }
    expect(limits).toEqual([15, 20, 22, 22]);
    expect(s.snapshots.at(-1)?.decision).toEqual({ action: 'hold', reason: 'at-bound' });
  });

  it('ignores throttles of calls granted before the last decrease', async () => {
    const s = setup();
    const early = await hold(s.limiter, 10);
    early[0]?.release({ throttled: true });
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(7);
    // The other nine were admitted under the old limit of 10: their throttles are stale.
    s.advance(100);
    for (const permit of early.slice(1)) permit.release({ throttled: true });
    const fresh = await hold(s.limiter, 7);
    s.advance(100);
    for (const permit of fresh) permit.release();
    s.clock.t = 2 * WINDOW;
    s.limiter.tick();
    expect(s.snapshots[1]).toMatchObject({ throttles: 0, staleThrottles: 9, limitAfter: 12 });
    // A throttle of a call granted under the new limit does count.
    const newer = await hold(s.limiter, 12);
    s.advance(100);
    newer.forEach((permit, i) => {
      permit.release({ throttled: i === 0 });
    });
    s.clock.t = 3 * WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(8);
  });

  it('grants no new permit after a shrink until fewer than the new limit are in use', async () => {
    const s = setup();
    const permits = await hold(s.limiter, 10);
    permits[0]?.release({ throttled: true });
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(7);
    expect(s.limiter.active).toBe(9);

    const waiter = track(s.limiter.acquire('realtime'));
    for (const permit of permits.slice(1, 3)) permit.release(); // 7 in use
    await flush();
    expect(waiter.done).toBe(false);
    expect(s.limiter.active).toBe(7);
    permits[3]?.release(); // 6 in use: the waiter gets the seventh permit
    await flush();
    expect(waiter.done).toBe(true);
    expect(s.limiter.active).toBe(7);
  });

  it('counts windows, skips quiet ones and reports each in a snapshot', async () => {
    const s = setup({ name: 'model-a' });
    await loadedWindow(s, { latencyMs: 120 });
    s.advance(10 * WINDOW); // nothing in use for ten windows
    s.limiter.tick();
    await loadedWindow(s, { throttled: 2 });
    const stats = s.limiter.stats();
    expect(stats).toMatchObject({
      name: 'model-a',
      windows: 2,
      increases: 1,
      decreases: 1,
      calls: 25,
      throttles: 2,
      limit: 10,
      active: 0,
      waiting: { realtime: 0, batch: 0 },
      granted: { realtime: 25, batch: 0 },
    });
    expect(s.snapshots).toHaveLength(2);
    expect(s.snapshots[0]).toEqual({
      name: 'model-a',
      index: 1,
      startedAt: 0,
      endedAt: WINDOW,
      calls: 10,
      throttles: 0,
      staleThrottles: 0,
      p99Ms: 120,
      peakActive: 10,
      limitBefore: 10,
      limitAfter: 15,
      decision: { action: 'increase', reason: 'clean' },
    });
    expect(s.snapshots[1]).toMatchObject({ index: 2, startedAt: 11 * WINDOW, calls: 15, limitAfter: 10 });
    expect(stats.lastWindow).toBe(s.snapshots[1]);
  });

  it('rejects options outside their range, naming the value', () => {
    expect(() => new AdaptiveLimiter({ initial: 0 })).toThrow(
      /initial must be an integer in \[1, 200\]; got 0/,
    );
    expect(() => new AdaptiveLimiter({ min: 5, max: 4 })).toThrow(/max must be an integer ≥ 5; got 4/);
    expect(() => new AdaptiveLimiter({ decreaseFactor: 1 })).toThrow(
      /decreaseFactor must be in \(0, 1\); got 1/,
    );
    expect(() => new AdaptiveLimiter({ windowMs: 0 })).toThrow(RangeError);
    expect(() => new AdaptiveLimiter({ increase: 1.5 })).toThrow(/increase/);
    expect(() => new AdaptiveLimiter({ agingMs: -1 })).toThrow(/agingMs/);
  });
});

describe('AdaptiveLimiter: permits released unused', () => {
  it('frees the permit for the next waiter', async () => {
    const s = setup({ initial: 1 });
    const [first] = await hold(s.limiter, 1);
    const waiter = track(s.limiter.acquire('batch'));
    await flush();
    expect(waiter.done).toBe(false);
    first?.release({ unused: true });
    await flush();
    expect(waiter.done).toBe(true);
    expect(s.limiter.active).toBe(1);
  });

  it('counts no call, throttle or latency', async () => {
    const s = setup({ p99TargetMs: 500 });
    const permits = await hold(s.limiter, 10);
    s.advance(2_000); // far over the latency target, had they been calls
    for (const permit of permits) permit.release({ unused: true, throttled: true });
    expect(s.limiter.limit).toBe(10);
    expect(s.limiter.active).toBe(0);
    expect(s.limiter.stats()).toMatchObject({ calls: 0, throttles: 0, decreases: 0 });
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.snapshots[0]).toMatchObject({ calls: 0, throttles: 0, decision: { reason: 'no-successes' } });
    expect(s.snapshots[0]).not.toHaveProperty('p99Ms');
  });

  it('leaves the latency of the calls that were made to decide the window', async () => {
    const s = setup({ p99TargetMs: 500 });
    const permits = await hold(s.limiter, 10);
    s.advance(100);
    for (const permit of permits.slice(0, 9)) permit.release();
    s.advance(1_900);
    permits[9]?.release({ unused: true });
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.snapshots[0]).toMatchObject({ calls: 9, p99Ms: 100, decision: { action: 'increase' } });
    expect(s.limiter.limit).toBe(15);
  });

  it('ignores a release after an unused one', async () => {
    const s = setup();
    const [permit] = await hold(s.limiter, 1);
    await hold(s.limiter, 1);
    permit?.release({ unused: true });
    permit?.release({ throttled: true });
    expect(s.limiter.active).toBe(1);
    expect(s.limiter.stats()).toMatchObject({ calls: 0, throttles: 0 });
    expect(s.limiter.limit).toBe(10);
  });
});

describe('AdaptiveLimiter: lanes', () => {
  /** A limiter of one permit (windows too long to matter) with that permit taken. */
  async function busy(agingMs = 1_000) {
    const s = setup({ initial: 1, windowMs: 1e9, agingMs });
    const [first] = await hold(s.limiter, 1);
    return { ...s, first: first as Permit };
  }

  it('serves realtime waiters before batch waiters that came earlier', async () => {
    const s = await busy();
    const batch = track(s.limiter.acquire('batch'));
    s.advance(10);
    const realtime = track(s.limiter.acquire('realtime'));
    s.first.release();
    await flush();
    expect(realtime.done).toBe(true);
    expect(batch.done).toBe(false);
    realtime.value?.release();
    await flush();
    expect(batch.value?.lane).toBe('batch');
    expect(s.limiter.stats().agedBatchGrants).toBe(0);
  });

  it('serves each lane first come, first served', async () => {
    const s = await busy();
    const order: string[] = [];
    for (const id of ['b1', 'r1', 'b2', 'r2']) {
      void s.limiter.acquire(id.startsWith('r') ? 'realtime' : 'batch').then((permit) => {
        order.push(id);
        permit.release(); // hands the permit to the next waiter
      });
      s.advance(1);
    }
    s.first.release();
    await flush();
    expect(order).toEqual(['r1', 'r2', 'b1', 'b2']);
  });

  it('lets a batch waiter that has waited agingMs longer go before a fresh realtime waiter', async () => {
    const s = await busy(1_000);
    const batch = track(s.limiter.acquire('batch'));
    s.advance(1_500);
    const realtime = track(s.limiter.acquire('realtime'));
    s.first.release();
    await flush();
    expect(batch.done).toBe(true);
    expect(realtime.done).toBe(false);
    expect(batch.value?.waitedMs).toBe(1_500);
    expect(s.limiter.stats().agedBatchGrants).toBe(1);
  });

  it('keeps realtime first while the batch waiter has not waited agingMs longer', async () => {
    const s = await busy(1_000);
    const batch = track(s.limiter.acquire('batch'));
    s.advance(900);
    const realtime = track(s.limiter.acquire('realtime'));
    s.advance(5_000); // both wait much longer; the realtime one still came less than 1 s after
    s.first.release();
    await flush();
    expect(realtime.done).toBe(true);
    expect(batch.done).toBe(false);
  });

  it('does not starve batch work under sustained realtime load', async () => {
    // Two permits, calls of 100 ms, and always more realtime work waiting than fits.
    const s = setup({ initial: 2, windowMs: 1e9, agingMs: 1_000 });
    const held: Permit[] = await hold(s.limiter, 2);
    const realtimeWaiters = [s.limiter.acquire('realtime'), s.limiter.acquire('realtime')];
    const batch = track(s.limiter.acquire('batch'));
    let realtimeGrants = 0;
    while (!batch.done && s.clock.t < 10_000) {
      s.advance(50);
      held.shift()?.release();
      await flush();
      if (batch.done) break;
      held.push(await (realtimeWaiters.shift() as Promise<Permit>));
      realtimeGrants++;
      realtimeWaiters.push(s.limiter.acquire('realtime'));
    }
    expect(batch.done).toBe(true);
    // Realtime work went first until the batch waiter was 1 s older than the oldest realtime
    // waiter (who had waited 100 ms): the first release after 1.1 s.
    expect(realtimeGrants).toBe(22);
    expect(batch.value?.waitedMs).toBe(1_150);
    expect(s.limiter.stats().agedBatchGrants).toBe(1);
  });

  it('withdraws a waiting request when its signal aborts', async () => {
    const s = await busy();
    const controller = new AbortController();
    const aborted = track(s.limiter.acquire('batch', { signal: controller.signal }));
    const next = track(s.limiter.acquire('batch'));
    controller.abort(new Error('lease lost'));
    await flush();
    expect((aborted.error as Error).message).toBe('lease lost');
    expect(s.limiter.waiting).toBe(1);
    s.first.release();
    await flush();
    expect(next.done).toBe(true);
    expect(s.limiter.active).toBe(1);
    await expect(s.limiter.acquire('realtime', { signal: AbortSignal.abort('gone') })).rejects.toBe('gone');
  });
});

describe('AdaptiveLimiter: onNext', () => {
  async function busy() {
    const s = setup({ initial: 1, windowMs: 1e9 });
    const [first] = await hold(s.limiter, 1);
    return { ...s, first: first as Permit };
  }

  it('is not called when a permit is free at once', async () => {
    const s = setup({ initial: 1, windowMs: 1e9 });
    let told = 0;
    await s.limiter.acquire('realtime', { onNext: () => told++ });
    expect(told).toBe(0);
  });

  it('tells each waiter once, when it becomes the next to be served, as the line moves', async () => {
    const s = await busy();
    const told: string[] = [];
    const a = track(s.limiter.acquire('realtime', { onNext: () => told.push('a') }));
    const b = track(s.limiter.acquire('realtime', { onNext: () => told.push('b') }));
    expect(told).toEqual(['a']);
    s.first.release();
    await flush();
    expect(a.done).toBe(true);
    expect(b.done).toBe(false);
    expect(told).toEqual(['a', 'b']);
    a.value?.release();
    await flush();
    expect(b.done).toBe(true);
    expect(told).toEqual(['a', 'b']);
  });

  it('tells a realtime waiter that goes ahead of the batch waiter already told', async () => {
    const s = await busy();
    const told: string[] = [];
    void s.limiter.acquire('batch', { onNext: () => told.push('batch') });
    void s.limiter.acquire('realtime', { onNext: () => told.push('realtime') });
    expect(told).toEqual(['batch', 'realtime']);
  });

  it('tells the waiter behind one that withdraws', async () => {
    const s = await busy();
    const told: string[] = [];
    const controller = new AbortController();
    const gone = track(
      s.limiter.acquire('realtime', { signal: controller.signal, onNext: () => told.push('a') }),
    );
    void s.limiter.acquire('realtime', { onNext: () => told.push('b') });
    controller.abort(new Error('lease lost'));
    await flush();
    expect(gone.error).toBeInstanceOf(Error);
    expect(told).toEqual(['a', 'b']);
  });
});

describe('AdaptiveLimiter.run', () => {
  it('fits where Semaphore.run is used', async () => {
    const { limiter } = setup();
    const gate: Pick<Semaphore, 'run'> = limiter;
    expect(await gate.run(async () => 42)).toBe(42);
    expect(limiter.active).toBe(0);
    expect(limiter.stats().granted).toEqual({ realtime: 1, batch: 0 });
  });

  it('releases the permit when the task fails and counts ThrottlingException as a throttle', async () => {
    const s = setup();
    const tasks = Array.from({ length: 10 }, (_, i) =>
      s.limiter.run(
        async () => {
          s.advance(1);
          if (i === 0) throw Object.assign(new Error('Too many requests'), { name: 'ThrottlingException' });
          if (i === 1) throw new Error('ValidationException');
          return i;
        },
        { lane: 'batch' },
      ),
    );
    const results = await Promise.allSettled(tasks);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(2);
    expect(s.limiter.active).toBe(0);
    expect(s.limiter.stats()).toMatchObject({ calls: 10, throttles: 1, granted: { batch: 10 } });
    s.clock.t = WINDOW;
    s.limiter.tick();
    expect(s.limiter.limit).toBe(7);
  });

  it('uses the given classifier', async () => {
    const s = setup();
    await expect(
      s.limiter.run(
        async () => {
          throw new Error('429');
        },
        { classify: (error) => ((error as Error).message === '429' ? 'throttle' : 'other') },
      ),
    ).rejects.toThrow('429');
    expect(s.limiter.stats().throttles).toBe(1);
  });

  it('queues tasks beyond the limit and runs them as permits free up', async () => {
    const s = setup({ initial: 2 });
    let running = 0;
    let peak = 0;
    const task = async (): Promise<void> => {
      running++;
      peak = Math.max(peak, running);
      await flush();
      running--;
    };
    await Promise.all(Array.from({ length: 7 }, () => s.limiter.run(task)));
    expect(peak).toBe(2);
    expect(s.limiter.stats().calls).toBe(7);
  });
});

describe('LimiterRegistry', () => {
  it('hands each new limiter to its sharing, and every window of it', async () => {
    const joined: string[] = [];
    const windows: string[] = [];
    const clock = { t: 0 };
    const registry = new LimiterRegistry({
      windowMs: WINDOW,
      now: () => clock.t,
      sharing: {
        join: (modelId) => joined.push(modelId),
        window: (w) => windows.push(w.name ?? ''),
      },
    });
    const a = registry.for('model-a');
    registry.for('model-a');
    registry.for('model-b');
    expect(joined).toEqual(['model-a', 'model-b']);
    (await a.acquire('realtime')).release();
    clock.t = WINDOW;
    a.tick();
    expect(windows).toEqual(['model-a']);
  });

  it('keeps one limiter per model id with per-model overrides', async () => {
    const windows: WindowSnapshot[] = [];
    let t = 0;
    const registry = new LimiterRegistry({
      initial: 4,
      windowMs: WINDOW,
      now: () => t,
      onWindow: (w) => windows.push(w),
      perModel: { 'model-b': { initial: 12 } },
    });
    const a = registry.for('model-a');
    expect(registry.for('model-a')).toBe(a);
    expect(a.limit).toBe(4);
    expect(registry.for('model-b').limit).toBe(12);
    await a.run(async () => {
      t += 10;
    });
    t = WINDOW;
    a.tick();
    expect(windows).toEqual([expect.objectContaining({ name: 'model-a', calls: 1 })]);
    expect(Object.keys(registry.stats())).toEqual(['model-a', 'model-b']);
    expect(registry.stats()['model-a']).toMatchObject({ name: 'model-a', calls: 1 });
  });
});
