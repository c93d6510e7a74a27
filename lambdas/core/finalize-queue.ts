/**
 * The finalize queue's one message, and the rule for sending it: every part of the pipeline that
 * can end a job's last chunk (a worker, DLQ triage, the sweeper, a resume, a closed review) sends
 * finalize through here, so the message and its once-only claim are defined in one place.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { storesOf } from './stores.js';

/** Where finalize messages go, and the table that says whether a job is ready for one. */
export interface FinalizeQueueDeps {
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly tableName: string;
  readonly finalizeQueueUrl: string;
  readonly now?: () => number;
}

/** Sends one finalize message for a job. */
export async function sendFinalize(deps: Pick<FinalizeQueueDeps, 'sqs' | 'finalizeQueueUrl'>, jobId: string) {
  await deps.sqs.send(
    new SendMessageCommand({ QueueUrl: deps.finalizeQueueUrl, MessageBody: JSON.stringify({ v: 1, jobId }) }),
  );
}

/**
 * Enqueues finalize once every chunk of the job is terminal: the caller whose completion made
 * the count whole (a worker, DLQ triage or the sweeper) wins the conditional claim and sends
 * the message; every other caller, and every repeat, does nothing. Returns true when it sent.
 */
export async function enqueueFinalizeIfComplete(deps: FinalizeQueueDeps, jobId: string): Promise<boolean> {
  const { jobs } = storesOf(deps);
  const job = await jobs.find(jobId);
  if (!job || job.chunksTerminal < job.chunkCount) return false;
  if (!(await jobs.claimFinalize(jobId))) return false;
  await sendFinalize(deps, jobId);
  return true;
}
