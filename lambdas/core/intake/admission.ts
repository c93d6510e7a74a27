import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Lane } from '../contracts.js';
import { type Job, Jobs } from '../state/jobs.js';
import { OwnerSlots } from '../state/owner-slots.js';
import { chunkMessagesOf, readStoredDocument, sendChunkMessages } from './stored-document.js';

/** What starting a queued job needs: the table, the stored documents and the lane queues. */
export interface StartDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly resultsBucket: string;
  readonly laneQueueUrls: Readonly<Record<Lane, string>>;
  readonly now?: () => number;
}

/** Queued jobs one call looks at: more than an owner's cap frees at once. */
const LOOK_AT = 10;

/**
 * Starts the owner's oldest queued jobs while the owner has a slot free: each start is one
 * transaction (`queued` → `running` with a slot of the owner), so of two starters (finalize and
 * the sweeper, say) exactly one starts a job, and a job cancelled meanwhile is not started.
 * The started job's deadline moves by the time it waited, as a pause's does, and its chunk
 * messages go out from the document intake stored. Returns the ids it started.
 *
 * Safe to call after any slot is given back, and again: with no slot free or nothing queued
 * it does one read. A start that dies before its messages are out is picked up by the sweeper,
 * whose rules send a silent chunk's message again.
 */
export async function startQueued(owner: string | undefined, deps: StartDeps): Promise<string[]> {
  if (!owner) return [];
  const now = deps.now ?? Date.now;
  const slots = new OwnerSlots(deps.db, deps.tableName, now);
  const jobs = new Jobs(deps.db, deps.tableName, now);
  const started: string[] = [];
  for (const jobId of await slots.queued(owner, LOOK_AT)) {
    const job = await jobs.find(jobId);
    if (job?.status !== 'queued') continue;
    const waited = Math.max(0, now() - Date.parse(job.queuedAt ?? job.updatedAt));
    const took = await slots.take(jobId, owner, 'queued', undefined, {
      set: { deadline: job.deadline + waited },
    });
    if (took === 'full') break;
    if (took === 'moved') continue;
    await sendAll(job, deps);
    await jobs.markFannedOut(jobId);
    started.push(jobId);
  }
  return started;
}

/** Sends every chunk message of a job that has just started, from its stored document. */
async function sendAll(job: Job, deps: StartDeps): Promise<void> {
  const doc = await readStoredDocument(deps.s3, deps.resultsBucket, job.jobId);
  await sendChunkMessages(deps.sqs, deps.laneQueueUrls[job.lane], chunkMessagesOf(doc, job.lane), job.owner);
}
