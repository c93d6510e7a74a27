import type { AllotmentMove, Allotments } from '../state/allotments.js';
import type { Lease } from '../state/claims.js';
import { isPaused, type Job } from '../state/job.js';

/** How many `contendedWaitMs` a chunk waits at most for room other chunks hold. */
const CONTENDED_WAITS = 4;
/** The first pause before asking the job again for room other chunks hold, doubled each time. */
const POLL_FIRST_MS = 100;
/** The longest such pause (before jitter). */
const POLL_CAP_MS = 2_000;

/** Why a chunk cannot reserve more: the ceiling is reached, or the job stopped running. */
export type BudgetRefusal = 'budget' | 'paused' | 'stopped';

/** Options of {@link ChunkBudget}. */
export interface ChunkBudgetOptions {
  readonly allotments: Allotments;
  readonly lease: Lease;
  readonly job: Pick<Job, 'jobId' | 'ceilingMicros' | 'budgetExceededAt'> & {
    readonly costCommitted?: number;
  };
  /** Records the reached ceiling on the job. */
  readonly markBudgetExceeded: () => Promise<void>;
  /** Calls of this chunk that may still reserve (each call's first attempt). */
  readonly callsLeft: () => number;
  /** How many calls' worst case one allotment covers at most. @default 48 */
  readonly callsPerAllotment?: number;
  /** How long room held by other chunks' allotments is waited for, times four at most. */
  readonly contendedWaitMs: number;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly random: () => number;
  /**
   * Told when a move would have taken the allotment below zero: the chunk spent more than it
   * held. It never should (every call reserves its worst case first); the move is written so the
   * allotment ends at zero and the excess is committed on the job, and this reports the defect.
   */
  readonly onOverdraw?: (overdrawn: number, move: AllotmentMove) => void;
}

/**
 * A chunk lease's share of the job's budget, held in memory. Calls reserve their worst case
 * against it with no request at all; an answered call replaces its reservation with its actual
 * cost. When it runs short it takes more from the job in one conditional write (one at a time
 * for the whole chunk), first accounting what it spent so far. What is left returns when the
 * lease ends ({@link ChunkBudget.closing}).
 *
 * A take asks for the worst case of the chunk's next calls, at most `callsPerAllotment`, and at
 * most a quarter of the room left (as the job showed it at claim, then as the job's refusals
 * show it), but four calls' worth if the room has that, so that the chunks running at once
 * share what is left under the ceiling instead of the first ones taking it all.
 *
 * Near the ceiling, a chunk refused room waits first for its own calls in flight (an answered
 * call frees most of its worst case for the next one, with no write), then gives back what it
 * holds unused and waits, asking less and less often, for room other chunks hold. The ceiling
 * is recorded when what is spent leaves no room for the call, when nobody else holds any, or
 * after four `contendedWaitMs` without a reservation.
 */
export class ChunkBudget {
  /** Allotment held: taken, less released, less spent already accounted to the job. */
  private held = 0;
  /** Of `held`: reserved by calls in flight, plus spent and not yet accounted. */
  private used = 0;
  /** Spent and not yet accounted to the job. */
  private spent = 0;
  private refused: BudgetRefusal | undefined;
  private topUp: Promise<void> | undefined;
  /** When the chunk first found the room short, since its last reservation. */
  private shortSince: number | undefined;
  private settleWaiters: (() => void)[] = [];

  constructor(private readonly o: ChunkBudgetOptions) {
    // The job as read at claim time already records the ceiling: no take can succeed, so none
    // is asked for, and the chunk's calls are recorded unstarted without a write on the job.
    if (o.job.budgetExceededAt) this.refused = 'budget';
  }

  /** Reserves a call's worst case, taking more allotment when needed. */
  async reserve(
    estimate: number,
    signal?: AbortSignal,
  ): Promise<{ ok: true } | { ok: false; why: BudgetRefusal }> {
    for (;;) {
      if (this.refused) return { ok: false, why: this.refused };
      if (this.held - this.used >= estimate) {
        this.used += estimate;
        this.shortSince = undefined;
        return { ok: true };
      }
      this.topUp ??= this.take(estimate, signal).finally(() => {
        this.topUp = undefined;
      });
      await this.topUp;
      if (signal?.aborted && !this.refused) return { ok: false, why: 'stopped' };
    }
  }

  /** An answered attempt: its reservation becomes its actual cost. */
  settle(estimate: number, actual: number): void {
    this.used += actual - estimate;
    this.spent += actual;
    this.wakeSettleWaiters();
  }

  /** Micro-dollars reserved by attempts whose outcome is not yet known. */
  get reserved(): number {
    return this.used - this.spent;
  }

  /** An attempt that was not billed (refused, throttled, failed): its reservation is free again. */
  release(estimate: number): void {
    this.used -= estimate;
    this.wakeSettleWaiters();
  }

