/**
 * AdaptiveLimiter's mechanics, on the classic AIMD approach: the limit (growth after clean,
 * saturated windows, cuts on throttles, bounds, window snapshots), permits released unused, and
 * `run`. The probe approach, the lanes and the registry have files of their own (limiter-*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter } from '../../../lambdas/core/worker/limiter.js';
import type { Semaphore } from '../../../lambdas/core/worker/semaphore.js';
import { flush, hold, loadedWindow, setup, track, WINDOW } from './limiter-fixtures.js';

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
