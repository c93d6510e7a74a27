/**
 * Adaptive concurrency for model calls, with priority lanes. Bedrock does not say how much
 * concurrency a model takes; it answers ThrottlingException past its quota. The limiter
 * probes for that limit in windows of `windowMs` and holds just under it; waiters are served
 * earliest deadline first, later lanes aged in by `agingMs`, and within a lane fairly between
 * owners and their jobs (fair-queue.ts). docs/architecture.md ("The limiter in detail") gives
 * the rules and why each is so.
 *
 * @example
 * ```ts
 * const limiters = new LimiterRegistry({ p99TargetMs: 20_000 });
 * const output = await limiters
 *   .for(modelId)
 *   .run(() => bedrock.send(new ConverseCommand(input)), { lane: job.lane, owner: job.owner, job: job.jobId });
 * ```
 */
import { byLane, LANES, type Lane } from '../lanes-and-limits.js';
import { isThrottle } from './error-class.js';
import { type FairKey, FairQueue, FairShares, type FairWaiter } from './fair-queue.js';
import { LimitRule } from './limit-rule.js';
import type {
  AcquireOptions,
  AdaptiveLimiterOptions,
  CallClass,
  LimiterStats,
  Permit,
  RunOptions,
  WindowDecision,
  WindowSnapshot,
} from './limiter-types.js';

export type {
  AcquireOptions,
  AdaptiveLimiterOptions,
  CallClass,
  LimiterStats,
  Permit,
  ReleaseOutcome,
  RunOptions,
  WindowDecision,
  WindowSnapshot,
} from './limiter-types.js';

interface Waiter extends FairWaiter {
  readonly lane: Lane;
  readonly arrivedAt: number;
  /** The lane with the earliest deadline is served first (see the module comment). */
  readonly deadline: number;
  readonly grant: (permit: Permit) => void;
  onNext: (() => void) | undefined;
}

interface WindowState {
  calls: number;
  throttles: number;
  staleThrottles: number;
  latencies: number[];
  peakActive: number;
  limitAtStart: number;
}

const defaultClassify = (error: unknown): CallClass => (isThrottle(error) ? 'throttle' : 'other');

function p99(latencies: number[]): number | undefined {
  if (latencies.length === 0) return undefined;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1];
}

/**
 * An AIMD concurrency limiter for one model, with realtime and batch lanes. See the module
 * comment for the rules.
 */
export class AdaptiveLimiter {
  private readonly windowMs: number;
  private readonly decreaseOn: 'window' | 'throttle';
  private readonly agingMs: number;
  private readonly now: () => number;
  private readonly name: string | undefined;
  private readonly onWindow: ((snapshot: WindowSnapshot) => void) | undefined;
  private readonly rule: LimitRule;

  private inUse = 0;
  // Permits in use per owner and job, which the lanes' fair queues share.
  private readonly shares = new FairShares();
  private readonly queues = byLane(() => new FairQueue<Waiter>(this.shares));
  // Bumped by every decrease; a permit remembers the epoch it was granted in.
  private epoch = 0;
  // Set while the limit is being read from elsewhere (see waitFor): nothing is granted.
  private pending: Promise<void> | undefined;
  private windowStart: number;
  private window: WindowState;
  private readonly totals = {
    windows: 0,
    increases: 0,
    decreases: 0,
    calls: 0,
    throttles: 0,
    heldMs: 0,
    agedBatchGrants: 0,
    granted: byLane(() => 0),
  };
  private lastWindow: WindowSnapshot | undefined;

  constructor(options: AdaptiveLimiterOptions = {}) {
    this.rule = new LimitRule(options);
    this.windowMs = options.windowMs ?? 5000;
    this.decreaseOn = options.decreaseOn ?? 'throttle';
    this.agingMs = options.agingMs ?? 10_000;
    this.now = options.now ?? (() => performance.now());
    this.name = options.name;
    this.onWindow = options.onWindow;
    if (!(this.windowMs > 0 && Number.isFinite(this.windowMs))) {
      throw new RangeError(`limiter windowMs must be a finite number > 0; got ${this.windowMs}`);
    }
    if (!(this.agingMs >= 0 && Number.isFinite(this.agingMs))) {
      throw new RangeError(`limiter agingMs must be a finite number ≥ 0; got ${this.agingMs}`);
    }

    this.windowStart = this.now();
    this.window = this.freshWindow();
  }

