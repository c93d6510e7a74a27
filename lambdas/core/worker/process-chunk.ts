import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ChangeMessageVisibilityCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AnalystAnswer, consolidateClause, selectAnalysts } from '../analysts/index.js';
import type { PipelineMetrics } from '../metrics/index.js';
import type { Clause } from '../model.js';
import { MODEL_PRICES, type ModelPrice } from '../models.js';
import { CallLedger, type CallRef } from '../state/call-ledger.js';
import { Claims, isChunkTerminal, type Lease } from '../state/claims.js';
import { isLeaseLostError } from '../state/errors.js';
import { type Job, Jobs } from '../state/jobs.js';
import { callSk, STAGES, type Stage } from '../state/keys.js';
import { analyzeChunk } from './analyze-stage.js';
import { type BackoffPolicy, DEFAULT_BACKOFF } from './backoff.js';
import { type ChunkMessage, chunkMessageSchema } from './chunk-message.js';
import type { LimiterRegistry } from './limiter.js';
import { Semaphore } from './semaphore.js';

/** One delivery of a chunk message, as either entry point sees it. */
export interface Delivery {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** SQS's ApproximateReceiveCount of this delivery (1 for the first). */
  readonly receiveCount: number;
  /** The queue it came from, for visibility changes. */
  readonly queueUrl: string;
}

/** What to do with the message: delete it, or leave it to come back after `visibilitySeconds`. */
export type Disposition =
  | { readonly action: 'ack'; readonly outcome: string }
  | { readonly action: 'retry'; readonly reason: string; readonly visibilitySeconds?: number };

/** Everything the worker core needs; both entry points build it once per process. */
export interface WorkerDeps {
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly bedrock: BedrockRuntimeClient;
  readonly tableName: string;
  readonly finalizeQueueUrl: string;
  readonly workerId: string;
  readonly leaseMs: number;
  readonly callConcurrency: number;
  readonly modelTimeoutMs: number;
  /** Tier-2 visibility backoff by receive count. */
  readonly redeliveryBackoffSeconds: readonly number[];
  readonly backoff?: BackoffPolicy;
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Model overrides for every analyst (e.g. local runs), keyed primary → replacement. */
  readonly onCallStart?: (call: CallRef, modelId: string) => void;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  /** Aborts in-flight work (process shutdown). */
  readonly signal?: AbortSignal;
  /** Adaptive concurrency per model for the whole process (realtime calls served first). */
  readonly limiters?: LimiterRegistry;
  /** Where calls, chunks and limiter windows are reported. @default none (no metrics) */
  readonly metrics?: PipelineMetrics;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The tier-2 backoff for a delivery: 30 s after the first, 2 min after the second, 5 min after. */
export function redeliveryDelay(receiveCount: number, schedule: readonly number[]): number {
  const i = Math.min(Math.max(receiveCount, 1), schedule.length) - 1;
  return schedule[i] ?? 0;
}

/**
 * Keeps a claim alive while a stage runs: renews the lease and the message's visibility at
 * a third of the lease length. If the lease is lost, it aborts the stage so that nothing
 * more is committed under it.
 */
function startHeartbeat(
  deps: WorkerDeps,
  claims: Claims,
  lease: Lease,
  delivery: Delivery,
  abort: AbortController,
) {
  const every = Math.max(1000, Math.floor(deps.leaseMs / 3));
  const visibility = Math.ceil((deps.leaseMs * 2) / 1000);
  const timer = setInterval(() => {
    void (async () => {
      try {
        await claims.heartbeat(lease, deps.leaseMs);
        await deps.sqs.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: delivery.queueUrl,
            ReceiptHandle: delivery.receiptHandle,
            VisibilityTimeout: visibility,
          }),
        );
      } catch (error) {
        if (isLeaseLostError(error)) abort.abort(error);
        deps.log?.('heartbeat-failed', { jobId: lease.jobId, chunk: lease.chunk, error: String(error) });
      }
    })();
  }, every);
  timer.unref?.();
  return () => clearInterval(timer);
}

