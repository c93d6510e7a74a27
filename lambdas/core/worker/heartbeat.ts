import type { CallCounts, Claims, Lease } from '../state/claims.js';
import { isLeaseLostError } from '../state/errors.js';
import type { ChunkStop } from './chunk-stop.js';

/**
 * How often a running stage records its call counts on its checkpoint when they moved, so
 * progress moves as calls end without a write per call.
 */
export const PROGRESS_MS = 1000;

/**
 * How long a chunk's message stays invisible while a worker holds it: twice the lease. The
 * poller receives with it and the heartbeat renews it, so whenever its holder dies, at any
 * point from the receive on, the message is back within twice the lease, after the lease has
 * run out and can be taken over; never after the queue's much longer visibility timeout.
 */
export function messageHoldSeconds(leaseMs: number): number {
  return Math.ceil((leaseMs * 2) / 1000);
}

/** What a {@link Heartbeat} keeps alive and reports to. */
export interface HeartbeatOptions {
  readonly claims: Pick<Claims, 'heartbeat' | 'recordCounts'>;
  readonly lease: Lease;
  readonly leaseMs: number;
  /** Sets the message's visibility to {@link messageHoldSeconds} (ChangeMessageVisibility). */
  readonly holdMessage: () => Promise<unknown>;
  /** The stage's call counts so far; undefined before it has any. */
  readonly progress: () => CallCounts | undefined;
  /** Stopped as `lease-lost` when a write finds the lease taken over. */
  readonly stop: ChunkStop;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/**
 * Keeps a claim alive while a stage runs. Its responsibilities, each a method:
 * - {@link Heartbeat.holdMessage}: the message's visibility is brought down to twice the lease
 *   at once, so a worker dying before its first renewal leaves the message to come back within
 *   that, not after the queue's (much longer) visibility timeout;
 * - {@link Heartbeat.renew}: at a third of the lease, the lease and the message's visibility
 *   are extended, with the counts as they stand;
 * - {@link Heartbeat.report}: between renewals, the counts are recorded when they moved, at
 *   most once per {@link PROGRESS_MS};
 * - {@link Heartbeat.failed}: a write that finds the lease taken over stops the stage as
 *   `lease-lost`, so nothing more is committed under it; other failures are logged and the
 *   write is tried again at the next tick.
 * One write is in flight at a time; disposal ends it, and a refusal of a write that was in
 * flight when the stage ended is not news.
 */
export class Heartbeat implements Disposable {
  /** Between ticks: the renewal period, or the progress period when that is shorter. */
  readonly tickMs: number;
  private readonly renewEveryMs: number;
  private sinceRenewal = 0;
  /** The counts as the checkpoint last got them: none yet, which reads as nothing done. */
  private recorded: string | undefined;
  private writing: Promise<void> | undefined;
  private ended = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly o: HeartbeatOptions) {
    this.renewEveryMs = Math.max(1000, Math.floor(o.leaseMs / 3));
    this.tickMs = Math.min(this.renewEveryMs, PROGRESS_MS);
  }

  /** Holds the message at once, then ticks until disposed of. */
  start(): this {
    this.holdMessage();
    this.timer = setInterval(() => void this.tick(), this.tickMs);
    this.timer.unref?.();
    return this;
  }

  /**
   * One tick of the timer: a renewal when one is due, else the counts when they moved, else
   * nothing. Returns the write started, if any.
   */
  tick(): Promise<void> | undefined {
    this.sinceRenewal += this.tickMs;
    if (this.writing || this.ended || this.o.stop.endsRequests) return undefined;
    const counts = this.o.progress();
    const shown = JSON.stringify(counts);
    const renew = this.sinceRenewal >= this.renewEveryMs;
    if (!renew && (shown === this.recorded || !Object.values(counts ?? {}).some((n) => n > 0))) {
      return undefined;
    }
    this.writing = (renew ? this.renew(counts) : this.report(counts))
      .then(() => {
        this.recorded = shown;
      })
      .catch((error: unknown) => this.failed(error))
      .finally(() => {
        this.writing = undefined;
      });
    return this.writing;
  }

  /** Brings the message's visibility to twice the lease. */
  holdMessage(): void {
    this.o.holdMessage().catch((error: unknown) => this.failed(error));
  }

  /** Extends the lease, then the message's visibility. */
  async renew(counts: CallCounts | undefined): Promise<void> {
    await this.o.claims.heartbeat(this.o.lease, this.o.leaseMs, counts);
    this.sinceRenewal = 0;
    await this.o.holdMessage();
  }

  /** Records the stage's counts so far. */
  async report(counts: CallCounts | undefined): Promise<void> {
    if (counts) await this.o.claims.recordCounts(this.o.lease, counts);
  }

  /** A write that failed: a lost lease stops the stage; either way it is logged. */
  failed(error: unknown): void {
    if (this.ended) return;
    if (isLeaseLostError(error)) this.o.stop.stop('lease-lost', error);
    const { lease } = this.o;
    this.o.log?.('heartbeat-failed', { jobId: lease.jobId, chunk: lease.chunk, error: String(error) });
  }

  [Symbol.dispose](): void {
    this.ended = true;
    clearInterval(this.timer);
  }
}