  /** The move that returns everything the lease holds (every call has settled by then). */
  closing(): AllotmentMove {
    return this.fit({ spent: this.spent, release: Math.max(0, this.held - this.spent), take: 0 });
  }

  /** Once {@link closing} has been written. */
  closed(): void {
    this.held = 0;
    this.used = 0;
    this.spent = 0;
  }

  private async take(estimate: number, signal?: AbortSignal): Promise<void> {
    const o = this.o;
    this.shortSince ??= o.now();
    // The job as read at claim time tells the room left, so that the first take is a share of
    // it too (it may be stale: the write's condition is what holds the ceiling).
    let room =
      o.job.costCommitted === undefined
        ? Number.POSITIVE_INFINITY
        : o.job.ceilingMicros - o.job.costCommitted;
    for (let polls = 0; ; ) {
      // The chunk's next calls, but within a share of the room left, and never less than a few
      // calls' worth while the room allows: near the ceiling, takes of one call at a time would
      // cost a job-item write per call.
      const need = estimate * Math.min(Math.max(o.callsLeft(), 1), o.callsPerAllotment ?? 48);
      const share = Math.max(Math.floor(room / 4), estimate * 4);
      const want = Math.max(estimate, Math.min(need, room, share));
      // Money spent so far is accounted in the same write, so the job sees it at once.
      const move = this.fit({ spent: this.spent, release: 0, take: want });
      const r = await o.allotments.move(o.lease, move, o.job);
      if (r.ok) {
        this.account(move);
        return;
      }
      const job = r.job;
      if (job?.status !== 'running') {
        this.refused = isPaused(job) ? 'paused' : 'stopped';
        return;
      }
      if (job.budgetExceededAt) {
        this.refused = 'budget';
        return;
      }
      room = job.ceilingMicros - job.costCommitted;
      if (room >= estimate) continue;
      // Room is short. This chunk's own calls in flight settle far below their reservations and
      // free what the next call needs without a write: wait for one of them first.
      if (this.reserved > 0) {
        await this.nextSettle(signal);
        return;
      }
      // Give back what this chunk holds unused, so that chunks waiting on one another cannot all
      // sit on small remainders.
      const heldAtRead = this.held;
      let spent = job.costSpent;
      if (this.held > this.used || this.spent > 0) {
        const giveBack = await this.giveBack(this.held - this.used);
        room += giveBack.release;
        spent += giveBack.spent;
        if (room >= estimate) continue;
      }
      // The ceiling is reached when the money already spent leaves no room for this call, or
      // when nobody else holds any: other chunks' allotments are mostly reservations of calls
      // in flight, which settle far below them and come back as those chunks end.
      const heldByOthers = job.costReserved - heldAtRead > 0;
      const spentOut = spent + estimate > job.ceilingMicros;
      const waited = o.now() - this.shortSince;
      if (!heldByOthers || spentOut || waited > CONTENDED_WAITS * o.contendedWaitMs || signal?.aborted) {
        await o.markBudgetExceeded();
        this.refused = 'budget';
        return;
      }
      // Other chunks' allotments hold the room: they return what they do not spend. The job is
      // asked again soon at first, then less often, so that many waiting chunks do not crowd
      // the job's item with refused writes.
      const pause = Math.min(POLL_CAP_MS, POLL_FIRST_MS * 2 ** polls++);
      await o.sleep(pause + Math.floor(o.random() * pause), signal);
      room = Number.POSITIVE_INFINITY;
    }
  }

  /** Resolves when one of this chunk's attempts settles or is released, or on `signal`. */
  private nextSettle(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.settleWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wakeSettleWaiters(): void {
    const waiters = this.settleWaiters;
    this.settleWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Hands back `release` of what the chunk holds unused, accounting what it spent. What goes
   * back is out of the calls' reach from the moment it is asked for: a call reserving while the
   * write is in flight would otherwise be sent on money the job has taken back, and its cost
   * would later take the allotment below zero.
   */
  private async giveBack(release: number): Promise<AllotmentMove> {
    const move = this.fit({ spent: this.spent, release, take: 0 });
    const withheld = Math.max(0, move.release);
    this.used += withheld;
    try {
      await this.o.allotments.move(this.o.lease, move, this.o.job);
    } finally {
      this.used -= withheld;
    }
    this.account(move);
    return move;
  }

  /**
   * The move as written: one that would take the allotment below zero (spent beyond what was
   * held) is reported and turned into one that ends at zero, the excess committed on the job
   * by a negative release, so the money spent is accounted and no allotment is left overdrawn.
   */
  private fit(move: AllotmentMove): AllotmentMove {
    const after = this.held + move.take - move.release - move.spent;
    if (after >= 0) return move;
    this.o.onOverdraw?.(-after, move);
    return { ...move, release: move.release + after };
  }

  private account(move: AllotmentMove): void {
    this.held += move.take - move.release - move.spent;
    this.used -= move.spent;
    this.spent -= move.spent;
  }
}
