import { byLane, type Lane, type QueueRole } from '../lanes-and-limits.js';

/** What the sweep rules read from the topology (lib/topology.ts's `Topology` has it). */
export interface SweepTopology {
  readonly redeliveryBackoffSeconds: readonly number[];
  readonly queues: Readonly<
    Record<QueueRole, { readonly visibilityTimeoutSeconds: number; readonly maxReceiveCount: number }>
  >;
}

import { type Checkpoint, type UnfinishedChunk, unfinishedChunks } from '../state/checkpoint.js';
import type { Job } from '../state/job.js';

/**
 * The timing the sweeper's decisions rest on. A chunk message cannot be looked up in SQS, so
 * the sweeper infers that one is lost from silence: a live chunk-stage with no live claim and
 * no activity for longer than the worst case in which a live message would have come back.
 */
export interface SweepRules {
  /**
   * Per lane: the longest a live message can stay invisible after the last sign of life of its
   * stage (claim expiry, failed attempt, finished earlier stage, fan-out, last re-send): the
   * queue's visibility timeout or the heartbeat's visibility (2 × lease), whichever is longer,
   * plus the longest tier-2 redelivery backoff, plus a grace for a consumer to pick it up.
   */
  readonly quietMs: Readonly<Record<Lane, number>>;
  /** How long a claimed finalize may stay unfinalized before it is sent again. */
  readonly finalizeQuietMs: number;
  /**
   * Receives before SQS dead-letters a chunk message. A stage claimed this many times since its
   * current message was sent has most likely dead-lettered it: DLQ triage owns it, not the sweeper.
   */
  readonly maxReceiveCount: number;
  /** Re-sends of one stage are spaced `quietMs × 2^sweeps`, capped at this factor. @default 8 */
  readonly maxSpacingFactor: number;
}

/** The rules that follow from a topology and the worker's lease length. */
export function sweepRules(t: SweepTopology, leaseMs: number, graceMs = 60_000): SweepRules {
  const backoffMs = Math.max(0, ...t.redeliveryBackoffSeconds) * 1000;
  const quiet = (lane: Lane) =>
    Math.max(t.queues[lane].visibilityTimeoutSeconds * 1000, 2 * leaseMs) + backoffMs + graceMs;
  return {
    quietMs: byLane(quiet),
    finalizeQuietMs: t.queues.finalize.visibilityTimeoutSeconds * 1000 + graceMs,
    maxReceiveCount: t.queues.realtime.maxReceiveCount,
    maxSpacingFactor: 8,
  };
}

/** What the sweeper should do about one job. */
export type SweepAction =
  /** Send the chunk message of a stage whose message is presumed lost. */
  | { readonly kind: 'resend'; readonly checkpoint: Checkpoint; readonly silentForMs: number }
  /** Mark the unfinished chunks of a job past its deadline dead, then finalize. */
  | { readonly kind: 'expire'; readonly chunks: readonly UnfinishedChunk[]; readonly reason: string }
  /** Claim finalize and enqueue it (every chunk terminal, finalize never enqueued). */
  | { readonly kind: 'finalize' }
  /** Enqueue finalize again (claimed long ago, job still not finalized). */
  | { readonly kind: 'refinalize'; readonly seen: string | undefined }
  /** Close a review whose deadline passed: alert, then finalize with undecided findings `unreviewed`. */
  | { readonly kind: 'review-expired'; readonly deadline: number };

const ms = (iso: string | undefined) => (iso ? Date.parse(iso) : 0);

/**
 * True while the job's chunk messages are intake's to send: its fan-out has not completed and
 * it never waited `queued`. Intake's own message retries an intake that died. A job that was
 * queued left intake's hands there: whoever started it (or cancelled it while it waited) sends
 * its messages, with no message of its own to retry that if it dies.
 */
function intakeSends(job: Job): boolean {
  return !job.fanoutCompletedAt && !job.queuedAt;
}

/**
 * The last sign of life of a chunk: the latest of its stages' claim expiries, failures,
 * finishes and re-sends, and the job's fan-out; for a job that was queued and whose messages
 * are not all out, its last change (the start or cancel that was to send them). A live message
 * comes back within `quietMs` of it.
 */
