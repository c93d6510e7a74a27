/**
 * What the AdaptiveLimiter tests (limiter*.test.ts) share: a limiter on a clock the test moves
 * by hand, and helpers that hold permits, follow waiters and run whole windows of load.
 */
import type { Lane } from '../../../lambdas/core/clause.js';
import {
  AdaptiveLimiter,
  type AdaptiveLimiterOptions,
  type Permit,
  type WindowSnapshot,
} from '../../../lambdas/core/worker/limiter.js';

export const WINDOW = 5_000;

/**
 * A limiter on a clock the test moves by hand; windows start at t = 0. The classic AIMD
 * approach unless the test asks for another: most tests here are about its mechanics.
 */
export function setup(options: AdaptiveLimiterOptions = {}) {
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

export type Setup = ReturnType<typeof setup>;

/** Lets granted waiters' promise callbacks run. */
export const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Follows a promise without awaiting it, to see whether (and how) it has settled. */
export function track<T>(promise: Promise<T>): { readonly done: boolean; value?: T; error?: unknown } {
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

export async function hold(limiter: AdaptiveLimiter, n: number, lane: Lane = 'realtime'): Promise<Permit[]> {
  const permits: Permit[] = [];
  for (let i = 0; i < n; i++) permits.push(await limiter.acquire(lane));
  return permits;
}

/**
 * One window of full load from the current time: the whole limit is taken, the calls last
 * `latencyMs` (the first `throttled` of them throttled), then the clock moves to the next
 * window boundary and the limiter evaluates it.
 */
export async function loadedWindow(
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
