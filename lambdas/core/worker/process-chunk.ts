/**
 * A chunk delivery through its stages (analyze, then consolidate), each under a fenced lease
 * with its heartbeat; what becomes of the message is the returned disposition (disposition.ts).
 */
import { setMaxListeners } from 'node:events';
import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type AnalystDefinition, type PanelModels, selectAnalysts, withModels } from '../analysts/index.js';
import { enqueueFinalizeIfComplete } from '../finalize-queue.js';
import type { PipelineMetrics } from '../metrics/index.js';
import { FALLBACK_MODEL_ID, MODEL_PRICES, type ModelPrice, PRIMARY_MODEL_ID } from '../model-catalogue.js';

import { type CallRef, outcomeOf } from '../state/call-ledger.js';
import { isChunkTerminal } from '../state/checkpoint.js';
import type { CallCounts, Checkpoint, Claims, Lease } from '../state/claims.js';
import { isAllotmentOverdrawnError, isLeaseLostError } from '../state/errors.js';
import { isPaused, type Job } from '../state/job.js';
import type { Jobs } from '../state/jobs.js';
import { STAGES, type Stage } from '../state/keys.js';
import { type Stores, storesOf } from '../stores.js';
import { type BackoffPolicy, backoffSleep, DEFAULT_BACKOFF } from './backoff.js';
import { checkChunkBooks, reportBreaches } from './chunk-books-check.js';
import { type ChunkMessage, chunkMessageSchema } from './chunk-message.js';
import { ChunkStop } from './chunk-stop.js';
import { type Delivery, type Disposition, redeliveryDelay } from './disposition.js';
import { Heartbeat, messageHoldSeconds } from './heartbeat.js';
import { JobGates } from './job-gate.js';
import type { LimiterRegistry } from './limiter-registry.js';
import { withJobPlaybook } from './panel-positions.js';
import { Semaphore } from './semaphore.js';
import { type AnalyzeResult, analyzeStage } from './stages/analyze.js';
import { consolidateChunk } from './stages/consolidate.js';
import type { TokenBudgets } from './token-budget.js';

export type { Delivery, Disposition } from './disposition.js';
export { redeliveryDelay } from './disposition.js';

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
  /** The configured models, for jobs that do not record their own. */
  readonly models?: PanelModels;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called once per model request that is sent. */
  readonly onCallStart?: (call: CallRef, modelId: string) => void;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  /** Aborts in-flight work (process shutdown). */
  readonly signal?: AbortSignal;
  /** Adaptive concurrency per model for the whole process (realtime calls served first). */
  readonly limiters?: LimiterRegistry;
  /** Tokens- and requests-per-minute budgets per model, shared with every process. @default unlimited */
  readonly budgets?: TokenBudgets;
  /** Where calls, chunks and limiter windows are reported. @default none (no metrics) */
  readonly metrics?: PipelineMetrics;
}

/** Each process's job gates, shared by the chunks it runs at once (deps are built once per process). */
const processGates = new WeakMap<WorkerDeps, JobGates>();

function gatesOf(deps: WorkerDeps, jobs: Jobs): JobGates {
  let gates = processGates.get(deps);
  if (!gates) {
    gates = new JobGates((jobId) => jobs.gate(jobId), deps.now ?? Date.now);
    processGates.set(deps, gates);
  }
  return gates;
}

/** The heartbeat of a stage held under `lease`, started (see {@link Heartbeat}). */
function startHeartbeat(
  deps: WorkerDeps,
  claims: Claims,
  lease: Lease,
  delivery: Delivery,
  stop: ChunkStop,
  progress: () => CallCounts | undefined,
): Heartbeat {
  return new Heartbeat({
    claims,
    lease,
    leaseMs: deps.leaseMs,
    holdMessage: () =>
      deps.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: delivery.queueUrl,
          ReceiptHandle: delivery.receiptHandle,
          VisibilityTimeout: messageHoldSeconds(deps.leaseMs),
        }),
      ),
    progress,
    stop,
    ...(deps.log ? { log: deps.log } : {}),
  }).start();
}

