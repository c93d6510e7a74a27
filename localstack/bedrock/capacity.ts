/**
 * The capacity model: concurrent requests, requests per minute and tokens per minute, the
 * quotas that make real Bedrock answer ThrottlingException. Bedrock's quotas are per model,
 * account and Region, in tokens and requests per minute
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html,
 * https://docs.aws.amazon.com/general/latest/gr/bedrock.html#limits_bedrock). A call reserves
 * its input tokens plus `maxTokens` when admitted and is corrected when it ends to its input,
 * cache writes and output times the model's burndown rate
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html); the
 * engine computes both figures, this model keeps the windows. One instance tracks one model id.
 */
import type { CapacityPlan } from './fault-plan.js';

/** Sliding window length of the tokens-per-minute and requests-per-minute quotas. */
export const TOKEN_WINDOW_MS = 60_000;

/** Why an admission was refused. */
export type ThrottleReason = 'maxInFlight' | 'requestsPerMinute' | 'tokensPerMinute';

/** An admitted call. Settle it exactly once; further calls are ignored. */
export interface CapacityLease {
  /**
   * Ends the call: frees its in-flight slot and replaces the token estimate reserved at
   * admission by what was really billed (0 when the call was not answered).
   */
  settle(billedTokens: number): void;
}

/** Result of an admission attempt. */
export type Admission =
  | { admitted: true; lease: CapacityLease }
  | { admitted: false; reason: ThrottleReason };

interface WindowEntry {
  at: number;
  tokens: number;
  expired: boolean;
}

/**
 * Tracks in-flight requests and a 60 s window of admitted requests and their tokens for one
 * model. A refused request is not counted in either window.
 *
 * A call reserves its estimated tokens when admitted, so concurrent calls see each other's
 * demand before any of them is answered (as Bedrock's quota does); the reservation is
 * corrected to the billed amount when the call settles.
 */
export class CapacityModel {
  private inFlight = 0;
  private readonly window: WindowEntry[] = [];
  private windowStart = 0;
  private windowTokens = 0;
  // Bumped by reset() so leases taken before it cannot corrupt the fresh state.
  private generation = 0;

  /** @param now clock in milliseconds; injectable so tests need not wait a minute. */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Requests currently holding a slot. */
  get currentInFlight(): number {
    return this.inFlight;
  }

  /** Requests admitted in the current 60 s window. */
  get requestsInWindow(): number {
    this.expire(this.now());
    return this.window.length - this.windowStart;
  }

  /** Tokens counted in the current 60 s window (reservations included). */
  get tokensInWindow(): number {
    this.expire(this.now());
    return this.windowTokens;
  }

  /** Admits a call with the given token estimate, or says which limit it would break. */
  tryAdmit(limits: CapacityPlan, estimatedTokens: number): Admission {
    const now = this.now();
    // Expire on every admission, limit or not, so the window cannot grow without bound.
    this.expire(now);
    if (limits.maxInFlight !== undefined && this.inFlight >= limits.maxInFlight) {
      return { admitted: false, reason: 'maxInFlight' };
    }
    if (
      limits.requestsPerMinute !== undefined &&
      this.window.length - this.windowStart >= limits.requestsPerMinute
    ) {
      return { admitted: false, reason: 'requestsPerMinute' };
    }
    if (
      limits.tokensPerMinute !== undefined &&
      this.windowTokens + estimatedTokens > limits.tokensPerMinute
    ) {
      return { admitted: false, reason: 'tokensPerMinute' };
    }
    this.inFlight++;
    const entry: WindowEntry = { at: now, tokens: estimatedTokens, expired: false };
    const generation = this.generation;
    this.window.push(entry);
    this.windowTokens += estimatedTokens;
    let settled = false;
    return {
      admitted: true,
      lease: {
        settle: (billedTokens) => {
          if (settled || generation !== this.generation) return;
          settled = true;
          this.inFlight--;
          // An entry that already left the window must not be subtracted again.
          if (!entry.expired) this.windowTokens += billedTokens - entry.tokens;
          entry.tokens = billedTokens;
        },
      },
    };
  }

  /** Forgets all state, as after `POST /_stand-in/reset`. Outstanding leases become no-ops. */
  reset(): void {
    this.generation++;
    this.inFlight = 0;
    this.window.length = 0;
    this.windowStart = 0;
    this.windowTokens = 0;
  }

  private expire(now: number): void {
    const cutoff = now - TOKEN_WINDOW_MS;
    while (this.windowStart < this.window.length) {
      const entry = this.window[this.windowStart] as WindowEntry;
      if (entry.at > cutoff) break;
      this.windowTokens -= entry.tokens;
      entry.expired = true;
      this.windowStart++;
    }
    // Compact occasionally rather than shifting on every expiry.
    if (this.windowStart > 1024 && this.windowStart * 2 > this.window.length) {
      this.window.splice(0, this.windowStart);
      this.windowStart = 0;
    }
  }
}
