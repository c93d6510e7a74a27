import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type BackoffPolicy,
  backoffSleep,
  DEFAULT_BACKOFF,
  fullJitterDelay,
  mayRetry,
} from '../../../lambdas/core/worker/backoff.js';
import { seededRandom } from '../../helpers/random.js';

const JUST_BELOW_ONE = 1 - 2 ** -40;

describe('DEFAULT_BACKOFF', () => {
  it('is the documented policy: 1 s, 2 s, 4 s ceilings, 30 s total cap, fallback after 2 throttles', () => {
    expect(DEFAULT_BACKOFF).toEqual({
      baseMs: 1000,
      maxRetries: 3,
      totalCapMs: 30_000,
      throttlesBeforeFallback: 2,
    });
  });
});

describe('fullJitterDelay', () => {
  it('doubles its ceiling with each retry: 1 s, 2 s, 4 s', () => {
    expect([0, 1, 2].map((retry) => fullJitterDelay(retry, DEFAULT_BACKOFF, () => 0.5))).toEqual([
      500, 1000, 2000,
    ]);
  });

  it('can wait not at all, and stays below base × 2^retry', () => {
    for (const retry of [0, 1, 2, 5]) {
      const ceiling = DEFAULT_BACKOFF.baseMs * 2 ** retry;
      expect(fullJitterDelay(retry, DEFAULT_BACKOFF, () => 0)).toBe(0);
      const top = fullJitterDelay(retry, DEFAULT_BACKOFF, () => JUST_BELOW_ONE);
      expect(top).toBeLessThanOrEqual(ceiling);
      expect(top).toBeGreaterThanOrEqual(ceiling - 1);
    }
  });

  it('is a whole number of milliseconds', () => {
    expect(Number.isInteger(fullJitterDelay(1, DEFAULT_BACKOFF, () => 0.123456))).toBe(true);
  });

  it('spreads callers over the whole range rather than lock-stepping them (seeded)', () => {
    const random = seededRandom(42);
    const delays = Array.from({ length: 2000 }, () => fullJitterDelay(2, DEFAULT_BACKOFF, random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThanOrEqual(4000);
    // Every tenth of the range is hit, and none holds more than twice its share.
    const buckets = new Array<number>(10).fill(0);
    for (const d of delays) buckets[Math.min(9, Math.floor(d / 400))]++;
    for (const n of buckets) {
      expect(n).toBeGreaterThan(100);
      expect(n).toBeLessThan(400);
    }
  });
});

describe('mayRetry', () => {
  it('allows at most maxRetries retries', () => {
    expect([0, 1, 2, 3].map((done) => mayRetry(done, 0, 0, DEFAULT_BACKOFF))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('never lets a retry start later than the total cap after the first attempt', () => {
    expect(mayRetry(0, 29_000, 1000, DEFAULT_BACKOFF)).toBe(true);
    expect(mayRetry(0, 29_000, 1001, DEFAULT_BACKOFF)).toBe(false);
    expect(mayRetry(1, 31_000, 0, DEFAULT_BACKOFF)).toBe(false);
  });

  it('with the default policy, the whole retry schedule fits inside the cap', () => {
    // Worst case: every call takes no time and every delay hits its ceiling.
    let elapsed = 0;
    let retries = 0;
    for (;;) {
      const delay = fullJitterDelay(retries, DEFAULT_BACKOFF, () => JUST_BELOW_ONE);
      if (!mayRetry(retries, elapsed, delay, DEFAULT_BACKOFF)) break;
      elapsed += delay;
      retries++;
    }
    expect(retries).toBe(3);
    expect(elapsed).toBeLessThanOrEqual(7000);
  });

  it('stops a long policy at the total cap, not at its retry count', () => {
    const patient: BackoffPolicy = { ...DEFAULT_BACKOFF, maxRetries: 20 };
    let elapsed = 0;
    let retries = 0;
    for (;;) {
      const delay = fullJitterDelay(retries, patient, () => 0.5);
      if (!mayRetry(retries, elapsed, delay, patient)) break;
      elapsed += delay;
      retries++;
    }
    // 0.5 s + 1 s + 2 s + 4 s + 8 s = 15.5 s; the next (16 s) would end at 31.5 s.
    expect(retries).toBe(5);
    expect(elapsed).toBe(15_500);
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for a seed and differs between seeds', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
  });

  it('stays in [0, 1)', () => {
    const r = seededRandom(123);
    for (let i = 0; i < 10_000; i++) {
      const x = r();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});

describe('backoffSleep', () => {
  afterEach(() => vi.useRealTimers());

  it('waits the delay, and ends at once when the chunk stops, removing its listener', async () => {
    vi.useFakeTimers();
    let done = false;
    void backoffSleep(1000).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toBe(true);

    const stop = new AbortController();
    const remove = vi.spyOn(stop.signal, 'removeEventListener');
    const waiting = backoffSleep(60_000, stop.signal);
    stop.abort();
    await waiting;
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('does not wait at all once the chunk has stopped', async () => {
    vi.useFakeTimers();
    await backoffSleep(60_000, AbortSignal.abort());
    expect(vi.getTimerCount()).toBe(0);
  });
});
