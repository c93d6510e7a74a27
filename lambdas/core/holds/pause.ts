import { enqueueFinalizeIfComplete, sendFinalize } from '../finalize-queue.js';
import { type JobPlaces, sendUnfinished, startQueued } from '../intake/admission.js';
import type { Job } from '../state/job.js';
import { storesOf } from '../stores.js';
import { HoldStateError } from './errors.js';

/** What pause, resume and cancel need: where the job lives, and the finalize queue. */
export interface HoldDeps extends JobPlaces {
  readonly finalizeQueueUrl: string;
}

/**
 * Pauses a running job: no model call starts after this returns; chunks in flight stop at
 * their next check, give up their leases and return their allotments, keeping their
 * checkpoints and ledger entries.
 * @throws HoldStateError when the job is not running
 */
export async function pauseJob(jobId: string, by: string, deps: HoldDeps): Promise<Job> {
  const flip = await storesOf(deps).holds.pause(jobId, by);
  if (flip.changed) {
    // The pause gave back the job's slot: the owner's next queued job may start.
    if (flip.gaveBackSlot) await startQueued(flip.job.owner, deps);
    return flip.job;
  }
  const { job } = flip;
  throw new HoldStateError(
    job.status === 'paused'
      ? `job ${jobId} is already paused (since ${job.pausedAt}); 'resume' continues it`
      : job.status === 'running' && job.finalizeEnqueuedAt
        ? `job ${jobId} has ended every chunk and its report is being written; there is nothing left to pause`
        : `job ${jobId} is ${job.status}; only a running job can be paused`,
    jobId,
    job.status,
  );
}

/**
 * Resumes a paused job: its deadline moves by the time it was paused, every chunk not yet
 * ended is sent again from the stored document, and work goes on from the checkpoints and
 * the call ledger, so no answered call is made or billed again. A job whose chunks all ended
 * while it was paused goes straight to finalize. An owner's job takes a slot of its owner
 * again; with none free it waits `queued` and is sent on when one is given back.
 * @throws HoldStateError when the job is not paused
 */
export async function resumeJob(jobId: string, deps: HoldDeps): Promise<{ job: Job; chunksSent: number }> {
  const flip = await storesOf(deps).holds.resume(jobId);
  if (!flip.changed) {
    throw new HoldStateError(
      `job ${jobId} is ${flip.job.status}, not paused; there is nothing to resume`,
      jobId,
      flip.job.status,
    );
  }
  if (flip.job.status === 'queued') {
    // A slot given back between the resume's try and its queueing would otherwise wait for the sweeper.
    await startQueued(flip.job.owner, deps);
    return { job: flip.job, chunksSent: 0 };
  }
  const chunksSent = await sendUnfinished(flip.job, deps);
  await enqueueFinalizeIfComplete(deps, jobId);
  return { job: flip.job, chunksSent };
}

/**
 * Cancels a job that has not ended. A running job's workers stop on their own; a paused job
 * has none, so its unfinished chunks are sent again for workers to end as cancelled; a job
 * awaiting review is finalized as cancelled, with the decisions made so far.
 * Returns whether this call cancelled it, and the job.
 */
export async function cancelJob(
  jobId: string,
  reason: string,
  deps: HoldDeps,
): Promise<{ cancelled: boolean; job: Job }> {
  const result = await storesOf(deps).jobs.cancel(jobId, reason);
  if (!result.cancelled) return result;
  // The item as the cancel left it tells what it was: a pause leaves `pausedAt` until a resume
  // removes it, and a review starts only after finalize was claimed.
  const { job } = result;
  if (job.reviewStartedAt) await sendFinalize(deps, jobId);
  else if (job.pausedAt || (job.queuedAt && !job.fanoutCompletedAt)) {
    // A queued job's chunks were never sent: workers end them cancelled, without a call.
    await sendUnfinished(job, deps);
    await enqueueFinalizeIfComplete(deps, jobId);
  }
  // The cancel gave back the job's slot: the owner's next queued job may start.
  if (result.gaveBackSlot) await startQueued(job.owner, deps);
  return result;
}
