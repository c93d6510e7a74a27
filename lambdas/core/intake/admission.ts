import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { enqueueFinalizeIfComplete } from '../finalize-queue.js';
import type { Lane } from '../lanes-and-limits.js';
import { unfinishedChunks } from '../state/checkpoint.js';
import type { Job, JobPlan } from '../state/job.js';
import { pauseEnd } from '../state/job-holds.js';
import { OwnerSlots } from '../state/owner-slots.js';
import { type SpendCharge, spendBoundOf, spendDayOf, spendWait } from '../state/owner-spend.js';
import { StageRecovery } from '../state/stage-recovery.js';
import { storesOf } from '../stores.js';
import { chunkMessagesOf, readStoredDocument, sendChunkMessages } from './stored-document.js';

/**
 * Where a job's state lives, as the stages that take it in, start it and hold it reach it: the
 * table, the stored documents and the lane queues, and the clock.
 */
export interface JobPlaces {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly resultsBucket: string;
  readonly laneQueueUrls: Readonly<Record<Lane, string>>;
  readonly now?: () => number;
}

/** What starting a queued job needs. */
export interface StartDeps extends JobPlaces {
  /**
   * Where a resumed job whose chunks all ended during its pause is sent for its report; without
   * it the sweeper sends it (its rule for a job whose chunks are all terminal).
   */
  readonly finalizeQueueUrl?: string;
}

/** Queued jobs one call looks at: more than an owner's cap frees at once. */
const LOOK_AT = 10;

/** The caps intake admits a job against; absent or 0, none. */
export interface AdmissionCaps {
  /** Most jobs of one owner running at once. */
  readonly maxJobsPerOwner?: number;
  /** Micro-dollars one owner's jobs started on a (UTC) day may spend together. */
  readonly dailySpendPerOwnerMicros?: number;
}

/** What a start from the queue charges its owner's day: nothing for a job charged already. */
function chargeOf(job: Job, now: number): SpendCharge | undefined {
  if (!job.spendCap || job.spendDay) return undefined;
  return { day: spendDayOf(now), bound: spendBoundOf(job), cap: job.spendCap };
}

/**
 * Starts a job intake has just planned, or records it `queued` when its owner has
 * `maxJobsPerOwner` jobs running or its start would take its owner's day past the daily spend
 * cap (`waitingFor` says which, with the figures), then tries the owner's queue once, in case
 * room came back meanwhile. `start`: its messages are to be sent; `started`: the queue's start
 * sent them; `queued`: it waits; `unadmitted`: no cap applies, or the job has no owner.
 */
export async function admitFromIntake(
  job: Job,
  plan: JobPlan,
  caps: AdmissionCaps,
  deps: StartDeps,
): Promise<'start' | 'queued' | 'started' | 'unadmitted'> {
  const cap = caps.maxJobsPerOwner || undefined;
  const spendCap = caps.dailySpendPerOwnerMicros || undefined;
  const owner = job.owner;
  if ((!cap && !spendCap) || !owner || job.status !== 'intake') return 'unadmitted';
  const now = deps.now ?? Date.now;
  const slots = new OwnerSlots(deps.db, deps.tableName, now);
  const recorded = { ...(spendCap ? { spendCap } : {}), ...(cap ? {} : { slotless: true }) };
  const spend = spendCap
    ? {
        day: spendDayOf(now()),
        bound: spendBoundOf({ ceilingMicros: job.ceilingMicros, quote: plan.quote }),
        cap: spendCap,
      }
    : undefined;
  const took = await slots.take(
    job.jobId,
    owner,
    'intake',
    cap,
    { set: { ...plan, ...recorded } },
    { ...(spend ? { spend } : {}), slot: cap !== undefined },
  );
  if (took.outcome === 'running') return 'start';
  if (took.outcome === 'moved') return 'unadmitted';
  const waitingFor =
    took.outcome === 'over-spend' && spend
      ? spendWait(took.committed, spend.cap, spend.bound)
      : `its owner has ${cap} jobs running, the most one owner may`;
  if (!(await slots.queue(job.jobId, owner, plan, { ...recorded, waitingFor }))) return 'unadmitted';
  const started = await startQueued(owner, { ...deps, now });
  return started.includes(job.jobId) ? 'started' : 'queued';
}

