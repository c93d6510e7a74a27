import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Lane } from '../contracts.js';
import { enqueueFinalizeIfComplete, sendFinalize } from '../finalize/enqueue.js';
import { documentKey, type StoredDocument } from '../intake/intake.js';
import { Claims } from '../state/claims.js';
import { type Job, Jobs } from '../state/jobs.js';
import { statusGsiPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';
import type { ChunkMessage } from '../worker/chunk-message.js';
import { decide, type SweepRules } from './rules.js';

/** What the sweeper needs. */
export interface SweeperDeps {
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  readonly tableName: string;
  /** Name of the jobs-by-status index (`byStatus`). */
  readonly statusIndexName: string;
  readonly resultsBucket: string;
  readonly laneQueueUrls: Readonly<Record<Lane, string>>;
  readonly finalizeQueueUrl: string;
  readonly rules: SweepRules;
  readonly now?: () => number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** What one sweep did. */
export interface SweepSummary {
  readonly jobsSeen: number;
  readonly resent: { jobId: string; chunk: number; stage: string }[];
  readonly expired: { jobId: string; chunks: number[] }[];
  readonly finalizeEnqueued: string[];
}

/** Ids of jobs that may need the sweeper: running or cancelled, and not finalized. */
async function candidateJobs(deps: SweeperDeps): Promise<string[]> {
  const ids: string[] = [];
  for (const status of ['running', 'cancelled']) {
    const items = await queryAll<{ jobId?: unknown }>(deps.db, {
      TableName: deps.tableName,
      IndexName: deps.statusIndexName,
      KeyConditionExpression: 'gsi1pk = :pk',
      FilterExpression: 'attribute_not_exists(finalizedAt)',
      ProjectionExpression: 'jobId',
      ExpressionAttributeValues: { ':pk': statusGsiPk(status) },
    });
    for (const item of items) if (typeof item.jobId === 'string') ids.push(item.jobId);
  }
  return ids;
}

/** Rebuilds a chunk message from the document intake stored, exactly as intake built it. */
async function chunkMessage(deps: SweeperDeps, job: Job, chunk: number): Promise<ChunkMessage> {
  const r = await deps.s3.send(
    new GetObjectCommand({ Bucket: deps.resultsBucket, Key: documentKey(job.jobId) }),
  );
  const doc = JSON.parse((await r.Body?.transformToString()) ?? '{}') as StoredDocument;
  const found = doc.chunks?.find((c) => c.index === chunk);
  if (!found) throw new Error(`stored document of job ${job.jobId} has no chunk ${chunk}`);
  return { v: 1, jobId: job.jobId, chunk, lane: job.lane, clauses: found.clauses.map((c) => ({ ...c })) };
}

/** Sweeps one job; exported for the CLI and tests. */
export async function sweepJob(jobId: string, deps: SweeperDeps, summary?: SweepSummary): Promise<void> {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => {});
  const jobs = new Jobs(deps.db, deps.tableName, now);
  const claims = new Claims(deps.db, deps.tableName, now);
  const job = await jobs.find(jobId);
  if (!job) return;
  const actions = decide(job, await claims.list(jobId), now(), deps.rules);
  for (const action of actions) {
    switch (action.kind) {
      case 'resend': {
        const cp = action.checkpoint;
        const message = await chunkMessage(deps, job, cp.chunk);
        if (!(await claims.recordResend(cp, 'sweep'))) break;
        await deps.sqs.send(
          new SendMessageCommand({
            QueueUrl: deps.laneQueueUrls[job.lane],
            MessageBody: JSON.stringify(message),
          }),
        );
        summary?.resent.push({ jobId, chunk: cp.chunk, stage: cp.stage });
        log('sweeper-resent', { jobId, chunk: cp.chunk, stage: cp.stage, silentForMs: action.silentForMs });
        break;
      }
      case 'expire': {
        const marked: number[] = [];
        for (const u of action.chunks) {
          const stage = await claims.markDead(
            jobId,
            u.chunk,
            { reason: `deadline: ${action.reason}`.slice(0, 1000), errorClass: 'infrastructure' },
            { force: true },
          );
          if (stage) marked.push(u.chunk);
        }
        summary?.expired.push({ jobId, chunks: marked });
        log('sweeper-expired', { jobId, chunks: marked, reason: action.reason });
        break;
      }
      case 'finalize': {
        if (await enqueueFinalizeIfComplete(deps, jobId)) {
          summary?.finalizeEnqueued.push(jobId);
          log('sweeper-finalize', { jobId });
        }
        break;
      }
      case 'refinalize': {
        if (await jobs.recordFinalizeResend(jobId, action.seen)) {
          await sendFinalize(deps, jobId);
          summary?.finalizeEnqueued.push(jobId);
          log('sweeper-refinalize', { jobId });
        }
        break;
      }
    }
  }
}

/**
 * One sweep over every unfinished job: re-sends lost chunk messages, finalizes jobs whose
 * chunks are all terminal, and ends jobs past their deadline. Safe to run concurrently with
 * itself and with workers: every write is conditional and every message it sends is one that
 * a claim or `finalizeJob` lets through only once.
 */
export async function sweep(deps: SweeperDeps): Promise<SweepSummary> {
  const summary: SweepSummary = { jobsSeen: 0, resent: [], expired: [], finalizeEnqueued: [] };
  const ids = await candidateJobs(deps);
  for (const jobId of ids) {
    try {
      await sweepJob(jobId, deps, summary);
    } catch (error) {
      // One broken job must not stop the sweep of the others; the next sweep tries again.
      deps.log?.('sweeper-job-failed', { jobId, error: String(error) });
    }
  }
  return { ...summary, jobsSeen: ids.length };
}
