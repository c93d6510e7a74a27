/**
 * The limiter's rule for one model's limit: how far a throttle cuts it and how a clean window
 * grows it, probing one above the most the model took now and then (docs/architecture.md, "The
 * limiter in detail"). The queue, the windows and the epochs are the limiter's (limiter.ts); this
 * holds only the limit and what it remembers of the last throttle.
 */
import type { AdaptiveLimiterOptions, WindowDecision } from './limiter-types.js';

/** Probes refused in a row stretch the wait before the next to at most 2^this × probeWindows windows. */
const MAX_PROBE_DOUBLINGS = 5;

function checkInteger(name: string, value: number, least: number): void {
  if (!Number.isInteger(value) || value < least) {
    throw new RangeError(`limiter ${name} must be an integer ≥ ${least}; got ${value}`);
  }
}

export class LimitRule {
  private readonly min: number;
  private readonly max: number;
  private readonly increase: number;
  private readonly decreaseFactor: number;
  private readonly approach: 'probe' | 'aimd';
  private readonly probeWindows: number;
  private readonly p99TargetMs: number;

  /** Permits that may be in use at once. */
  current: number;
  // 'probe': the limit at which the last counted throttle came, the steps down left before a
  // throttle cuts, and the clean windows spent at one below that limit since.
  private throttledAt: number | undefined;
  private stepsLeft = 1;
  private cleanNearCeiling = 0;
  // Probes refused in a row at the same limit: each doubles the clean windows before the next.
  private failedProbes = 0;

  constructor(options: AdaptiveLimiterOptions) {
    this.min = options.min ?? 1;
    this.max = options.max ?? 200;
    this.current = options.initial ?? 10;
    this.increase = options.increase ?? 5;
    this.decreaseFactor = options.decreaseFactor ?? 0.7;
    this.approach = options.approach ?? 'probe';
    this.probeWindows = options.probeWindows ?? 3;
    this.p99TargetMs = options.p99TargetMs ?? Number.POSITIVE_INFINITY;

    checkInteger('min', this.min, 1);
    checkInteger('max', this.max, this.min);
    checkInteger('increase', this.increase, 1);
    checkInteger('probeWindows', this.probeWindows, 1);
    if (!Number.isInteger(this.current) || this.current < this.min || this.current > this.max) {
      throw new RangeError(
        `limiter initial must be an integer in [${this.min}, ${this.max}]; got ${this.current}`,
      );
    }
    if (!(this.decreaseFactor > 0 && this.decreaseFactor < 1)) {
      throw new RangeError(`limiter decreaseFactor must be in (0, 1); got ${this.decreaseFactor}`);
    }
    if (!(this.p99TargetMs > 0)) {
      throw new RangeError(`limiter p99TargetMs must be > 0; got ${this.p99TargetMs}`);
    }
  }

  /** A counted throttle: one step down while steps are left ('probe'), else a multiplicative cut. */
  cut(): void {
    if (this.approach === 'probe') {
      // A throttle at the very limit the last one met is a probe the model refused again.
      this.failedProbes =
        this.throttledAt === this.current ? Math.min(MAX_PROBE_DOUBLINGS, this.failedProbes + 1) : 0;
      this.throttledAt = this.current;
      this.cleanNearCeiling = 0;
    }
    if (this.approach === 'probe' && this.stepsLeft > 0) {
      this.stepsLeft--;
      this.current = Math.max(this.min, this.current - 1);
    } else {
      this.current = Math.max(this.min, Math.floor(this.current * this.decreaseFactor));
    }
  }

  /**
   * Moves the limit to `limit` (within [min, max]) from outside; the limit that last met a
   * throttle moves with it. Returns the change.
   */
  rebase(limit: number): number {
    const next = Math.min(this.max, Math.max(this.min, Math.round(limit)));
    const delta = next - this.current;
    if (this.throttledAt !== undefined) this.throttledAt += delta;
    this.current = next;
    return delta;
  }

  /**
   * What a window without a counted throttle does to the limit, given its calls' p99 latency
   * (undefined when none succeeded) and the most permits it had in use at once.
   */
  judge(p99Ms: number | undefined, peakActive: number): WindowDecision {
    const before = this.current;
    if (p99Ms === undefined) return { action: 'hold', reason: 'no-successes' };
    if (p99Ms >= this.p99TargetMs) return { action: 'hold', reason: 'latency' };
    if (peakActive < before) return { action: 'hold', reason: 'unsaturated' };
    if (before >= this.max) return { action: 'hold', reason: 'at-bound' };
    const grown = Math.min(this.max, this.grown(before));
    if (grown <= before) return { action: 'hold', reason: 'probing' };
    this.current = grown;
    return { action: 'increase', reason: 'clean' };
  }

  /**
   * After a window closes at `before`: a throttle in the next may undo, one permit at a time,
   * what this one added (or one permit, when it added nothing); past that it cuts.
   */
  closed(before: number): void {
    this.stepsLeft = Math.max(1, this.current - before);
  }

  /** The limit after a clean, saturated window below `max`. */
  private grown(before: number): number {
    const ceiling = this.throttledAt === undefined ? undefined : this.throttledAt - 1;
    if (this.approach === 'aimd' || ceiling === undefined) return before + this.increase;
    if (before >= ceiling + this.increase) {
      // Probes have gone well past the last throttle: the model takes more now. Grow as at first.
      this.throttledAt = undefined;
      return before + this.increase;
    }
    if (before < ceiling)
      return Math.min(ceiling, before + Math.max(this.increase, Math.ceil((ceiling - before) / 2)));
    // A clean window above the limit that met the throttle: the last probe passed.
    if (before > ceiling) this.failedProbes = 0;
    // At the most the model took: probe one above it now and then, less often after each probe
    // the model refused (each costs a throttle, and on Bedrock a backoff and quota).
    this.cleanNearCeiling++;
    if (this.cleanNearCeiling < this.probeWindows * 2 ** this.failedProbes) return before;
    this.cleanNearCeiling = 0;
    return before + 1;
  }
}
