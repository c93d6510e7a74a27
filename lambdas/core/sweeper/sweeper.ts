import type { S3Client } from '@aws-sdk/client-s3';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { enqueueFinalizeIfComplete, sendFinalize } from '../finalize-queue.js';
import { startQueued } from '../intake/admission.js';
import { messageGroupOf } from '../intake/message-group.js';
import { chunkMessagesOf, readStoredDocument } from '../intake/stored-document.js';
import type { Lane } from '../lanes-and-limits.js';
import type { PipelineMetrics } from '../metrics/index.js';
import type { Job } from '../state/job.js';
import { statusGsiPk } from '../state/keys.js';
import { OwnerSlots } from '../state/owner-slots.js';
import { queryAll } from '../state/query-all.js';
import { StageRecovery } from '../state/stage-recovery.js';
import { storesOf } from '../stores.js';
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
  /** Where an expired review is announced (the stack's alerts topic). @default no alert */
  readonly alerts?: { readonly sns: SNSClient; readonly topicArn: string };
  /** Where the counts of paused and held jobs go, once per sweep. @default none */
  readonly metrics?: PipelineMetrics;
  readonly now?: () => number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** What one sweep did. */
export interface SweepSummary {
  readonly jobsSeen: number;
  readonly resent: { jobId: string; chunk: number; stage: string }[];
  readonly expired: { jobId: string; chunks: number[] }[];
  readonly finalizeEnqueued: string[];
  /** Jobs whose review deadline passed, closed by this sweep. */
  readonly reviewsExpired: string[];
  /** Jobs a person holds, as this sweep found them. */
  readonly held: { paused: number; awaitingReview: number; reviewsOverdue: number };
  /** Queued jobs this sweep started, their owners having a slot free (a start missed elsewhere). */
  readonly started: string[];
}

/** Ids of the unfinalized jobs in a status, from the status index. */
async function jobsIn(deps: SweeperDeps, status: string): Promise<string[]> {
  const items = await queryAll<{ jobId?: unknown }>(deps.db, {
    TableName: deps.tableName,
    IndexName: deps.statusIndexName,
    KeyConditionExpression: 'gsi1pk = :pk',
    FilterExpression: 'attribute_not_exists(finalizedAt)',
    ProjectionExpression: 'jobId',
    ExpressionAttributeValues: { ':pk': statusGsiPk(status) },
  });
  return items.flatMap((item) => (typeof item.jobId === 'string' ? [item.jobId] : []));
}

/** Sweeps one job; exported for the CLI and tests. */
export async function sweepJob(jobId: string, deps: SweeperDeps, summary?: SweepSummary): Promise<void> {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? (() => {});
  const { jobs, claims, holds } = storesOf(deps);
  const recovery = new StageRecovery(deps.db, deps.tableName, now, claims);
  const job = await jobs.find(jobId);
  if (!job) return;
  const actions = decide(job, await claims.list(jobId), now(), deps.rules);
  for (const action of actions) {
    switch (action.kind) {
      case 'resend': {
        const cp = action.checkpoint;
        const doc = await readStoredDocument(deps.s3, deps.resultsBucket, jobId);
        const [message] = chunkMessagesOf(doc, job.lane, [cp.chunk]);
        if (!(await recovery.recordResend(cp, 'sweep'))) break;
        await deps.sqs.send(
          new SendMessageCommand({
            QueueUrl: deps.laneQueueUrls[job.lane],
            MessageBody: JSON.stringify(message),
            MessageGroupId: messageGroupOf(job.owner),
          }),
        );
        summary?.resent.push({ jobId, chunk: cp.chunk, stage: cp.stage });
        log('sweeper-resent', { jobId, chunk: cp.chunk, stage: cp.stage, silentForMs: action.silentForMs });
        break;
      }
      case 'expire': {
        const marked: number[] = [];
        for (const u of action.chunks) {
          const stage = await recovery.markDead(
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
      case 'review-expired': {
        if (!(await holds.closeReview(jobId, 'expired'))) break;
        await alertExpiredReview(deps, job, action.deadline);
        await sendFinalize(deps, jobId);
        summary?.reviewsExpired.push(jobId);
        log('sweeper-review-expired', { jobId, deadline: new Date(action.deadline).toISOString() });
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
  const [running, cancelled, paused, awaitingReview] = await Promise.all(
    (['running', 'cancelled', 'paused', 'awaiting_review'] as const).map((status) => jobsIn(deps, status)),
  );
  const held = { paused: paused.length, awaitingReview: awaitingReview.length, reviewsOverdue: 0 };
  const summary: SweepSummary = {
    jobsSeen: 0,
    resent: [],
    expired: [],
    finalizeEnqueued: [],
    reviewsExpired: [],
    held,
    started: [],
  };
  // Paused jobs are only counted: they wait for a person.
  const ids = [...running, ...cancelled, ...awaitingReview];
  for (const jobId of ids) {
    try {
      await sweepJob(jobId, deps, summary);
    } catch (error) {
      // One broken job must not stop the sweep of the others; the next sweep tries again.
      deps.log?.('sweeper-job-failed', { jobId, error: String(error) });
    }
  }
  await startMissed(deps, summary);
  held.reviewsOverdue = summary.reviewsExpired.length;
  deps.metrics?.holds(held);
  await deps.metrics?.flush();
  return { ...summary, jobsSeen: ids.length };
}

/**
 * The safety net of admission control: starts the queued jobs of every owner with a slot free.
 * A slot given back starts the owner's next job at once (finalize, cancel, pause), but a
 * starter that died, or a job queued just as the slot came back, leaves one waiting; each
 * start is conditional, so this never starts a job twice.
 */
async function startMissed(deps: SweeperDeps, summary: SweepSummary): Promise<void> {
  const owners = await new OwnerSlots(deps.db, deps.tableName, deps.now).ownersWithQueued();
  for (const owner of owners) {
    try {
      const started = await startQueued(owner, deps);
      summary.started.push(...started);
      if (started.length > 0) deps.log?.('sweeper-started-queued', { owner, jobIds: started });
    } catch (error) {
      deps.log?.('sweeper-start-failed', { owner, error: String(error) });
    }
  }
}

/** Tells the alerts topic that a review ran out of time, and what happens now. */
async function alertExpiredReview(deps: SweeperDeps, job: Job, deadline: number): Promise<void> {
  if (!deps.alerts) return;
  await deps.alerts.sns.send(
    new PublishCommand({
      TopicArn: deps.alerts.topicArn,
      Subject: `clause-review: review of job ${job.jobId} passed its deadline`.slice(0, 100),
      Message: JSON.stringify(
        {
          event: 'review-expired',
          jobId: job.jobId,
          document: `s3://${job.bucket}/${job.key}`,
          gate: job.gate,
          gatedFindings: job.gatedFindings,
          reviewStartedAt: job.reviewStartedAt,
          reviewDeadline: new Date(deadline).toISOString(),
          outcome: 'the report is being written with every undecided finding marked unreviewed',
        },
        null,
        1,
      ),
    }),
  );
}