/** What a stage holder does next. */
type Claimed =
  | { readonly kind: 'won'; readonly lease: Lease; readonly checkpoint: Checkpoint }
  | { readonly kind: 'stage-done' }
  | { readonly kind: 'disposition'; readonly disposition: Disposition };

/**
 * Claims one stage. A lost claim is either a finished stage (go on), a finished chunk (ack),
 * or a live lease elsewhere: the message comes back when that lease would have run out, in
 * case its holder died; it is never deleted while another worker may depend on it.
 */
async function claimStage(
  t: Stores,
  deps: WorkerDeps,
  message: ChunkMessage,
  stage: Stage,
  now: () => number,
): Promise<Claimed> {
  const claim = await t.claims.claim(message.jobId, message.chunk, stage, deps.workerId, deps.leaseMs);
  if (claim.won) return { kind: 'won', lease: claim.lease, checkpoint: claim.checkpoint };
  const cp = claim.checkpoint;
  if (cp?.status === 'done') return { kind: 'stage-done' };
  const stages = await Promise.all(STAGES.map((s) => t.claims.get(message.jobId, message.chunk, s)));
  if (isChunkTerminal(stages.filter((c): c is Checkpoint => c !== undefined))) {
    return { kind: 'disposition', disposition: { action: 'ack', outcome: 'chunk already terminal' } };
  }
  const left = Math.max(0, (cp?.claimExpiresAt ?? now()) - now());
  return {
    kind: 'disposition',
    disposition: {
      action: 'retry',
      reason: 'claimed by another worker',
      visibilitySeconds: Math.ceil(left / 1000) + 5,
    },
  };
}

/** Per-delivery hooks of {@link processChunk}. */
export interface ChunkHooks {
  /** Called once every call of the chunk has started: only its tail is left to finish. */
  readonly onDraining?: () => void;
  /** Given the analyze stage's live call counts, which heartbeats record. */
  readonly onCounts?: (counts: CallCounts) => void;
}

/** Processes one chunk delivery through every stage it still needs. */
export async function processChunk(
  delivery: Delivery,
  deps: WorkerDeps,
  hooks: ChunkHooks = {},
): Promise<Disposition> {
  const parsed = parseMessage(delivery, deps);
  if ('action' in parsed) return parsed;
  const message = parsed;
  const now = deps.now ?? Date.now;
  const t = storesOf(deps);
  const job = await t.jobs.find(message.jobId);
  if (!job) return { action: 'retry', reason: `job ${message.jobId} not found` };
  // A paused job's chunks are sent again when it is resumed.
  if (isPaused(job)) return { action: 'ack', outcome: 'job paused' };
  if (!['running', 'cancelled'].includes(job.status))
    return { action: 'ack', outcome: `job already ${job.status}` };

  const run: StageRun = { delivery, deps, hooks, t, message };
  for (const [stageIndex, stage] of STAGES.entries()) {
    const claimed = await claimStage(t, deps, message, stage, now);
    if (claimed.kind === 'disposition') return claimed.disposition;
    if (claimed.kind === 'stage-done') continue;
    const current = stageIndex === 0 ? job : await t.jobs.get(message.jobId);
    const stop = new ChunkStop();
    const progress: { counts?: CallCounts } = {};
    using _heartbeat = startHeartbeat(deps, t.claims, claimed.lease, delivery, stop, () => progress.counts);
    try {
      const held = {
        ...claimed,
        job: current,
        stoppedAt: `cancelled-at-stage-${stageIndex + 1}`,
        stop,
        progress,
      };
      const disposition = await (stage === 'analyze'
        ? analyzeUnderLease(run, held)
        : consolidateUnderLease(run, held));
      if (disposition) return disposition;
    } catch (error) {
      if (isAllotmentOverdrawnError(error)) {
        reportBreaches(deps, [
          { kind: 'overdraw', jobId: message.jobId, chunk: message.chunk, detail: error.message },
        ]);
      }
      if (isLeaseLostError(error)) return { action: 'retry', reason: error.message };
      throw error;
    }
    deps.log?.('stage-done', { jobId: message.jobId, chunk: message.chunk, stage });
  }
  return { action: 'ack', outcome: 'done' };
}

