/**
 * What an operator does with the DLQs by hand: `dlq ls` (every dead letter, classified, nothing
 * changed) and `dlq redrive` (messages moved back to their source queues).
 */
import { ListMessageMoveTasksCommand, StartMessageMoveTaskCommand } from '@aws-sdk/client-sqs';
import { QUEUE_ROLES, type QueueRole } from '../lanes-and-limits.js';
import type { ErrorClass } from '../state/claims.js';
import { StageRecovery } from '../state/stage-recovery.js';
import { moveBack, receiveAll, release } from './dead-letter-queue.js';
import { type DlqDeps, enrich } from './triage.js';

/** A row of `dlq ls`. */
export interface DeadLetterRow {
  readonly queue: QueueRole;
  readonly messageId: string;
  readonly jobId?: string;
  readonly chunk?: number;
  readonly errorClass: ErrorClass;
  readonly lastError?: string;
  readonly ageSeconds: number;
}

/** Every dead letter now in a DLQ, classified, without changing anything (messages are released). */
export async function listDeadLetters(deps: DlqDeps): Promise<DeadLetterRow[]> {
  const now = deps.now ?? Date.now;
  const rows: DeadLetterRow[] = [];
  for (const queue of QUEUE_ROLES) {
    const messages = await receiveAll(deps.sqs, deps.dlqUrls[queue], { holdSeconds: 30 });
    try {
      for (const message of messages) {
        const v = await enrich(deps, queue, message);
        rows.push({
          queue,
          messageId: message.messageId,
          ...(v.jobId ? { jobId: v.jobId } : {}),
          ...(v.chunk !== undefined ? { chunk: v.chunk } : {}),
          errorClass: v.classification.errorClass,
          ...(v.lastError ? { lastError: v.lastError } : {}),
          ageSeconds: Math.max(0, Math.round((now() - message.sentAt) / 1000)),
        });
      }
    } finally {
      await Promise.all(messages.map((m) => release(deps.sqs, deps.dlqUrls[queue], m)));
    }
  }
  return rows;
}

/** Filters of a redrive; none means every message of every DLQ. */
export interface RedriveFilter {
  readonly errorClass?: ErrorClass;
  readonly jobId?: string;
}

/** What a redrive moved, per queue, and how. */
export interface RedriveResult {
  readonly queue: QueueRole;
  readonly method: 'message-move-task' | 'receive-send-delete';
  /** Messages moved (for a move task: the task's count once listed, else undefined). */
  readonly moved?: number;
  readonly taskHandle?: string;
}

/** True when the endpoint does not implement StartMessageMoveTask (moto, some emulators). */
export function isMoveTaskUnsupported(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status =
    (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ??
    (error as { $response?: { statusCode?: number } }).$response?.statusCode;
  // moto answers an action it lacks with an HTML error page, which the SDK fails to parse.
  if (error.name === 'SyntaxError' && '$response' in error) return true;
  return (
    /UnsupportedOperation|InvalidAction|NotImplemented|UnknownOperation|InvalidParameterValue/i.test(
      error.name,
    ) ||
    /not (yet )?implemented|not supported|unknown (action|operation)/i.test(error.message) ||
    status === 501 ||
    status === 404
  );
}

/**
 * Moves dead letters back to their source queues. Without filters it asks SQS for a message
 * move task per DLQ (the console's "Start DLQ redrive"); where the endpoint lacks it, or when
 * filters are given (a move task cannot filter), it moves the messages itself, receive → send
 * the unchanged body → delete, so the job identity the call ledger is keyed on is kept and
 * no finished call is billed again. Chunk redrives are recorded on their checkpoints.
 */
export async function redriveDeadLetters(
  deps: DlqDeps,
  filter: RedriveFilter = {},
): Promise<RedriveResult[]> {
  const out: RedriveResult[] = [];
  const filtered = filter.errorClass !== undefined || filter.jobId !== undefined;
  const recovery = new StageRecovery(deps.db, deps.tableName, deps.now ?? Date.now);
  for (const queue of QUEUE_ROLES) {
    if (!filtered) {
      try {
        const r = await deps.sqs.send(new StartMessageMoveTaskCommand({ SourceArn: deps.dlqArns[queue] }));
        const listed = await deps.sqs.send(
          new ListMessageMoveTasksCommand({ SourceArn: deps.dlqArns[queue], MaxResults: 1 }),
        );
        const moved = listed.Results?.[0]?.ApproximateNumberOfMessagesMoved;
        out.push({
          queue,
          method: 'message-move-task',
          ...(r.TaskHandle ? { taskHandle: r.TaskHandle } : {}),
          ...(moved !== undefined ? { moved } : {}),
        });
        continue;
      } catch (error) {
        if (!isMoveTaskUnsupported(error)) throw error;
        deps.log?.('dlq-move-task-unsupported', { queue, error: String(error) });
      }
    }
    const messages = await receiveAll(deps.sqs, deps.dlqUrls[queue], { holdSeconds: 60 });
    let moved = 0;
    for (const message of messages) {
      const v = await enrich(deps, queue, message);
      const matches =
        (filter.jobId === undefined || v.jobId === filter.jobId) &&
        (filter.errorClass === undefined || v.classification.errorClass === filter.errorClass);
      if (!matches) {
        await release(deps.sqs, deps.dlqUrls[queue], message);
        continue;
      }
      if (v.checkpoint) await recovery.recordResend(v.checkpoint, 'redrive');
      await moveBack(deps.sqs, deps.dlqUrls[queue], deps.queueUrls[queue], message);
      moved++;
    }
    out.push({ queue, method: 'receive-send-delete', moved });
  }
  return out;
}