  /** Permits that may be in use at once, as of the last evaluated window. */
  get limit(): number {
    return this.rule.current;
  }

  /** Permits in use. */
  get active(): number {
    return this.inUse;
  }

  /** Requests waiting for a permit, every lane. */
  get waiting(): number {
    return LANES.reduce((sum, lane) => sum + this.queues[lane].length, 0);
  }

  /**
   * Runs `task` under a permit and releases it when the task settles, reporting a throttle
   * when `classify` says the task's error is one. Without options it is a drop-in for
   * `Semaphore.run`.
   */
  async run<T>(task: () => Promise<T>, options: RunOptions = {}): Promise<T> {
    const permit = await this.acquire(options.lane ?? LANES[0], options);
    let throttled = false;
    try {
      return await task();
    } catch (error) {
      throttled = (options.classify ?? defaultClassify)(error) === 'throttle';
      throw error;
    } finally {
      permit.release({ throttled });
    }
  }

  /** Waits for a permit in `lane`. The caller must release it, with the call's outcome. */
  acquire(lane: Lane, options: AcquireOptions = {}): Promise<Permit> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.tick();
    const arrivedAt = this.now();
    const key = { owner: options.owner ?? '', job: options.job ?? '' };
    if (!this.pending && this.waiting === 0 && this.inUse < this.rule.current) {
      return Promise.resolve(this.grant(lane, arrivedAt, key));
    }
    return new Promise<Permit>((resolve, reject) => {
      const onAbort = (): void => {
        this.queues[lane].remove(waiter);
        this.announceNext();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        ...key,
        lane,
        arrivedAt,
        deadline: arrivedAt + LANES.indexOf(lane) * this.agingMs,
        grant: (permit) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(permit);
        },
        onNext: options.onNext,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queues[lane].push(waiter);
      this.announceNext();
    });
  }

  /**
   * Evaluates any window that has ended and grants what the limit allows. Acquire and release
   * do this themselves; call it from a timer only if windows must close while nothing moves
   * (e.g. to publish `onWindow` metrics on time).
   */
  tick(): void {
    this.roll();
    this.pump();
  }

  /**
   * Moves the limit to `limit` (within [min, max]) from outside the limiter's own decisions, as
   * when processes share one model's concurrency. The limit that last met a throttle moves
   * with it, and a lower limit starts a new epoch: throttles of calls granted above it are stale.
   */
  rebase(limit: number): void {
    const delta = this.rule.rebase(limit);
    if (delta === 0) return;
    if (delta < 0) this.epoch++;
    this.pump();
  }

  /** Grants nothing until `ready` settles (e.g. while the limit is read from elsewhere). */
  waitFor(ready: Promise<unknown>): void {
    const pending = ready.then(
      () => {},
      () => {},
    );
    this.pending = pending;
    void pending.then(() => {
      if (this.pending !== pending) return;
      this.pending = undefined;
      this.pump();
    });
  }

  /** Counters and the current state. */
  stats(): LimiterStats {
    return {
      ...(this.name !== undefined ? { name: this.name } : {}),
      limit: this.rule.current,
      active: this.inUse,
      waiting: byLane((lane) => this.queues[lane].length),
      windows: this.totals.windows,
      increases: this.totals.increases,
      decreases: this.totals.decreases,
      calls: this.totals.calls,
      throttles: this.totals.throttles,
      heldMs: this.totals.heldMs,
      granted: { ...this.totals.granted },
      agedBatchGrants: this.totals.agedBatchGrants,
      ...(this.lastWindow ? { lastWindow: this.lastWindow } : {}),
    };
  }

  private freshWindow(): WindowState {
    return {
      calls: 0,
      throttles: 0,
      staleThrottles: 0,
      latencies: [],
      peakActive: this.inUse,
      limitAtStart: this.rule.current,
    };
  }

  private grant(lane: Lane, arrivedAt: number, key: FairKey): Permit {
    const grantedAt = this.now();
    const epoch = this.epoch;
    this.inUse++;
    this.shares.took(key);
    this.window.peakActive = Math.max(this.window.peakActive, this.inUse);
    this.totals.granted[lane]++;
    let released = false;
    return {
      lane,
      grantedAt,
      waitedMs: grantedAt - arrivedAt,
      release: (outcome = {}) => {
        if (released) return;
        released = true;
        this.shares.gaveBack(key);
        if (outcome.unused) {
          this.inUse--;
          this.pump();
          return;
        }
        this.settle(epoch, outcome.throttled ?? false, outcome.latencyMs ?? this.now() - grantedAt);
      },
    };
  }

  private settle(epoch: number, throttled: boolean, latencyMs: number): void {
    // The call belongs to the window in which it finishes: close earlier ones first.
    this.roll();
    this.inUse--;
    this.totals.calls++;
    this.totals.heldMs += latencyMs;
    this.window.calls++;
    if (throttled) {
      this.totals.throttles++;
      if (epoch === this.epoch) {
        this.window.throttles++;
        if (this.decreaseOn === 'throttle') this.decrease();
      } else this.window.staleThrottles++;
    } else {
      this.window.latencies.push(latencyMs);
    }
    this.pump();
  }

  /**
   * The waiter served next: from the lane whose oldest waiter has the earliest deadline, a tie
   * going to the lane listed first; within the lane, the waiter fairness picks (fair-queue.ts).
   */
  private head(): Waiter | undefined {
    let best: Lane | undefined;
    let bestDeadline = Number.POSITIVE_INFINITY;
    for (const lane of LANES) {
      const deadline = this.queues[lane].earliestDeadline();
      if (deadline !== undefined && (best === undefined || deadline < bestDeadline)) {
        best = lane;
        bestDeadline = deadline;
      }
    }
    return best === undefined ? undefined : this.queues[best].peek();
  }

  private pump(): void {
    if (!this.pending) {
      for (let next = this.head(); next && this.inUse < this.rule.current; next = this.head()) {
        this.queues[next.lane].shift();
        if (LANES.some((lane) => ranksAhead(lane, next.lane) && this.queues[lane].length > 0)) {
          this.totals.agedBatchGrants++;
        }
        next.grant(this.grant(next.lane, next.arrivedAt, next));
      }
    }
    this.announceNext();
  }

  /** Tells the waiter served next that it is next (once). */
  private announceNext(): void {
    const next = this.head();
    const onNext = next?.onNext;
    if (!next || !onNext) return;
    next.onNext = undefined;
    onNext();
  }

  private roll(): void {
    const now = this.now();
    const end = this.windowStart + this.windowMs;
    if (now < end) return;
    const window = this.window;
    if (window.calls > 0 || window.peakActive > 0) this.evaluate(window, end);
    // Windows after the first that ended are empty: skip them, staying on the window grid.
    this.windowStart += Math.floor((now - this.windowStart) / this.windowMs) * this.windowMs;
    this.window = this.freshWindow();
  }

  private decrease(): void {
    this.rule.cut();
    this.epoch++;
    this.totals.decreases++;
  }

  private evaluate(window: WindowState, endedAt: number): void {
    const before = this.rule.current;
    const latency = p99(window.latencies);
    let decision: WindowDecision;
    if (window.throttles > 0) {
      decision = { action: 'decrease', reason: 'throttled' };
      if (this.decreaseOn === 'window') this.decrease();
    } else {
      decision = this.rule.judge(latency, window.peakActive);
      if (decision.action === 'increase') this.totals.increases++;
    }
    this.rule.closed(before);
    this.totals.windows++;
    const snapshot: WindowSnapshot = {
      ...(this.name !== undefined ? { name: this.name } : {}),
      index: this.totals.windows,
      startedAt: this.windowStart,
      endedAt,
      calls: window.calls,
      throttles: window.throttles,
      staleThrottles: window.staleThrottles,
      ...(latency !== undefined ? { p99Ms: latency } : {}),
      peakActive: window.peakActive,
      limitBefore: window.limitAtStart,
      limitAfter: this.rule.current,
      decision,
    };
    this.lastWindow = snapshot;
    this.onWindow?.(snapshot);
  }
}

/** True when `lane` is served before `other` (it comes earlier in `LANES`). */
function ranksAhead(lane: Lane, other: Lane): boolean {
  return LANES.indexOf(lane) < LANES.indexOf(other);
}
