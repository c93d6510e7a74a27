import { createHash } from 'node:crypto';
import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import {
  type AnalystAnswer,
  type AnalystDefinition,
  buildConverseInput,
  isAnswerValidationError,
  parseAnswer,
} from '../analysts/index.js';
import type { PipelineMetrics } from '../metrics/index.js';
import type { Clause, Lane } from '../model.js';
import { costOf, type ModelPrice } from '../models.js';
import type { CallFailureKind, CallLedger, CallRef, LedgerEntry, Reservation } from '../state/call-ledger.js';
import type { Lease } from '../state/claims.js';
import type { Job } from '../state/jobs.js';
import { callSk } from '../state/keys.js';
import { type BackoffPolicy, fullJitterDelay, mayRetry } from './backoff.js';
import { classifyCallError, describeError, isThrottle } from './error-class.js';
import type { LimiterRegistry, Permit } from './limiter.js';
import type { Semaphore } from './semaphore.js';

/** What the analyze stage needs from its surroundings. */
export interface AnalyzeDeps {
  readonly bedrock: BedrockRuntimeClient;
  readonly ledger: CallLedger;
  readonly semaphore: Semaphore;
  /** Adaptive concurrency per model, shared by every chunk of the process. */
  readonly limiters?: LimiterRegistry;
  /** The job's lane: realtime calls are served before batch calls waiting on the same model. */
  readonly lane?: Lane;
  readonly backoff: BackoffPolicy;
  readonly prices: Readonly<Record<string, ModelPrice>>;
  readonly modelTimeoutMs: number;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  /** Called once per model call that starts (after its reservation). */
  readonly onCallStart?: (call: CallRef, modelId: string) => void;
  /** Told about every request and every call's outcome. @default none */
  readonly metrics?: PipelineMetrics;
}

/** How the stage ended. */
export interface AnalyzeOutcome {
  /** `cancelled`: the job was cancelled; `lease-lost`: another worker owns the chunk now. */
  readonly stopped?: 'cancelled' | 'lease-lost';
  /** Calls that ran out of tier-1 retries: the chunk goes back to SQS for tier 2. */
  readonly exhausted: { call: CallRef; error: string }[];
  readonly counts: { done: number; reused: number; failed: number; skipped: number; retries: number };
}

/**
 * Upper bound of a call's input tokens: a token is at least one byte, so the UTF-8 size of
 * everything sent (plus framing) can never be exceeded. Reserving on it keeps the ceiling
 * safe whatever tokenizer the model uses; settlement returns the difference.
 */
export function worstCaseInputTokens(input: ConverseCommandInput): number {
  const sent = JSON.stringify({ s: input.system, m: input.messages, t: input.toolConfig });
  return Buffer.byteLength(sent, 'utf8') + 64;
}

/** The call-ledger idempotency key: same model, prompt version and parameters ⇒ same call. */
export function idempotencyKey(analyst: AnalystDefinition, clause: Clause): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        analyst.id,
        analyst.promptVersion,
        analyst.modelId,
        analyst.maxTokens,
        analyst.temperature,
        clause.text,
      ]),
    )
    .digest('hex')
    .slice(0, 32);
}

function answerText(output: ConverseCommandOutput): string {
  const blocks = output.output?.message?.content ?? [];
  const tool = blocks.find((b) => b.toolUse)?.toolUse;
  if (tool) return JSON.stringify(tool.input);
  return blocks
    .map((b) => b.text ?? '')
    .join('\n')
    .slice(0, 4000);
}

class Stop extends Error {
  constructor(readonly why: 'cancelled' | 'lease-lost') {
    super(why);
  }
}

/**
 * Runs every (clause × analyst) call of a chunk that the ledger does not already hold,
 * with bounded concurrency, budget reservations, tier-1 retries, a repair retry for
 * invalid answers and the fallback model after repeated throttling.
 */
