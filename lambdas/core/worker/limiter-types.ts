/** The public shapes of the adaptive limiter (limiter.ts): options, permits, windows and stats. */
import type { Lane } from '../clause.js';

/** How a finished call bears on the limit. */
export type CallClass = 'throttle' | 'other';

/** What the limiter decided at the end of a window, and why. */
export type WindowDecision =
  | { readonly action: 'decrease'; readonly reason: 'throttled' }
  | { readonly action: 'increase'; readonly reason: 'clean' }
  | {
      readonly action: 'hold';
      /**
       * `no-successes`: no call finished unthrottled, so there is no latency to judge.
       * `probing`: clean at the most the model took, waiting `probeWindows` before probing above.
       */
      readonly reason: 'no-successes' | 'latency' | 'unsaturated' | 'at-bound' | 'probing';
    };

/** One evaluated window, for metrics (see `onWindow`). */
export interface WindowSnapshot {
  /** The limiter's name (the model id, for limiters from a {@link LimiterRegistry}). */
  readonly name?: string;
  /** 1 for the first evaluated window. */
  readonly index: number;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Calls that finished in the window, throttled or not. */
  readonly calls: number;
  /** Throttles that counted (of calls granted since the last decrease before them). */
  readonly throttles: number;
  /** Throttles of calls granted before the last decrease, which did not count. */
  readonly staleThrottles: number;
  /** Nearest-rank p99 of the latency of the window's calls that were not throttled. */
  readonly p99Ms?: number;
  /** Most permits in use at once during the window. */
  readonly peakActive: number;
  /** The limit when the window began. */
  readonly limitBefore: number;
  /** The limit now in force (after any decrease during the window, and the window's decision). */
  readonly limitAfter: number;
  readonly decision: WindowDecision;
}

/** Options of {@link AdaptiveLimiter}. */
export interface AdaptiveLimiterOptions {
  /** Permits at the start. @default 10 */
  readonly initial?: number;
  /** The limit never goes below this. @default 1 */
  readonly min?: number;
  /** The limit never goes above this. @default 200 */
  readonly max?: number;
  /** Added to the limit after a clean, saturated window. @default 5 */
  readonly increase?: number;
  /** A multiplicative cut multiplies the limit by this (and floors it). @default 0.7 */
  readonly decreaseFactor?: number;
  /**
   * `probe`: step down one permit per throttle as far as the last growth went, then cut; climb
   * back to just under the limit that met a throttle and probe above it one permit at a time.
   * `aimd`: every counted throttle cuts by `decreaseFactor`, every clean window adds `increase`.
   * See the module comment.
   * @default 'probe'
   */
  readonly approach?: 'probe' | 'aimd';
  /**
   * With `approach: 'probe'`, clean windows at the known limit before probing one above it;
   * doubled after each probe the model refuses at the same limit (up to 32 times), and back to
   * this once a probe passes or a throttle comes at another limit. @default 3
   */
  readonly probeWindows?: number;
  /**
   * When a throttle cuts the limit: at once (at most once per round trip, see the module
   * comment), or when its window ends.
   * @default 'throttle'
   */
  readonly decreaseOn?: 'window' | 'throttle';
  /** Length of an evaluation window. @default 5000 */
  readonly windowMs?: number;
  /**
   * The limit grows only while the window's p99 latency is under this. Set it to what a
   * healthy call of the model takes; above it the model is queueing, not serving.
   * @default no latency condition (Infinity)
   */
  readonly p99TargetMs?: number;
  /** How much longer than a realtime waiter a batch waiter waits before it goes first. @default 10000 */
  readonly agingMs?: number;
  /** Clock in milliseconds. @default performance.now */
  readonly now?: () => number;
  /** Shown in snapshots and stats. */
  readonly name?: string;
  /** Called synchronously after each evaluated window, once the new limit is in force; must not throw. */
  readonly onWindow?: (snapshot: WindowSnapshot) => void;
}

/** How a call that held a permit went. */
export interface ReleaseOutcome {
  /** The call was refused for capacity (ThrottlingException). @default false */
  readonly throttled?: boolean;
  /** The call's latency. @default the time since the permit was granted */
  readonly latencyMs?: number;
  /** No call was made after all (e.g. its budget reservation was refused): not counted. */
  readonly unused?: boolean;
}

/** The right to make one call. Release it exactly once; later releases are ignored. */
export interface Permit {
  readonly lane: Lane;
  /** Clock time at which the permit was granted. */
  readonly grantedAt: number;
  /** How long the request waited for it. */
  readonly waitedMs: number;
  release(outcome?: ReleaseOutcome): void;
}

/** Options of {@link AdaptiveLimiter.acquire}. */
export interface AcquireOptions {
  /** Aborting it withdraws a waiting request, which then rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Called once, while the request waits, when it becomes the next to be granted: the moment
   * to start work that must be fresh when the permit comes (the call's job-status read), so it
   * overlaps the wait instead of holding the permit. Not called when a permit is free at once.
   */
  readonly onNext?: () => void;
  /**
   * The owner of the call's job: within a lane, waiting calls are served fairly between owners
   * (the one with the fewest permits in use first). @default '' (one shared owner)
   */
  readonly owner?: string;
  /** The call's job: an owner's waiting calls are served fairly between its jobs. @default '' */
  readonly job?: string;
}

/** Options of {@link AdaptiveLimiter.run}. */
export interface RunOptions extends AcquireOptions {
  /** @default 'realtime' (so a limiter used without lanes serves first come, first served) */
  readonly lane?: Lane;
  /** Which errors are throttles. @default ThrottlingException by name, as `isThrottle` */
  readonly classify?: (error: unknown) => CallClass;
}

/** Counters since the limiter was created. */
export interface LimiterStats {
  readonly name?: string;
  readonly limit: number;
  readonly active: number;
  readonly waiting: Readonly<Record<Lane, number>>;
  /** Windows evaluated (quiet stretches with no permit in use are not counted). */
  readonly windows: number;
  readonly increases: number;
  readonly decreases: number;
  /** Permits released. */
  readonly calls: number;
  /** Throttled calls, stale ones included. */
  readonly throttles: number;
  /** Milliseconds permits were held, summed over the released ones (unused permits excluded). */
  readonly heldMs: number;
  readonly granted: Readonly<Record<Lane, number>>;
  /** Permits granted to a later lane (batch) while an earlier lane's (realtime) request waited, thanks to aging. */
  readonly agedBatchGrants: number;
  readonly lastWindow?: WindowSnapshot;
}
