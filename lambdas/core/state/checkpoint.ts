/**
 * The checkpoint item of one chunk-stage, the call counts and lists it carries, and what a job's
 * checkpoints say of its chunks.
 */
import type { Job } from './job.js';
import { STAGES, type Stage } from './keys.js';

/** Where a chunk-stage is. `retrying`: a failed attempt waiting for redelivery. */
export type CheckpointStatus = 'pending' | 'running' | 'retrying' | 'done' | 'cancelled' | 'dead';

/** Failure classes: transient, infrastructure, validation, logic (docs/architecture.md). */
export type ErrorClass = 'transient' | 'infrastructure' | 'validation' | 'logic';

/** A chunk-stage checkpoint item. Epoch ms for the lease, ISO strings for history. */
export interface Checkpoint {
  readonly jobId: string;
  readonly chunk: number;
  readonly stage: Stage;
  readonly status: CheckpointStatus;
  readonly claimedBy?: string;
  readonly claimExpiresAt?: number;
  /** Fencing token: incremented by every claim; writes of an older holder are refused. */
  readonly fence: number;
  readonly attempts: number;
  readonly startedAt?: string;
  readonly finishedAt?: string;
  readonly lastError?: string;
  readonly errorClass?: ErrorClass;
  /** For a cancelled chunk: `cancelled-at-stage-N`. */
  readonly stoppedAt?: string;
  /** Stage output (consolidate: the clause assessments as JSON). */
  readonly result?: string;
  /**
   * Consolidate: where each of the chunk's ledger entries ended (`CallOutcome[]` as JSON), read
   * when the stage ran, so finalize need not read the chunk's ledger again.
   */
  readonly outcomes?: string;
  /** Call outcome counts of the analyze stage. */
  readonly calls?: CallCounts;
  /**
   * Calls of the stage that were never started, recorded in one write when the stage ended
   * early: `budget` (the ceiling was reached) or `cancelled`.
   */
  readonly unstarted?: { readonly reason: UnstartedReason; readonly calls: readonly UnstartedCall[] };
  /** Allotment held by `allotmentOwner` and not yet returned to the job (micro-dollars). */
  readonly allotment?: number;
  /** The holder (`workerId:fence`) the allotment was taken for. */
  readonly allotmentOwner?: string;
  /** The ledger cost of this stage already accounted to the job's `costSpent`. */
  readonly spentAccounted?: number;
  /**
   * Reservations of intents a gone holder left without an outcome, counted as spent by the
   * takeover that settled its allotment (also in the job's `costSpent`, not in the ledger's cost).
   */
  readonly spentUnknown?: number;
  /** When the last failed attempt released the stage (ISO). */
  readonly failedAt?: string;
  /** Re-enqueues by the sweeper (a chunk message presumed lost), and when the last one was (ISO). */
  readonly sweeps?: number;
  readonly sweptAt?: string;
  /** Redrives out of a DLQ by triage, and when the last one was (ISO). */
  readonly redrives?: number;
  readonly redrivenAt?: string;
  /** When a pause set the stage aside (ISO). */
  readonly pausedAt?: string;
  /** Messages sent again when the job was resumed (or cancelled while paused), and when the last was (ISO). */
  readonly resumes?: number;
  readonly resumedAt?: string;
  /** `attempts` when the stage's current message was sent (by a sweep, a redrive or a resume); 0 at intake. */
  readonly enqueuedAttempts?: number;
}

/** Call outcome counts of an analyze stage. */
export interface CallCounts {
  readonly done: number;
  readonly reused: number;
  readonly failed: number;
  /** Not started because the cost ceiling was reached. */
  readonly skipped: number;
  /** Not started because the job was cancelled. */
  readonly cancelled?: number;
  readonly retries: number;
}

/** Why calls of a stage were never started. */
export type UnstartedReason = 'budget' | 'cancelled';

/** A call that was never started. */
export interface UnstartedCall {
  readonly clauseId: string;
  readonly analystId: string;
}

/** True when the chunk will see no more work: its last stage done, or any stage cancelled or dead. */
export function isChunkTerminal(checkpoints: readonly Checkpoint[]): boolean {
  return checkpoints.some(
    (c) =>
      c.status === 'cancelled' || c.status === 'dead' || (c.stage === STAGES.at(-1) && c.status === 'done'),
  );
}

/** A chunk that has not reached a terminal state, with the stage it is at. */
export interface UnfinishedChunk {
  readonly chunk: number;
  /** Its first stage not done; undefined when intake never wrote its checkpoints. */
  readonly live?: Checkpoint;
}

/** The chunks of a job that are not terminal, in order. */
export function unfinishedChunks(
  job: Pick<Job, 'chunkCount'>,
  checkpoints: readonly Checkpoint[],
): UnfinishedChunk[] {
  const byChunk = new Map<number, Checkpoint[]>();
  for (const cp of checkpoints) byChunk.set(cp.chunk, [...(byChunk.get(cp.chunk) ?? []), cp]);
  const out: UnfinishedChunk[] = [];
  for (let chunk = 0; chunk < job.chunkCount; chunk++) {
    const stages = byChunk.get(chunk) ?? [];
    if (isChunkTerminal(stages)) continue;
    const live = STAGES.map((s) => stages.find((c) => c.stage === s)).find((c) => c && c.status !== 'done');
    out.push(live ? { chunk, live } : { chunk });
  }
  return out;
}

/** The live statuses (a stage that may still run) as expression values, for a condition's `IN`. */
export const LIVE_VALUES = { ':pending': 'pending', ':running': 'running', ':retrying': 'retrying' } as const;

/** The placeholders of {@link LIVE_VALUES}: `#status IN (${LIVE_STATUSES})`. */
export const LIVE_STATUSES = Object.keys(LIVE_VALUES).join(', ');
