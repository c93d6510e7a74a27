/**
 * AdaptiveLimiter's default approach, 'probe': growth undone one permit per throttle, holding
 * below the limit that met a throttle and probing above it, rebase, and waiting for a limit.
 */
import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter, type AdaptiveLimiterOptions } from '../../../lambdas/core/worker/limiter.js';
import { flush, loadedWindow, type Setup, setup, track } from './limiter-fixtures.js';

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
