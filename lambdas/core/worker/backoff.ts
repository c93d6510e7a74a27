/** Tier-1 retry policy: full-jitter exponential backoff on transient errors. */
export interface BackoffPolicy {
  /** First retry waits up to this long; each later one doubles it. @default 1000 */
  readonly baseMs: number;
  /** Retries after the first attempt (1 s, 2 s, 4 s ceilings). @default 3 */
  readonly maxRetries: number;
  /** No retry starts later than this after the first attempt. @default 30000 */
  readonly totalCapMs: number;
  /** Consecutive throttles of the primary model before switching to the fallback. @default 2 */
  readonly throttlesBeforeFallback: number;
}

/** The tier-1 policy (docs/architecture.md, "Two-tier retry"). */
export const DEFAULT_BACKOFF: BackoffPolicy = {
  baseMs: 1000,
  maxRetries: 3,
  totalCapMs: 30_000,
  throttlesBeforeFallback: 2,
};

/**
 * The wait before retry number `retry` (0 for the first retry): uniformly random in
 * [0, base × 2^retry] ("full jitter"), which spreads a burst of throttled callers apart
 * instead of making them collide again in lock-step.
 *
 * @example
 * fullJitterDelay(2, DEFAULT_BACKOFF, () => 0.5); // 2000 (half of the 4 s ceiling)
 */
export function fullJitterDelay(retry: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = policy.baseMs * 2 ** retry;
  return Math.floor(random() * ceiling);
}

/**
 * Whether another retry may start: retries left, and the wait would not push the retry past
 * the total cap measured from the first attempt.
 */
export function mayRetry(
  retriesDone: number,
  elapsedMs: number,
  delayMs: number,
  policy: BackoffPolicy,
): boolean {
  return retriesDone < policy.maxRetries && elapsedMs + delayMs <= policy.totalCapMs;
}

/** The wait before a retry: `ms`, or less when `signal` aborts (the chunk stopped), never rejecting. */
export function backoffSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
