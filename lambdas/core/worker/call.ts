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
import type { CallFailureKind, CallLedger, CallRef, LedgerEntry, Settlement } from '../state/call-ledger.js';
import type { UnstartedReason } from '../state/claims.js';
import { type BackoffPolicy, fullJitterDelay, mayRetry } from './backoff.js';
import type { ChunkBudget } from './chunk-budget.js';
import { classifyCallError, describeError, isThrottle } from './error-class.js';
import type { JobGate } from './job-gate.js';
import type { LimiterRegistry } from './limiter.js';

/** What every call of a process shares. */
export interface CallDeps {
  readonly bedrock: BedrockRuntimeClient;
  readonly ledger: CallLedger;
  /** Adaptive concurrency per model, shared by every chunk of the process. */
  readonly limiters?: LimiterRegistry;
  readonly backoff: BackoffPolicy;
  readonly prices: Readonly<Record<string, ModelPrice>>;
  readonly modelTimeoutMs: number;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  /** Called once per model request that is sent. */
  readonly onCallStart?: (call: CallRef, modelId: string) => void;
  /** Told about every request and every call's outcome. @default none */
  readonly metrics?: PipelineMetrics;
}

/** Why a chunk stops starting calls. */
export type StopReason = UnstartedReason | 'lease-lost';

/** What a chunk's calls share: its budget, status gate and intents, and its stop switch. */
export interface ChunkCalls {
  readonly owner: string;
  readonly lane: Lane;
  readonly budget: ChunkBudget;
  readonly gate: JobGate;
  /** False once the lease is too close to its end for a call to start under it. */
  readonly leaseHeld: () => boolean;
  /** Resolves once the intent of the call at this position is written. */
  readonly intentOf: (index: number) => Promise<void>;
  /** Aborts requests in flight: the lease is lost, or the process is shutting down. */
  readonly abort: AbortSignal;
  /** Set when no further call may start; `halt` aborts waits. */
  stop(why: StopReason): void;
  readonly stopped: () => StopReason | undefined;
  readonly halt: AbortSignal;
}

/** The inputs of one call, bundled. */
export interface CallContext {
  readonly call: CallRef;
  /** Position among the chunk's calls to make (for its intent). */
  readonly index: number;
  readonly clause: Clause;
  readonly analyst: AnalystDefinition;
  readonly prior: LedgerEntry | undefined;
  readonly chunk: ChunkCalls;
  readonly deps: CallDeps;
}

/** How a call ended, and the model of its last attempt. */
export type CallResult = { readonly modelId: string; readonly retries: number } & (
  | { readonly kind: 'done'; readonly result: string }
  | { readonly kind: 'failed'; readonly failureKind: CallFailureKind }
  | { readonly kind: 'exhausted'; readonly error: string }
  | { readonly kind: 'unstarted'; readonly reason: UnstartedReason }
  | { readonly kind: 'lease-lost' }
);

/** Upper bound of a call's input tokens: a token is at least one byte of what is sent. */
export function worstCaseInputTokens(input: ConverseCommandInput): number {
  const sent = JSON.stringify({ s: input.system, m: input.messages, t: input.toolConfig });
  return Buffer.byteLength(sent, 'utf8') + 64;
}

/** Worst-case cost of sending `input` to `modelId`; throws for a model without a price. */
export function worstCaseCost(
  input: ConverseCommandInput,
  modelId: string,
  maxTokens: number,
  prices: Readonly<Record<string, ModelPrice>>,
): number {
  return costOf(modelId, { inputTokens: worstCaseInputTokens(input), outputTokens: maxTokens }, prices);
}

/**
 * The call-ledger idempotency key: a hash of the request itself (prompt text, clause,
 * tool schema, parameters, primary model), so any change to the prompt is a different call and
 * can never reuse an old answer.
 */