export async function analyzeChunk(
  job: Job,
  lease: Lease,
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  deps: AnalyzeDeps,
  signal: AbortSignal,
): Promise<AnalyzeOutcome> {
  const existing = await deps.ledger.forChunk(job.jobId, lease.chunk);
  const counts = { done: 0, reused: 0, failed: 0, skipped: 0, retries: 0 };
  const exhausted: AnalyzeOutcome['exhausted'] = [];
  let stopped: AnalyzeOutcome['stopped'];
  const halt = new AbortController();
  const stopAll = (why: 'cancelled' | 'lease-lost') => {
    stopped ??= why;
    halt.abort();
  };
  signal.addEventListener('abort', () => stopAll('lease-lost'), { once: true });

  const runCall = async (clause: Clause, analyst: AnalystDefinition, prior: LedgerEntry | undefined) => {
    const call: CallRef = {
      jobId: job.jobId,
      chunk: lease.chunk,
      clauseId: clause.id,
      analystId: analyst.id,
      idempotencyKey: idempotencyKey(analyst, clause),
    };
    if (
      prior &&
      (prior.status === 'done' || prior.status === 'failed') &&
      prior.idempotencyKey === call.idempotencyKey
    ) {
      counts.reused++;
      deps.metrics?.call({ model: prior.modelId ?? analyst.modelId, outcome: 'reused' });
      return;
    }
    await deps.semaphore.run(async () => {
      if (halt.signal.aborted) return;
      try {
        const result = await callWithRetries(job, lease, call, clause, analyst, deps, halt.signal, signal);
        if (result.kind === 'done') counts.done++;
        else if (result.kind === 'reused') counts.reused++;
        else if (result.kind === 'failed') counts[result.failureKind === 'budget' ? 'skipped' : 'failed']++;
        else exhausted.push({ call, error: result.error });
        counts.retries += result.retries;
        deps.metrics?.call(
          result.kind === 'reused'
            ? { model: result.modelId, outcome: 'reused' }
            : {
                model: result.modelId,
                outcome: result.kind === 'done' ? 'succeeded' : 'failed',
                retries: result.retries,
              },
        );
      } catch (error) {
        if (error instanceof Stop) stopAll(error.why);
        else throw error;
      }
    });
  };

  const tasks: Promise<void>[] = [];
  for (const clause of clauses) {
    for (const analyst of analysts) {
      tasks.push(runCall(clause, analyst, existing.get(callSk(lease.chunk, clause.id, analyst.id))));
    }
  }
  const settled = await Promise.allSettled(tasks);
  const crashed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (crashed && !stopped) throw crashed.reason;
  return { ...(stopped ? { stopped } : {}), exhausted, counts };
}

/** How a call ended, and the model of its last attempt. */
type CallResult = { modelId: string } & (
  | { kind: 'done'; retries: number }
  | { kind: 'reused'; retries: number }
  | { kind: 'failed'; failureKind: CallFailureKind; retries: number }
  | { kind: 'exhausted'; error: string; retries: number }
);

/** The owner a ledger entry records for a holder of the chunk's lease. */
const leaseOwner = (lease: Lease) => `${lease.workerId}:${lease.fence}`;

/**
 * Takes a limiter permit, then reserves the call's worst case under it. The permit comes
 * first: a call must not wait for a permit after its reservation, or a call reserved before
 * a cancel could start long after it. Room under the ceiling that is held by other calls'
 * reservations comes back as they settle, so a `contended` refusal is asked again (without
 * holding a permit meanwhile) for up to the tier-1 time cap; after that the ceiling is
 * treated as reached. A refused reservation gives its permit back unused.
 */
async function reserveWhenRoom(
  job: Job,
  lease: Lease,
  call: CallRef,
  modelId: string,
  estimate: number,
  deps: AnalyzeDeps,
  halt: AbortSignal,
): Promise<{ permit?: Permit; reservation: Reservation }> {
  const since = deps.now();
  for (;;) {
    const permit = await deps.limiters
      ?.for(modelId)
      .acquire(deps.lane ?? 'realtime', { signal: halt })
      .catch(() => {
        throw new Stop('lease-lost');
      });
    let reservation: Reservation;
    try {
      reservation = await deps.ledger.reserve(call, lease, estimate, job);
    } catch (error) {
      permit?.release({ unused: true });
      throw error;
    }
    if (reservation.ok) return { ...(permit ? { permit } : {}), reservation };
    permit?.release({ unused: true });
    if (reservation.reason !== 'contended') return { reservation };
    if (deps.now() - since > deps.backoff.totalCapMs) {
      await deps.ledger.markBudgetExceeded(job.jobId);
      return { reservation: { ok: false, reason: 'budget' } };
    }
    await deps.sleep(100 + Math.floor(deps.random() * 400), halt);
    if (halt.aborted) throw new Stop('lease-lost');
  }
}