export function lastActivity(job: Job, stages: readonly Checkpoint[]): number {
  let at = ms(job.fanoutCompletedAt ?? (job.queuedAt ? job.updatedAt : undefined));
  for (const c of stages) {
    at = Math.max(
      at,
      c.claimExpiresAt ?? 0,
      ms(c.failedAt),
      ms(c.finishedAt),
      ms(c.sweptAt),
      ms(c.redrivenAt),
      ms(c.resumedAt),
    );
  }
  return at;
}

function describe(u: UnfinishedChunk): string {
  if (!u.live) return `chunk ${u.chunk} (no checkpoint)`;
  const c = u.live;
  const error = c.lastError ? `, last error: ${c.lastError.slice(0, 120)}` : '';
  return `chunk ${u.chunk} (${c.stage} ${c.status}, ${c.attempts} attempt(s)${error})`;
}

/**
 * A job awaiting review: once its review closed, finalize is sent again if it went missing;
 * before that, a review past its deadline is closed as expired.
 */
function decideReview(job: Job, now: number, rules: SweepRules): SweepAction[] {
  const closedAt = job.reviewCompletedAt ?? job.reviewExpiredAt;
  if (closedAt) {
    const since = Math.max(ms(closedAt), ms(job.finalizeResentAt));
    return now - since > rules.finalizeQuietMs ? [{ kind: 'refinalize', seen: job.finalizeResentAt }] : [];
  }
  if (job.reviewDeadline !== undefined && now > job.reviewDeadline) {
    return [{ kind: 'review-expired', deadline: job.reviewDeadline }];
  }
  return [];
}

/**
 * Decides what the sweeper does about one job at `now`. Pure: the executor carries it out.
 *
 * - finalized, paused, or not started: nothing;
 * - awaiting review: close it once its deadline passed; finalize again if that went missing;
 * - past its deadline with chunks unfinished: expire them (each named in the reason), then finalize;
 * - every chunk terminal: finalize, or finalize again when the claim is older than `finalizeQuietMs`;
 * - intake still fanning out: nothing (intake's own message retries it); a job that was queued
 *   and whose messages are not all out is not intake's: its start or cancel died before sending;
 * - otherwise each unfinished chunk whose live stage has no live claim, is not the DLQ's, and
 *   has been silent for `quietMs × 2^sweeps` (capped): re-send its message.
 *
 * @example
 * decide(job, await claims.list(job.jobId), Date.now(), sweepRules(topology(), 120_000));
 */
export function decide(
  job: Job,
  checkpoints: readonly Checkpoint[],
  now: number,
  rules: SweepRules,
): SweepAction[] {
  if (job.finalizedAt) return [];
  if (job.status === 'awaiting_review') return decideReview(job, now, rules);
  // A paused job is a person's to resume: no re-send, no deadline while it waits.
  if (!['running', 'cancelled'].includes(job.status)) return [];
  const unfinished = unfinishedChunks(job, checkpoints);
  const allTerminal = job.chunkCount > 0 && job.chunksTerminal >= job.chunkCount;

  if (now > job.deadline && !allTerminal && (job.fanoutCompletedAt || job.chunkCount > 0)) {
    const reason = `job deadline ${new Date(job.deadline).toISOString()} passed with ${unfinished.length} chunk(s) unfinished: ${unfinished.map(describe).join('; ')}`;
    return [{ kind: 'expire', chunks: unfinished, reason }, { kind: 'finalize' }];
  }
  if (allTerminal) {
    if (!job.finalizeEnqueuedAt) return [{ kind: 'finalize' }];
    const since = Math.max(ms(job.finalizeEnqueuedAt), ms(job.finalizeResentAt));
    return now - since > rules.finalizeQuietMs ? [{ kind: 'refinalize', seen: job.finalizeResentAt }] : [];
  }
  if (intakeSends(job)) return [];

  const actions: SweepAction[] = [];
  for (const u of unfinished) {
    const cp = u.live;
    if (!cp) continue;
    if (cp.claimedBy && (cp.claimExpiresAt ?? 0) >= now) continue;
    if (cp.attempts - (cp.enqueuedAttempts ?? 0) >= rules.maxReceiveCount) continue;
    const stages = checkpoints.filter((c) => c.chunk === u.chunk);
    const silentForMs = now - lastActivity(job, stages);
    const spacing = Math.min(2 ** (cp.sweeps ?? 0), rules.maxSpacingFactor);
    if (silentForMs > rules.quietMs[job.lane] * spacing) {
      actions.push({ kind: 'resend', checkpoint: cp, silentForMs });
    }
  }
  return actions;
}