/** The message of a delivery, or the disposition of one that can never be processed. */
function parseMessage(delivery: Delivery, deps: WorkerDeps): ChunkMessage | Disposition {
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
  if (parsed.success) return parsed.data;
  // It can never succeed; letting it reach the DLQ keeps it for triage instead of losing it.
  const why = body instanceof Error ? `not JSON (${body.message})` : parsed.error.issues[0]?.message;
  return { action: 'retry', reason: `malformed chunk message: ${why ?? 'invalid'}` };
}

/** One delivery's context, shared by its stages. */
interface StageRun {
  readonly delivery: Delivery;
  readonly deps: WorkerDeps;
  readonly hooks: ChunkHooks;
  readonly t: Stores;
  readonly message: ChunkMessage;
}

/** A stage claimed by this delivery. */
interface HeldStage {
  readonly lease: Lease;
  readonly checkpoint: Checkpoint;
  readonly job: Job;
  readonly stoppedAt: string;
  /** The stage run's one stop signal. */
  readonly stop: ChunkStop;
  readonly progress: { counts?: CallCounts };
}

/**
 * Records a chunk stopped by a cancel, in one write, and enqueues finalize if it was the last.
 * A chunk whose money moved (calls ran, or a takeover settled an earlier holder's) has its books
 * checked first.
 */
async function finishCancelled(
  run: StageRun,
  held: HeldStage,
  extra: Pick<Checkpoint, 'calls' | 'unstarted'> = {},
): Promise<Disposition> {
  if (held.lease.stage === 'consolidate' || extra.calls || held.lease.attempts > 1) {
    await checkChunkBooks(run.t, run.deps, run.message);
  }
  await run.t.claims.finishChunk(held.lease, { status: 'cancelled', stoppedAt: held.stoppedAt, ...extra });
  await enqueueFinalizeIfComplete(run.deps, run.message.jobId);
  return { action: 'ack', outcome: held.stoppedAt };
}

/** The analyze stage under its lease; undefined when the chunk goes on to consolidate. */
async function analyzeUnderLease(run: StageRun, held: HeldStage): Promise<Disposition | undefined> {
  const { t, deps, delivery } = run;
  // A cancelled job's chunk still goes through the stage, whose takeover returns the
  // allotment a dead holder left.
  const result = await runAnalyze(held.job, held.lease, held.checkpoint, run.message, deps, t, held.stop, {
    ...run.hooks,
    onCounts: (counts) => {
      held.progress.counts = counts;
      run.hooks.onCounts?.(counts);
    },
  });
  const backoff = redeliveryDelay(delivery.receiveCount, deps.redeliveryBackoffSeconds);
  if (result.kind === 'lease-lost' || held.stop.endsRequests) {
    return { ...(await leaseLost(t, held.lease, 'lease lost during analyze')), visibilitySeconds: backoff };
  }
  if (result.kind === 'retry') {
    await t.claims.release(held.lease, { lastError: result.reason, errorClass: 'transient' });
    return { action: 'retry', reason: 'tier-1 retries exhausted', visibilitySeconds: backoff };
  }
  if (result.kind === 'cancelled-before-start') return finishCancelled(run, held);
  if (result.kind === 'cancelled') {
    return finishCancelled(run, held, { calls: result.counts, unstarted: result.unstarted });
  }
  if (result.kind === 'paused') {
    // Nothing is lost: answered calls are in the ledger, the allotment is back with the job,
    // and resume sends this chunk again.
    await t.claims.setAside(held.lease);
    return { action: 'ack', outcome: 'paused' };
  }
  await t.claims.completeStage(held.lease, {
    calls: result.counts,
    ...(result.unstarted ? { unstarted: result.unstarted } : {}),
  });
  return undefined;
}

