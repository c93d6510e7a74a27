import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { enqueueFinalizeIfComplete } from '../finalize-queue.js';
import { isLane, QUEUE_ROLES, type QueueRole } from '../lanes-and-limits.js';
import { isChunkTerminal } from '../state/checkpoint.js';
import type { Checkpoint, ErrorClass } from '../state/claims.js';
import type { Job } from '../state/job.js';
import { STAGES } from '../state/keys.js';
import { StageRecovery } from '../state/stage-recovery.js';
import { storesOf } from '../stores.js';
import { chunkMessageSchema, finalizeMessageSchema } from '../worker/chunk-message.js';
import { type Classification, callNamedIn, classifyDeadLetter } from './classify.js';
import { type DeadLetter, moveBack, receiveAll, redrivesOf, release, remove } from './dead-letter-queue.js';
import { type DeadLetterRecord, DeadLetterRecords, type TriageDecision } from './records.js';

/** What triage, listing and redrive need. */
export interface DlqDeps {
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly sns: SNSClient;
  readonly tableName: string;
  readonly alertsTopicArn: string;
  readonly queueUrls: Readonly<Record<QueueRole, string>>;
  readonly dlqUrls: Readonly<Record<QueueRole, string>>;
  readonly dlqArns: Readonly<Record<QueueRole, string>>;
  /** Redrives of one chunk (or one checkpoint-less message) before it is marked dead. @default 2 */
  readonly maxRedrives?: number;
  /** Dead letters within `escalationWindowMs` that raise an escalation alert. @default 3 */
  readonly escalationThreshold?: number;
  /** @default 1 hour */
  readonly escalationWindowMs?: number;
  readonly now?: () => number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** One dead letter, enriched and classified. */
export interface DeadLetterView {
  readonly queue: QueueRole;
  readonly message: DeadLetter;
  readonly jobId?: string;
  readonly chunk?: number;
  readonly job?: Job;
  readonly checkpoint?: Checkpoint;
  readonly chunkTerminal: boolean;
  readonly classification: Classification;
  readonly lastError?: string;
}

/** What a triage run did. */
export interface TriageSummary {
  readonly seen: number;
  readonly decisions: (DeadLetterRecord & { decision: TriageDecision })[];
  readonly escalated: boolean;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Reads what the state table knows about a dead letter and classifies it. */
export async function enrich(deps: DlqDeps, queue: QueueRole, message: DeadLetter): Promise<DeadLetterView> {
  const body = parseJson(message.body);
  let jobId: string | undefined;
  let chunk: number | undefined;
  let wellFormed = true;
  if (isLane(queue)) {
    const parsed = chunkMessageSchema.safeParse(body);
    wellFormed = parsed.success;
    if (parsed.success) ({ jobId, chunk } = parsed.data);
  } else if (queue === 'finalize') {
    const parsed = finalizeMessageSchema.safeParse(body);
    wellFormed = parsed.success;
    if (parsed.success) jobId = parsed.data.jobId;
  } else {
    wellFormed = typeof body === 'object' && body !== null;
  }
  const job = jobId ? await storesOf(deps).jobs.find(jobId) : undefined;
  let checkpoint: Checkpoint | undefined;
  let chunkTerminal = false;
  if (job && chunk !== undefined) {
    const stages = (await storesOf(deps).claims.list(job.jobId)).filter((c) => c.chunk === chunk);
    chunkTerminal = isChunkTerminal(stages);
    checkpoint = STAGES.map((s) => stages.find((c) => c.stage === s)).find((c) => c && c.status !== 'done');
  }
  if (queue === 'finalize' && job?.finalizedAt) chunkTerminal = true;
  const lastError = checkpoint?.lastError;
  const classification = classifyDeadLetter({
    role: queue,
    wellFormed,
    ...(job ? { job } : {}),
    ...(checkpoint ? { checkpoint } : {}),
    ...(lastError ? { lastError } : {}),
  });
  return {
    queue,
    message,
    ...(jobId ? { jobId } : {}),
    ...(chunk !== undefined ? { chunk } : {}),
    ...(job ? { job } : {}),
    ...(checkpoint ? { checkpoint } : {}),
    chunkTerminal,
    classification,
    ...(lastError ? { lastError } : {}),
  };
}

async function publish(deps: DlqDeps, subject: string, context: Record<string, unknown>): Promise<void> {
  await deps.sns.send(
    new PublishCommand({
      TopicArn: deps.alertsTopicArn,
      // SNS subjects are at most 100 printable ASCII characters.
      Subject: subject.replace(/[^\x20-\x7e]/g, '?').slice(0, 100),
      Message: JSON.stringify(context, null, 1),
    }),
  );
}

/** Decides and carries out what happens to one dead letter; returns the record written. */
async function triageOne(deps: DlqDeps, view: DeadLetterView): Promise<DeadLetterRecord> {
  const now = deps.now ?? Date.now;
  const recovery = new StageRecovery(deps.db, deps.tableName, now);
  const maxRedrives = deps.maxRedrives ?? 2;
  const { queue, message, checkpoint: cp, classification: c } = view;
  const dlqUrl = deps.dlqUrls[queue];
  const redrives = cp ? (cp.redrives ?? 0) : redrivesOf(message);
  let decision: TriageDecision;
  let reason: string;

  if (view.chunkTerminal || (view.job?.finalizedAt && queue !== 'intake')) {
    decision = 'discarded';
    reason = 'the work it carries has already ended';
    await remove(deps.sqs, dlqUrl, message);
  } else if (cp?.claimedBy && (cp.claimExpiresAt ?? 0) >= now()) {
    decision = 'discarded';
    reason = `a duplicate: ${cp.claimedBy} holds a live claim on the chunk`;
    await remove(deps.sqs, dlqUrl, message);
  } else if (c.retryable && redrives < maxRedrives) {
    if (cp && !(await recovery.recordResend(cp, 'redrive'))) {
      decision = 'kept';
      reason = 'the checkpoint changed while triaging; left for the next run';
      await release(deps.sqs, dlqUrl, message);
    } else {
      decision = 'redriven';
      reason = `${c.errorClass}: ${c.why}; redrive ${redrives + 1} of ${maxRedrives}`;
      await moveBack(deps.sqs, dlqUrl, deps.queueUrls[queue], message);
    }
  } else {
    const gaveUp = c.retryable ? `still failing after ${redrives} redrive(s)` : c.why;
    reason = `${c.errorClass}: ${gaveUp}${view.lastError ? `; last error: ${view.lastError}` : ''}`.slice(
      0,
      900,
    );
    if (view.job && view.chunk !== undefined) {
      decision = 'dead';
      const errorClass: ErrorClass = c.errorClass;
      await recovery.markDead(view.job.jobId, view.chunk, { reason: `dead letter: ${reason}`, errorClass });
      await enqueueFinalizeIfComplete({ ...deps, finalizeQueueUrl: deps.queueUrls.finalize }, view.job.jobId);
      await remove(deps.sqs, dlqUrl, message);
    } else if (!c.retryable || isLane(queue)) {
      // Nothing in the state table to mark: the record and the alert carry the body.
      decision = 'dead';
      await remove(deps.sqs, dlqUrl, message);
    } else {
      // An intake or finalize message out of redrives: a person has to look; keep it.
      decision = 'kept';
      await release(deps.sqs, dlqUrl, message);
    }
  }

  const at = new Date(now()).toISOString();
  const named = callNamedIn(view.lastError);
  const record: DeadLetterRecord = {
    at,
    queue,
    messageId: message.messageId,
    ...(view.jobId ? { jobId: view.jobId } : {}),
    ...(view.chunk !== undefined ? { chunk: view.chunk } : {}),
    ...(cp ? { stage: cp.stage, attempts: cp.attempts } : {}),
    ...named,
    errorClass: c.errorClass,
    decision,
    reason,
    ...(view.lastError ? { lastError: view.lastError } : {}),
    redrives: decision === 'redriven' ? redrives + 1 : redrives,
    receiveCount: message.receiveCount,
    sentAt: new Date(message.sentAt).toISOString(),
    bodyPreview: message.body.slice(0, 2000),
  };
  await new DeadLetterRecords(deps.db, deps.tableName).put(record);
  if (decision !== 'discarded') {
    await publish(deps, `clause-review dead letter: ${c.errorClass}, ${decision} (${queue})`, {
      kind: 'dead-letter',
      ...record,
      job: view.job
        ? {
            status: view.job.status,
            chunkCount: view.job.chunkCount,
            chunksTerminal: view.job.chunksTerminal,
            key: view.job.key,
          }
        : undefined,
    });
  }
  deps.log?.('dlq-triaged', { ...record, bodyPreview: undefined });
  return record;
}

/**
 * Triage of every DLQ: each dead letter is enriched from its checkpoint, classified
 * (transient | infrastructure | validation | logic), then redriven (retryable, and fewer than
 * `maxRedrives` redrives of its chunk so far), or marked dead with the reason (the job then
 * finalizes incomplete, naming it), or discarded when its work already ended. Every decision
 * is written as a DLQ record and alerted; `escalationThreshold` dead letters within the window
 * raise one escalation alert per clock hour.
 */
export async function triageDeadLetters(deps: DlqDeps): Promise<TriageSummary> {
  const now = deps.now ?? Date.now;
  const decisions: TriageSummary['decisions'] = [];
  let seen = 0;
  for (const queue of QUEUE_ROLES) {
    const messages = await receiveAll(deps.sqs, deps.dlqUrls[queue]);
    seen += messages.length;
    for (const message of messages) {
      try {
        decisions.push(await triageOne(deps, await enrich(deps, queue, message)));
      } catch (error) {
        deps.log?.('dlq-triage-failed', { queue, messageId: message.messageId, error: String(error) });
        await release(deps.sqs, deps.dlqUrls[queue], message).catch(() => {});
      }
    }
  }
  const escalated = await maybeEscalate(deps, now());
  return { seen, decisions, escalated };
}

async function maybeEscalate(deps: DlqDeps, now: number): Promise<boolean> {
  const threshold = deps.escalationThreshold ?? 3;
  const windowMs = deps.escalationWindowMs ?? 3_600_000;
  const records = new DeadLetterRecords(deps.db, deps.tableName);
  const to = new Date(now).toISOString();
  const recent = await records.between(new Date(now - windowMs).toISOString(), to);
  if (recent.length < threshold) return false;
  if (!(await records.claimEscalation(to, recent.length))) return false;
  const count = (key: (r: DeadLetterRecord) => string | undefined) => {
    const out: Record<string, number> = {};
    for (const r of recent) {
      const k = key(r) ?? 'unknown';
      out[k] = (out[k] ?? 0) + 1;
    }
    return out;
  };
  await publish(
    deps,
    `clause-review ESCALATION: ${recent.length} dead letters within ${Math.round(windowMs / 60_000)} min`,
    {
      kind: 'escalation',
      at: to,
      count: recent.length,
      threshold,
      windowMinutes: windowMs / 60_000,
      byClass: count((r) => r.errorClass),
      byAnalyst: count((r) => r.analystId),
      byQueue: count((r) => r.queue),
      jobs: [...new Set(recent.map((r) => r.jobId).filter(Boolean))],
    },
  );
  return true;
}
