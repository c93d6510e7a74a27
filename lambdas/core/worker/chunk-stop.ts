import { setMaxListeners } from 'node:events';
import { guardOf } from '../error-guard.js';
import type { UnstartedReason } from '../state/claims.js';

/**
 * Why a chunk run stops starting calls:
 * - `cancelled`: the job was cancelled;
 * - `paused`: the job was paused (not an end: the calls left are made after its resume);
 * - `ceiling`: the job's cost ceiling is reached;
 * - `lease-lost`: another worker may hold the chunk now, so nothing more is committed;
 * - `deadline`: the process is out of time (it is shutting down).
 */
export const STOP_REASONS = ['cancelled', 'paused', 'ceiling', 'lease-lost', 'deadline'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * The reasons that also end requests in flight. A cancel, a pause or the ceiling let started
 * calls finish (they are reserved and billed); a lost lease or the process's end do not.
 */
const ENDS_REQUESTS: ReadonlySet<StopReason> = new Set(['lease-lost', 'deadline']);

/**
 * What a call left unstarted by a stop records: the ceiling as `budget`, a cancel as such. A
 * pause is not an end: the calls it leaves are made after the resume, so they are not recorded.
 */
export function unstartedReason(
  why: Exclude<StopReason, 'lease-lost' | 'deadline'>,
): UnstartedReason | 'paused' {
  return why === 'ceiling' ? 'budget' : why;
}

/** The reason a chunk run's stop signal carries. */
export class ChunkStopped extends Error {
  override readonly name = 'ChunkStopped';

  constructor(
    readonly reason: StopReason,
    options?: ErrorOptions,
  ) {
    super(`chunk run stopped: ${reason}`, options);
  }
}

export const isChunkStopped = guardOf(ChunkStopped);

/**
 * The one stop signal of a chunk run. Whoever stops the run (a call that finds the job
 * cancelled, paused or at its ceiling, the heartbeat that finds the lease lost, the process
 * shutting down) aborts it once with a typed {@link ChunkStopped}; the first reason stands.
 * Waits (budget, permit, backoff) listen to the signal itself; a request in flight listens
 * through {@link ChunkStop.request}, which ends it only for the reasons that end requests.
 */
export class ChunkStop {
  private readonly controller = new AbortController();
  /** Requests in flight, ended when the run stops for a reason that ends them. */
  private readonly requests = new Set<AbortController>();
  /** The first stop that ends requests; it may come after one that does not (a cancel). */
  private ending: ChunkStopped | undefined;

  constructor() {
    // Every call of the chunk waits on the signal at once (limiter, backoff sleeps).
    setMaxListeners(0, this.controller.signal);
  }

  /** Aborted once no further call may start; its reason is a {@link ChunkStopped}. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Stops the run for `reason`; the first reason stands. A reason that ends requests also
   * ends those in flight, even after the run stopped for one that does not.
   */
  stop(reason: StopReason, cause?: unknown): void {
    const stopped = new ChunkStopped(reason, cause === undefined ? undefined : { cause });
    if (ENDS_REQUESTS.has(reason) && !this.ending) {
      this.ending = stopped;
      for (const request of this.requests) request.abort(stopped);
    }
    if (!this.controller.signal.aborted) this.controller.abort(stopped);
  }

  /** Why the run stopped, read from the signal; undefined while it runs. */
  get reason(): StopReason | undefined {
    const why: unknown = this.controller.signal.reason;
    return isChunkStopped(why) ? why.reason : undefined;
  }

  /** True once requests in flight are ended: the lease is lost, or the process is ending. */
  get endsRequests(): boolean {
    return this.ending !== undefined;
  }

  /** Stops the run for `reason` when `signal` aborts (the process shutting down). */
  follow(signal: AbortSignal | undefined, reason: StopReason): Disposable {
    const on = () => this.stop(reason, signal?.reason);
    if (signal?.aborted) on();
    else signal?.addEventListener('abort', on, { once: true });
    return { [Symbol.dispose]: () => signal?.removeEventListener('abort', on) };
  }

  /**
   * The signal of one request: aborted after `timeoutMs`, or when the run stops for a reason
   * that ends requests in flight. Disposing of it forgets the request.
   */
  request(timeoutMs: number): Disposable & { readonly signal: AbortSignal } {
    const request = new AbortController();
    if (this.ending) request.abort(this.ending);
    else this.requests.add(request);
    return {
      signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]),
      [Symbol.dispose]: () => this.requests.delete(request),
    };
  }
}