export function idempotencyKey(analyst: AnalystDefinition, clause: Clause): string {
  const input = buildConverseInput(analyst, clause, { modelId: analyst.modelId });
  return createHash('sha256')
    .update(JSON.stringify([analyst.id, input]))
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

/** The unstarted result for the reason the chunk stopped. */
function stoppedResult(chunk: ChunkCalls, modelId: string, retries: number): CallResult {
  const why = chunk.stopped() ?? 'lease-lost';
  return why === 'lease-lost'
    ? { kind: 'lease-lost', modelId, retries }
    : { kind: 'unstarted', reason: why, modelId, retries };
}

/**
 * Makes one call: its worst case reserved against the chunk's allotment, its intent, a
 * limiter permit, a status read that began after it asked, then the request. Transient errors are
 * retried with full-jitter backoff (moving to the fallback model after repeated throttles), an
 * invalid answer gets one repair retry, and every answered attempt is written once.
 */
export async function makeCall(ctx: CallContext): Promise<CallResult> {
  const { call, clause, analyst, chunk, deps } = ctx;
  const started = deps.now();
  const same = ctx.prior?.idempotencyKey === call.idempotencyKey ? ctx.prior : undefined;
  // The entry's totals: what it had at claim time, plus this holder's attempts.
  const totals = {
    attempts: same?.attempts ?? 0,
    inputTokens: same?.inputTokens ?? 0,
    outputTokens: same?.outputTokens ?? 0,
    cost: same?.cost ?? 0,
  };
  let retries = 0;
  let consecutiveThrottles = 0;
  let modelId = analyst.modelId;
  let repair: { previousAnswer: string; error: string } | undefined;
  const settle = (s: Omit<Settlement, keyof typeof totals>) =>
    deps.ledger.settle(call, chunk.owner, { ...s, ...totals });

  for (;;) {
    const input = buildConverseInput(analyst, clause, { modelId, ...(repair ? { repair } : {}) });
    let estimate: number;
    try {
      estimate = worstCaseCost(input, modelId, analyst.maxTokens, deps.prices);
    } catch (error) {
      // Recorded on the entry's intent like any other outcome.
      await chunk.intentOf(ctx.index);
      const ok = await settle({
        status: 'failed',
        failureKind: 'permanent',
        errorClass: 'logic',
        lastError: describeError(error),
      });
      return ok
        ? { kind: 'failed', failureKind: 'permanent', retries, modelId }
        : { kind: 'lease-lost', retries, modelId };
    }
    if (chunk.stopped()) return stoppedResult(chunk, modelId, retries);
    // Money first, then the permit: a call waiting for room under the ceiling holds no permit.
    const reserved = await chunk.budget.reserve(estimate, chunk.halt);
    if (!reserved.ok) {
      if (reserved.why === 'budget') chunk.stop('budget');
      else if (!chunk.stopped()) chunk.stop('cancelled');
      return stoppedResult(chunk, modelId, retries);
    }
    // The intent goes first too, so that no permit waits on a ledger write.
    await chunk.intentOf(ctx.index);
    const permit = await deps.limiters
      ?.for(modelId)
      .acquire(chunk.lane, { signal: chunk.halt })
      .catch(() => undefined);
    if (chunk.halt.aborted) {
      chunk.budget.release(estimate);
      permit?.release({ unused: true });
      return stoppedResult(chunk, modelId, retries);
    }
    const unreserve = () => chunk.budget.release(estimate);
    const { job, checkedAt } = await chunk.gate.check();
    if (!chunk.leaseHeld()) chunk.stop('lease-lost');
    if (job?.status !== 'running' || job.budgetExceededAt || chunk.stopped()) {
      unreserve();
      permit?.release({ unused: true });
      if (!chunk.stopped())
        chunk.stop(job?.status === 'running' && job.budgetExceededAt ? 'budget' : 'cancelled');
      if (totals.attempts > (same?.attempts ?? 0))
        await settle({ status: 'retryable', lastError: 'stopped before the next attempt' });
      return stoppedResult(chunk, modelId, retries);
    }
    deps.onCallStart?.(call, modelId);
    totals.attempts++;

    let output: ConverseCommandOutput;
    const sentAt = deps.now();
    try {
      output = await deps.bedrock.send(new ConverseCommand(input), {
        // A cancel stops new calls but lets started ones finish (they are reserved and billed);
        // only a lost lease or a shutdown aborts them.
        abortSignal: AbortSignal.any([chunk.abort, AbortSignal.timeout(deps.modelTimeoutMs)]) as never,
      });
      permit?.release();
    } catch (error) {
      unreserve();
      permit?.release({ throttled: isThrottle(error) });
      deps.metrics?.attempt({ model: modelId, latencyMs: deps.now() - sentAt, throttled: isThrottle(error) });
      const errorClass = classifyCallError(error);
      const lastError = describeError(error);
      if (errorClass !== 'transient') {
        const ok = await settle({
          status: 'failed',
          failureKind: 'permanent',
          errorClass,
          lastError,
          checkedAt,
        });
        return ok
          ? { kind: 'failed', failureKind: 'permanent', retries, modelId }
          : { kind: 'lease-lost', retries, modelId };
      }
      if (chunk.abort.aborted) return { kind: 'lease-lost', retries, modelId };
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
        const ok = await settle({ status: 'retryable', errorClass, lastError, checkedAt });
        return ok
          ? { kind: 'exhausted', error: lastError, retries, modelId }
          : { kind: 'lease-lost', retries, modelId };
      }
      retries++;
      await deps.sleep(delay, chunk.halt);
      continue;
    }

    const usage = {
      modelId,
      inputTokens: output.usage?.inputTokens ?? 0,
      outputTokens: output.usage?.outputTokens ?? 0,
    };
    const cost = costOf(modelId, usage, deps.prices);
    chunk.budget.settle(estimate, cost);
    totals.inputTokens += usage.inputTokens;
    totals.outputTokens += usage.outputTokens;
    totals.cost += cost;
    deps.metrics?.attempt({
      model: modelId,
      latencyMs: deps.now() - sentAt,
      throttled: false,
      costMicros: cost,
    });
    const billed = { modelId, checkedAt };
    let answer: AnalystAnswer;
    try {
      answer = parseAnswer(analyst, clause, output);
    } catch (error) {
      if (!isAnswerValidationError(error)) throw error;
      if (!repair) {
        repair = { previousAnswer: answerText(output), error: error.repairHint };
        const next = buildConverseInput(analyst, clause, { modelId, repair });
        // The entry stays an intent, now for the repair attempt's (larger) worst case.
        const reservation = worstCaseCost(next, modelId, analyst.maxTokens, deps.prices);
        if (!(await settle({ ...billed, status: 'in-flight', reservation }))) {
          return { kind: 'lease-lost', retries, modelId };
        }
        continue;
      }
      const ok = await settle({
        ...billed,
        status: 'failed',
        failureKind: 'validation',
        errorClass: 'validation',
        lastError: describeError(error),
      });
      return ok
        ? { kind: 'failed', failureKind: 'validation', retries, modelId }
        : { kind: 'lease-lost', retries, modelId };
    }
    const result = JSON.stringify(answer);
    const ok = await settle({ ...billed, status: 'done', result });
    return ok ? { kind: 'done', result, retries, modelId } : { kind: 'lease-lost', retries, modelId };
  }
}