/** Processes one chunk delivery through every stage it still needs. */
export async function processChunk(delivery: Delivery, deps: WorkerDeps): Promise<Disposition> {
  let body: unknown;
  try {
    body = JSON.parse(delivery.body || 'null');
  } catch (error) {
    body = error;
  }
  const parsed = chunkMessageSchema.safeParse(body);
  deps.metrics?.chunk({
    ...(parsed.success ? { lane: parsed.data.lane } : {}),
    redelivered: delivery.receiveCount > 1,
  });
  if (!parsed.success) {
    // It can never succeed; letting it reach the DLQ keeps it for triage instead of losing it.
    const why = body instanceof Error ? `not JSON (${body.message})` : parsed.error.issues[0]?.message;
    return { action: 'retry', reason: `malformed chunk message: ${why ?? 'invalid'}` };
  }
  const message = parsed.data;
  const now = deps.now ?? Date.now;
  const jobs = new Jobs(deps.db, deps.tableName, now);
  const claims = new Claims(deps.db, deps.tableName, now);
  const ledger = new CallLedger(deps.db, deps.tableName, now);
  const log = deps.log ?? (() => {});

  for (const [stageIndex, stage] of STAGES.entries()) {
    const job = await jobs.find(message.jobId);
    if (!job) return { action: 'retry', reason: `job ${message.jobId} not found` };
    if (!['running', 'cancelled'].includes(job.status)) {
      return { action: 'ack', outcome: `job already ${job.status}` };
    }
    const claim = await claims.claim(message.jobId, message.chunk, stage, deps.workerId, deps.leaseMs);
    if (!claim.won) {
      const cp = claim.checkpoint;
      if (cp?.status === 'done') continue;
      const all = await claims.list(message.jobId);
      if (isChunkTerminal(all.filter((c) => c.chunk === message.chunk))) {
        return { action: 'ack', outcome: 'chunk already terminal' };
      }
      // Another worker holds a live lease: never delete a message it may still depend on.
      // Come back when that lease would have run out, in case its holder died.
      const left = Math.max(0, (cp?.claimExpiresAt ?? now()) - now());
      return {
        action: 'retry',
        reason: 'claimed by another worker',
        visibilitySeconds: Math.ceil(left / 1000) + 5,
      };
    }
    const lease = claim.lease;
    if (job.status === 'cancelled') {
      await claims.finishChunk(lease, {
        status: 'cancelled',
        stoppedAt: `cancelled-at-stage-${stageIndex + 1}`,
      });
      await maybeFinalize(jobs, deps, message.jobId);
      return { action: 'ack', outcome: `cancelled-at-stage-${stageIndex + 1}` };
    }
    const abort = new AbortController();
    const stopHeartbeat = startHeartbeat(deps, claims, lease, delivery, abort);
    try {
      const result = await runStage(stage, stageIndex, job, lease, message, deps, ledger, abort.signal);
      if (result.action === 'retry') {
        return {
          ...result,
          visibilitySeconds:
            result.visibilitySeconds ?? redeliveryDelay(delivery.receiveCount, deps.redeliveryBackoffSeconds),
        };
      }
      if (stage === STAGES.at(-1) || result.outcome.startsWith('cancelled')) {
        await maybeFinalize(jobs, deps, message.jobId);
        return result;
      }
    } catch (error) {
      if (isLeaseLostError(error)) return { action: 'retry', reason: error.message };
      throw error;
    } finally {
      stopHeartbeat();
    }
    log('stage-done', { jobId: message.jobId, chunk: message.chunk, stage });
  }
  return { action: 'ack', outcome: 'done' };
}

async function runStage(
  stage: Stage,
  stageIndex: number,
  job: Job,
  lease: Lease,
  message: ChunkMessage,
  deps: WorkerDeps,
  ledger: CallLedger,
  signal: AbortSignal,
): Promise<Disposition> {
  const claims = new Claims(deps.db, deps.tableName, deps.now ?? Date.now);
  const analysts = selectAnalysts([...job.analysts]);
  if (stage === 'analyze') {
    const outcome = await analyzeChunk(
      job,
      lease,
      message.clauses,
      analysts,
      {
        bedrock: deps.bedrock,
        ledger,
        semaphore: new Semaphore(deps.callConcurrency),
        lane: message.lane,
        ...(deps.limiters ? { limiters: deps.limiters } : {}),
        backoff: deps.backoff ?? DEFAULT_BACKOFF,
        prices: deps.prices ?? MODEL_PRICES,
        modelTimeoutMs: deps.modelTimeoutMs,
        random: deps.random ?? Math.random,
        sleep: deps.sleep ?? abortableSleep,
        now: deps.now ?? Date.now,
        ...(deps.onCallStart ? { onCallStart: deps.onCallStart } : {}),
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
      },
      deps.signal ? AbortSignal.any([signal, deps.signal]) : signal,
    );
    if (outcome.stopped === 'lease-lost' || signal.aborted) {
      // If the claim is in fact still ours, free it so the next delivery need not wait it out.
      await claims
        .release(lease, { lastError: 'lease lost during analyze', errorClass: 'infrastructure' })
        .catch(() => {});
      return { action: 'retry', reason: 'lease lost during analyze' };
    }
    if (outcome.stopped === 'cancelled') {
      await claims.finishChunk(lease, {
        status: 'cancelled',
        stoppedAt: `cancelled-at-stage-${stageIndex + 1}`,
      });
      return { action: 'ack', outcome: `cancelled-at-stage-${stageIndex + 1}` };
    }
    if (outcome.exhausted.length > 0) {
      const first = outcome.exhausted[0];
      await claims.release(lease, {
        lastError: `${outcome.exhausted.length} call(s) out of tier-1 retries; first: ${first?.call.clauseId}/${first?.call.analystId}: ${first?.error}`,
        errorClass: 'transient',
      });
      return { action: 'retry', reason: 'tier-1 retries exhausted' };
    }
    await claims.completeStage(lease, { calls: outcome.counts });
    return { action: 'ack', outcome: 'analyzed' };
  }

  const entries = await ledger.forChunk(job.jobId, lease.chunk);
  const assessments = message.clauses.map((clause: Clause) => {
    const answers: AnalystAnswer[] = [];
    const failed: string[] = [];
    for (const analyst of analysts) {
      const entry = entries.get(callSk(lease.chunk, clause.id, analyst.id));
      if (entry?.status === 'done' && entry.result) answers.push(JSON.parse(entry.result) as AnalystAnswer);
      else failed.push(analyst.id);
    }
    return consolidateClause(clause, answers, failed);
  });
  await claims.finishChunk(lease, { status: 'done', result: JSON.stringify(assessments) });
  return { action: 'ack', outcome: 'done' };
}

/** After a chunk ends: the completion that makes the count whole enqueues finalize, once. */
async function maybeFinalize(jobs: Jobs, deps: WorkerDeps, jobId: string): Promise<void> {
  const job = await jobs.get(jobId);
  if (job.chunksTerminal < job.chunkCount) return;
  if (!(await jobs.claimFinalize(jobId))) return;
  await deps.sqs.send(
    new SendMessageCommand({ QueueUrl: deps.finalizeQueueUrl, MessageBody: JSON.stringify({ v: 1, jobId }) }),
  );
}