/** The consolidate stage under its lease: the chunk's assessments, and the chunk counted. */
async function consolidateUnderLease(run: StageRun, held: HeldStage): Promise<Disposition | undefined> {
  const { t, message } = run;
  if (held.job.status === 'cancelled') return finishCancelled(run, held);
  // One Query of the chunk's ledger: the answers to consolidate, and where every call ended,
  // which the checkpoint keeps for the report.
  const entries = await t.ledger.forChunk(message.jobId, message.chunk);
  await checkChunkBooks(t, run.deps, message, entries);
  const analysts = panelOf(held.job, run.deps);
  const assessments = consolidateChunk(message.chunk, message.clauses, analysts, entries, message.screened);
  await t.claims.finishChunk(held.lease, {
    status: 'done',
    result: JSON.stringify(assessments),
    outcomes: JSON.stringify([...entries.values()].map(outcomeOf)),
  });
  await enqueueFinalizeIfComplete(run.deps, message.jobId);
  return undefined;
}

/** The models of a job that records none and a process configured with none. */
const DEFAULT_PANEL_MODELS: PanelModels = { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID };

/** The job's analysts with the models the job was started with (the process's for older jobs). */
function panelOf(job: Job, deps: WorkerDeps): readonly AnalystDefinition[] {
  return withModels(selectAnalysts([...job.analysts]), job.models ?? deps.models ?? DEFAULT_PANEL_MODELS);
}

/** The analyze stage with this process's dependencies. */
async function runAnalyze(
  job: Job,
  lease: Lease,
  checkpoint: Checkpoint,
  message: ChunkMessage,
  deps: WorkerDeps,
  t: Stores,
  stop: ChunkStop,
  hooks: ChunkHooks,
): Promise<AnalyzeResult> {
  const shutdown = deps.signal;
  // Every chunk the process runs at once listens on its shutdown signal.
  if (shutdown) setMaxListeners(0, shutdown);
  // The process shutting down stops the stage, ending its requests in flight.
  using _shutdown = stop.follow(shutdown, 'deadline');
  const analysts = await withJobPlaybook(panelOf(job, deps), job, deps);
  const { gate, release } = gatesOf(deps, t.jobs).acquire(job.jobId);
  return await analyzeStage(
    job,
    lease,
    checkpoint,
    message.clauses,
    analysts,
    {
      bedrock: deps.bedrock,
      ...(message.context ? { context: message.context } : {}),
      ...(message.screened ? { screened: message.screened } : {}),
      ledger: t.ledger,
      jobs: t.jobs,
      allotments: t.allotments,
      semaphore: new Semaphore(deps.callConcurrency),
      lane: message.lane,
      gate,
      leaseMarginMs: Math.min(1000, deps.leaseMs / 10),
      ...(deps.limiters ? { limiters: deps.limiters } : {}),
      ...(deps.budgets ? { budgets: deps.budgets } : {}),
      backoff: deps.backoff ?? DEFAULT_BACKOFF,
      prices: deps.prices ?? MODEL_PRICES,
      modelTimeoutMs: deps.modelTimeoutMs,
      random: deps.random ?? Math.random,
      sleep: deps.sleep ?? backoffSleep,
      now: deps.now ?? Date.now,
      ...(deps.onCallStart ? { onCallStart: deps.onCallStart } : {}),
      ...(deps.metrics ? { metrics: deps.metrics } : {}),
      ...(hooks.onDraining ? { onDraining: hooks.onDraining } : {}),
      ...(hooks.onCounts ? { onCounts: hooks.onCounts } : {}),
      onBreach: (breach) => reportBreaches(deps, [breach]),
    },
    stop,
  ).finally(release);
}

/** If the claim is in fact still ours, free it so the next delivery need not wait it out. */
async function leaseLost(
  t: Stores,
  lease: Lease,
  reason: string,
): Promise<{ action: 'retry'; reason: string }> {
  await t.claims.release(lease, { lastError: reason, errorClass: 'infrastructure' }).catch(() => {});
  return { action: 'retry', reason };
}
