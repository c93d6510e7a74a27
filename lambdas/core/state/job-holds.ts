import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isWriteRefused } from './errors.js';
import { type Job, type JobStatus, Jobs } from './jobs.js';
import { OwnerSlots, sendReleasingChange } from './owner-slots.js';
import { type StatusChangeFields, statusChange } from './status-change.js';

/** How long a review may take when the job names no other. */
export const DEFAULT_REVIEW_HOURS = 72;

/**
 * The fields that end a job's pause, with its next status change: the deadline and `pausedMs`
 * move by the time since `pausedAt` (a wait for the owner's slot after a resume included), and
 * `pausedAt` and `pausedBy` go, conditioned on the pause this caller read, so of two callers
 * only one moves the deadline.
 */
export function pauseEnd(
  job: Pick<Job, 'deadline' | 'pausedMs'>,
  pausedAt: string,
  now: number,
): StatusChangeFields {
  const pausedFor = Math.max(0, now - Date.parse(pausedAt));
  return {
    set: { deadline: job.deadline + pausedFor, pausedMs: (job.pausedMs ?? 0) + pausedFor },
    remove: ['pausedAt', 'pausedBy'],
    condition: 'pausedAt = :seenPause',
    values: { ':seenPause': pausedAt },
  };
}

/** A status change that happened, or the job as it was when the change did not apply. */
export type Flip =
  /** `gaveBackSlot`: the change gave back the job's slot of its owner (owner-slots.ts). */
  | { readonly changed: true; readonly job: Job; readonly gaveBackSlot?: true }
  | { readonly changed: false; readonly job: Job };

/**
 * The two ways a person holds a job: a pause (`running` ⇄ `paused`) and a review gate
 * (`running` → `awaiting_review` → report). Each change is one conditional UpdateItem on the
 * job item, so of two racing callers exactly one changes the job, and a cancel recorded first
 * always wins (a cancelled job is never paused, resumed or put up for review).
 */
export class JobHolds {
  private readonly jobs: Jobs;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {
    this.jobs = new Jobs(db, tableName, now);
  }

  /**
   * `running` → `paused`: no new model call starts; chunks in flight stop at their next check.
   * A job whose chunks have all ended and whose report is on its way (finalize enqueued) has no
   * call left to hold and is not paused: finalize would not finish a paused job, and its one
   * message would be spent.
   */
  pause(jobId: string, by: string): Promise<Flip> {
    const at = this.iso();
    return this.flip(jobId, ['running'], 'paused', {
      set: { pausedAt: at, pausedBy: by },
      condition: 'attribute_not_exists(finalizedAt) AND attribute_not_exists(finalizeEnqueuedAt)',
    });
  }

  /**
   * `paused` → `running`. The deadline moves by the time spent paused, so a pause never eats
   * into the time the job's work has. An owner's job takes one of the owner's slots again in the
   * same transaction (its pause gave its slot back); when the owner has as many jobs running as
   * its cap, the job waits `queued`, still paused (`pausedAt` kept, so the wait does not count
   * against its deadline either), and starts as its owner's queued jobs do (`startQueued`).
   */
  async resume(jobId: string): Promise<Flip> {
    const job = await this.jobs.get(jobId);
    if (job.status !== 'paused' || !job.pausedAt) return { changed: false, job };
    const resumed = pauseEnd(job, job.pausedAt, this.now());
    if (!job.owner) return this.flip(jobId, ['paused'], 'running', resumed);
    const took = await new OwnerSlots(this.db, this.tableName, this.now).take(
      jobId,
      job.owner,
      'paused',
      undefined,
      resumed,
    );
    if (took === 'running') return { changed: true, job: await this.jobs.get(jobId) };
    if (took === 'moved') return { changed: false, job: await this.jobs.get(jobId) };
    // Queued on the same pause this caller read; the pause itself goes on.
    const { condition, values } = resumed;
    return this.flip(jobId, ['paused'], 'queued', {
      stamp: ['queuedAt'],
      owner: job.owner,
      condition,
      values,
    });
  }

  /**
   * `running` → `awaiting_review`, by finalize when a gated finding waits for a person; the
   * review deadline starts now. `approverGroups` are the groups escalated findings wait for:
   * their members may then see the job and decide those findings.
   */
  awaitReview(
    job: Pick<Job, 'jobId' | 'reviewHours'>,
    gatedFindings: number,
    approverGroups: readonly string[] = [],
  ): Promise<Flip> {
    const hours = job.reviewHours ?? DEFAULT_REVIEW_HOURS;
    return this.flip(job.jobId, ['running'], 'awaiting_review', {
      set: {
        reviewStartedAt: this.iso(),
        reviewDeadline: this.now() + hours * 3_600_000,
        gatedFindings,
        ...(approverGroups.length > 0 ? { approverGroups: [...approverGroups] } : {}),
      },
      condition: 'attribute_not_exists(finalizedAt) AND attribute_not_exists(reviewStartedAt)',
    });
  }

  /**
   * Closes the review once: every gated finding has a decision (`completed`) or its deadline
   * passed (`expired`). The job stays `awaiting_review` until finalize writes the report; the
   * caller that closes it sends finalize. Returns false for the loser of a race or a repeat.
   */
  async closeReview(jobId: string, how: 'completed' | 'expired'): Promise<boolean> {
    const field = how === 'completed' ? 'reviewCompletedAt' : 'reviewExpiredAt';
    return this.jobs.stampOnce(
      jobId,
      field,
      '#status = :review AND attribute_not_exists(reviewCompletedAt) AND attribute_not_exists(reviewExpiredAt)',
      { ':review': 'awaiting_review' },
      true,
    );
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** One conditional status change with the fields that go with it. */
  private async flip(
    jobId: string,
    from: readonly JobStatus[],
    to: JobStatus,
    change: StatusChangeFields,
  ): Promise<Flip> {
    const update = statusChange(jobId, from, to, this.iso(), change);
    try {
      // A job leaving `running` gives back its owner's slot in the same transaction.
      const { job, gaveBackSlot } = await sendReleasingChange(this.db, this.tableName, jobId, update);
      return { changed: true, job, ...(gaveBackSlot ? { gaveBackSlot } : {}) };
    } catch (error) {
      if (!isConditionFailure(error) && !isWriteRefused(error)) throw error;
      return { changed: false, job: await this.jobs.get(jobId) };
    }
  }
}