/**
 * Starts the owner's oldest queued jobs while the owner has a slot free and room in its day's
 * spend cap: each start is one transaction (`queued` → `running` with a slot of the owner, and
 * the job's bound on its owner's day), so of two starters (finalize and the sweeper, say)
 * exactly one starts a job, and a job cancelled meanwhile is not started.
 * The started job's deadline moves by the time it waited, as a pause's does, and its chunk
 * messages go out from the document intake stored. A job resumed while its owner was full
 * (queued, still paused) moves its deadline by its pause and wait together and is sent on from
 * its checkpoints, as a resume sends it. Returns the ids it started.
 *
 * Safe to call after any slot is given back, and again: with no slot free or nothing queued
 * it does one read. A start that dies before its messages are out is picked up by the sweeper,
 * whose rules send a silent chunk's message again.
 */
export async function startQueued(owner: string | undefined, deps: StartDeps): Promise<string[]> {
  if (!owner) return [];
  const now = deps.now ?? Date.now;
  const slots = new OwnerSlots(deps.db, deps.tableName, now);
  const { jobs } = storesOf(deps);
  const started: string[] = [];
  for (const jobId of await slots.queued(owner, LOOK_AT)) {
    const job = await jobs.find(jobId);
    if (job?.status !== 'queued') continue;
    const { pausedAt } = job;
    const waited = Math.max(0, now() - Date.parse(job.queuedAt ?? job.updatedAt));
    const spend = chargeOf(job, now());
    const took = await slots.take(
      jobId,
      owner,
      'queued',
      undefined,
      pausedAt ? pauseEnd(job, pausedAt, now()) : { set: { deadline: job.deadline + waited } },
      { ...(spend ? { spend } : {}), slot: !job.slotless },
    );
    if (took.outcome === 'full') break;
    if (took.outcome === 'over-spend') {
      // The owner's day is spent: the oldest waits (the next day, or a job settling for less than
      // it counted, starts it), and says so.
      if (spend) await slots.noteWait(jobId, spendWait(took.committed, spend.cap, spend.bound));
      break;
    }
    if (took.outcome === 'moved') continue;
    if (pausedAt) {
      await sendUnfinished(job, deps);
      const { finalizeQueueUrl } = deps;
      if (finalizeQueueUrl) await enqueueFinalizeIfComplete({ ...deps, finalizeQueueUrl }, jobId);
    } else {
      await sendAll(job, deps);
      await jobs.markFannedOut(jobId);
    }
    started.push(jobId);
  }
  return started;
}

/** Sends every chunk message of a job that has just started, from its stored document. */
async function sendAll(job: Job, deps: StartDeps): Promise<void> {
  const doc = await readStoredDocument(deps.s3, deps.resultsBucket, job.jobId);
  await sendChunkMessages(deps.sqs, deps.laneQueueUrls[job.lane], chunkMessagesOf(doc, job.lane), job.owner);
}

/**
 * Sends the message of every chunk of a job that had started and not yet ended (a resume, a
 * cancel of a paused job), once per observed state of its live stage.
 */
export async function sendUnfinished(job: Job, deps: StartDeps): Promise<number> {
  const { claims } = storesOf(deps);
  const live = unfinishedChunks(job, await claims.list(job.jobId)).flatMap((u) => (u.live ? [u.live] : []));
  if (live.length === 0) return 0;
  const doc = await readStoredDocument(deps.s3, deps.resultsBucket, job.jobId);
  const resend: number[] = [];
  const recovery = new StageRecovery(deps.db, deps.tableName, deps.now, claims);
  for (const cp of live) if (await recovery.recordResend(cp, 'resume')) resend.push(cp.chunk);
  await sendChunkMessages(
    deps.sqs,
    deps.laneQueueUrls[job.lane],
    chunkMessagesOf(doc, job.lane, resend),
    job.owner,
  );
  return resend.length;
}
