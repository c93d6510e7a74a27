import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CallCounts, CheckpointStatus } from './claims.js';
import { Jobs } from './jobs.js';
import { CHECKPOINT_PREFIX, jobPk } from './keys.js';
import { queryAll } from './query-all.js';

/** Where a job stands, as a person watching it wants to see. */
export interface JobProgress {
  readonly status: string;
  readonly chunkCount: number;
  readonly chunksTerminal: number;
  readonly calls: {
    readonly planned: number;
    /** Answered, this run or reused from an earlier delivery. */
    readonly done: number;
    readonly failed: number;
    /** Not started: the cost ceiling was reached. */
    readonly skipped: number;
    /** Not started: the job was cancelled. */
    readonly cancelled: number;
    /** Not asked: the relevance screen left them out. */
    readonly screened: number;
  };
  readonly costSpent: number;
  readonly ceilingMicros: number;
}

/**
 * The job's progress from its item and the call counts its analyze checkpoints carry: written
 * when a stage ends and, while it runs, at most once a second when they moved, so the counts
 * move during a chunk without a write per call. One GetItem and one Query of the checkpoints' counts only.
 */
export async function readJobProgress(
  db: DynamoDBDocumentClient,
  tableName: string,
  jobId: string,
): Promise<JobProgress | undefined> {
  const job = await new Jobs(db, tableName).find(jobId);
  if (!job) return undefined;
  const checkpoints = await queryAll<{ stage: string; status: CheckpointStatus; calls?: CallCounts | null }>(
    db,
    {
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': CHECKPOINT_PREFIX },
      ProjectionExpression: 'stage, #status, calls',
      ExpressionAttributeNames: { '#status': 'status' },
      ConsistentRead: true,
    },
  );
  const calls = {
    planned: job.callsPlanned,
    done: 0,
    failed: 0,
    skipped: 0,
    cancelled: 0,
    screened: job.callsScreened ?? 0,
  };
  for (const cp of checkpoints) {
    if (cp.stage !== 'analyze' || !cp.calls) continue;
    calls.done += cp.calls.done + cp.calls.reused;
    calls.failed += cp.calls.failed;
    calls.skipped += cp.calls.skipped;
    calls.cancelled += cp.calls.cancelled ?? 0;
  }
  return {
    status: job.status,
    chunkCount: job.chunkCount,
    chunksTerminal: job.chunksTerminal,
    calls,
    costSpent: job.costSpent,
    ceilingMicros: job.ceilingMicros,
  };
}