async function callWithRetries(
  job: Job,
  lease: Lease,
  call: CallRef,
  clause: Clause,
  analyst: AnalystDefinition,
  deps: AnalyzeDeps,
  halt: AbortSignal,
  abort: AbortSignal,
): Promise<CallResult> {
  const started = deps.now();
  let retries = 0;
  let consecutiveThrottles = 0;
  let modelId = analyst.modelId;
  let repair: { previousAnswer: string; error: string } | undefined;

  for (;;) {
    const input = buildConverseInput(analyst, clause, { modelId, ...(repair ? { repair } : {}) });
    let estimate: number;
    try {
      estimate = costOf(
        modelId,
        { inputTokens: worstCaseInputTokens(input), outputTokens: analyst.maxTokens },
        deps.prices,
      );
    } catch (error) {
      await deps.ledger.settleUnanswered(
        call,
        { owner: leaseOwner(lease) },
        {
          status: 'failed',
          failureKind: 'permanent',
          errorClass: 'logic',
          lastError: describeError(error),
        },
      );
      return { kind: 'failed', failureKind: 'permanent', retries, modelId };
    }
    if (halt.aborted) throw new Stop('lease-lost');
    const { permit, reservation } = await reserveWhenRoom(job, lease, call, modelId, estimate, deps, halt);
    if (!reservation.ok) {
      if (reservation.reason === 'final') return { kind: 'reused', retries, modelId };
      if (reservation.reason === 'budget') {
        await deps.ledger.settleUnanswered(
          call,
          { owner: leaseOwner(lease) },
          {
            status: 'failed',
            failureKind: 'budget',
            errorClass: 'logic',
            lastError: `not started: the job's cost ceiling of ${job.costLimit} micro-USD would be exceeded`,
          },
        );
        return { kind: 'failed', failureKind: 'budget', retries, modelId };
      }
      throw new Stop(reservation.reason === 'lease-lost' ? 'lease-lost' : 'cancelled');
    }
    deps.onCallStart?.(call, modelId);

    let output: ConverseCommandOutput;
    const sentAt = deps.now();
    try {
      output = await deps.bedrock.send(new ConverseCommand(input), {
        // A cancel stops new calls but lets started ones finish (they are reserved and billed);
        // only a lost lease or a shutdown aborts them.
        abortSignal: AbortSignal.any([abort, AbortSignal.timeout(deps.modelTimeoutMs)]) as never,
      });
      permit?.release();
    } catch (error) {
      permit?.release({ throttled: isThrottle(error) });
      deps.metrics?.attempt({ model: modelId, latencyMs: deps.now() - sentAt, throttled: isThrottle(error) });
      const errorClass = classifyCallError(error);
      const lastError = describeError(error);
      if (errorClass !== 'transient') {
        await deps.ledger.settleUnanswered(call, reservation, {
          status: 'failed',
          failureKind: 'permanent',
          errorClass,
          lastError,
        });
        return { kind: 'failed', failureKind: 'permanent', retries, modelId };
      }
      await deps.ledger.settleUnanswered(call, reservation, { status: 'retryable', errorClass, lastError });
      if (halt.aborted) throw new Stop('lease-lost');
      if (isThrottle(error)) {
        consecutiveThrottles++;
        if (
          consecutiveThrottles >= deps.backoff.throttlesBeforeFallback &&
          modelId !== analyst.fallbackModelId
        ) {
          modelId = analyst.fallbackModelId;
          consecutiveThrottles = 0;
        }
      } else consecutiveThrottles = 0;
      const delay = fullJitterDelay(retries, deps.backoff, deps.random);
      if (!mayRetry(retries, deps.now() - started, delay, deps.backoff)) {
        return { kind: 'exhausted', error: lastError, retries, modelId };
      }
      retries++;
      await deps.sleep(delay, halt);
      continue;
    }

    const usage = {
      modelId,
      inputTokens: output.usage?.inputTokens ?? 0,
      outputTokens: output.usage?.outputTokens ?? 0,
    };
    const cost = costOf(modelId, usage, deps.prices);
    deps.metrics?.attempt({
      model: modelId,
      latencyMs: deps.now() - sentAt,
      throttled: false,
      costMicros: cost,
    });
    let answer: AnalystAnswer;
    try {
      answer = parseAnswer(analyst, clause, output);
    } catch (error) {
      if (!isAnswerValidationError(error)) throw error;
      if (!repair) {
        await deps.ledger.settleAnswered(call, reservation, { ...usage, cost });
        repair = { previousAnswer: answerText(output), error: error.repairHint };
        continue;
      }
      await deps.ledger.settleAnswered(
        call,
        reservation,
        { ...usage, cost },
        {
          status: 'failed',
          failureKind: 'validation',
          errorClass: 'validation',
          lastError: describeError(error),
        },
      );
      return { kind: 'failed', failureKind: 'validation', retries, modelId };
    }
    await deps.ledger.settleAnswered(
      call,
      reservation,
      { ...usage, cost },
      { status: 'done', result: JSON.stringify(answer) },
    );
    return { kind: 'done', retries, modelId };
  }
}
