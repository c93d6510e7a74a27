/**
 * One model call, from its reservation to its settled ledger entry, with its retries (makeCall).
 * Its inputs and result are call-types.ts; its identity call-key.ts.
 */
import { setImmediate } from 'node:timers/promises';
import {
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import {
  type AnalystAnswer,
  buildConverseInput,
  isAnswerValidationError,
  parseAnswer,
} from '../analysts/index.js';
import { costOf, quotaTokens } from '../model-catalogue.js';
import type { Settlement } from '../state/call-ledger.js';
import { isPaused } from '../state/job.js';
import { AttemptScope } from './attempt-scope.js';
import { fullJitterDelay, mayRetry } from './backoff.js';
import type { CallContext, CallResult, ChunkCalls } from './call-types.js';
import type { BudgetRefusal } from './chunk-budget.js';
import { type StopReason, unstartedReason } from './chunk-stop.js';
import { classifyCallError, describeError, isThrottle, isUnanswered } from './error-class.js';
import type { GateReading, JobGate } from './job-gate.js';
import { worstCaseCost, worstCaseInputTokens } from './worst-case.js';

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
  const why = chunk.stop.reason ?? 'lease-lost';
  return why === 'lease-lost' || why === 'deadline'
    ? { kind: 'lease-lost', modelId, retries }
    : { kind: 'unstarted', reason: unstartedReason(why), modelId, retries };
}

/** What changes from one attempt of a call to the next. */
interface CallState {
  readonly ctx: CallContext;
  readonly started: number;
  /** Attempts of the entry at claim time: later ones are this holder's. */
  readonly priorAttempts: number;
  /** The entry's totals: what it had at claim time, plus this holder's attempts. */
  readonly totals: {
    attempts: number;
    inputTokens: number;
    outputTokens: number;
    cacheReadInputTokens: number;
    cacheWriteInputTokens: number;
    cost: number;
    unanswered: number;
  };
  retries: number;
  consecutiveThrottles: number;
  modelId: string;
  repair: { previousAnswer: string; error: string } | undefined;
}

/** One attempt's resources, and the status reading that let it start. */
interface Started {
  readonly scope: AttemptScope;
  readonly checkedAt: number;
}

/** Writes the entry with the call's totals; a false answer means the lease is gone. */
function settle(s: CallState, fields: Omit<Settlement, keyof CallState['totals']>): Promise<boolean> {
  return s.ctx.deps.ledger.settle(s.ctx.call, s.ctx.chunk.owner, { ...fields, ...s.totals });
}

/** The call's result once its entry is written, or lease-lost when that write was refused. */
async function ended(s: CallState, fields: Omit<Settlement, keyof CallState['totals']>, result: CallResult) {
  return (await settle(s, fields))
    ? result
    : ({ kind: 'lease-lost', retries: s.retries, modelId: s.modelId } as const);
}

/**
 * Makes one call: its worst case reserved against the chunk's allotment, its intent, a
 * limiter permit, a status read that began after it asked, then the request. Transient errors
 * are retried with full-jitter backoff (moving to the fallback model after repeated throttles),
 * an invalid answer gets one repair retry, and every answered attempt is written once.
 */
export async function makeCall(ctx: CallContext): Promise<CallResult> {
  const same = ctx.prior?.idempotencyKey === ctx.call.idempotencyKey ? ctx.prior : undefined;
  const s: CallState = {
    ctx,
    started: ctx.deps.now(),
    priorAttempts: same?.attempts ?? 0,
    totals: {
      attempts: same?.attempts ?? 0,
      inputTokens: same?.inputTokens ?? 0,
      outputTokens: same?.outputTokens ?? 0,
      cacheReadInputTokens: same?.cacheReadInputTokens ?? 0,
      cacheWriteInputTokens: same?.cacheWriteInputTokens ?? 0,
      cost: same?.cost ?? 0,
      unanswered: same?.unanswered ?? 0,
    },
    retries: 0,
    consecutiveThrottles: 0,
    modelId: ctx.analyst.modelId,
    repair: undefined,
  };
  for (;;) {
    const input =
      ctx.input && s.modelId === ctx.analyst.modelId && !s.repair
        ? ctx.input
        : buildConverseInput(ctx.analyst, ctx.clause, {
            modelId: s.modelId,
            ...(ctx.deps.context ? { context: ctx.deps.context } : {}),
            ...(s.repair ? { repair: s.repair } : {}),
          });
    const start = await startAttempt(s, input);
    if ('kind' in start) return start;
    // Whatever the attempt still holds goes back when this iteration ends, however it ends.
    using scope = start.scope;
    // A cancel stops new calls but lets started ones finish (they are reserved and billed);
    // only a lost lease or the process's end aborts them.
    using request = ctx.chunk.stop.request(ctx.deps.modelTimeoutMs);
    ctx.deps.onCallStart?.(ctx.call, s.modelId);
    s.totals.attempts++;
    const sentAt = ctx.deps.now();
    scope.sending();
    let output: ConverseCommandOutput;
    try {
      output = await ctx.deps.bedrock.send(new ConverseCommand(input), {
        abortSignal: request.signal as never,
      });
    } catch (error) {
      const result = await afterError(s, start, error, sentAt);
      if (result) return result;
      continue;
    }
    const result = await afterAnswer(s, start, output, sentAt);
    if (result) return result;
  }
}

/**
 * Everything before the request, taken in one scope: the worst case priced and reserved, the
 * intent written, a permit taken and the job read. Returns the result instead when the call
 * cannot start, and the scope's `using` gives back what was taken by then; otherwise the
 * attempt's resources move to the caller.
 */
async function startAttempt(s: CallState, input: ConverseCommandInput): Promise<Started | CallResult> {
  const { ctx } = s;
  const { chunk, deps } = ctx;
  let estimate: number;
  try {
    estimate = worstCaseCost(input, s.modelId, ctx.analyst.maxTokens, deps.prices);
  } catch (error) {
    return unpriced(s, error);
  }
  const { stop } = chunk;
  if (stop.reason) return stoppedResult(chunk, s.modelId, s.retries);
  using scope = new AttemptScope(chunk.budget);
  // Money first, then the permit: a call waiting for room under the ceiling holds no permit.
  const reserved = await chunk.budget.reserve(estimate, stop.signal);
  if (!reserved.ok) {
    stop.stop(refusalStop[reserved.why]);
    return stoppedResult(chunk, s.modelId, s.retries);
  }
  scope.reserved(estimate);
  // The intent goes first too, so that no permit waits on a ledger write; never from a holder
  // whose lease has run out (a stalled process), whose window could land over a successor's.
  if (!chunk.leaseHeld()) stop.stop('lease-lost');
  if (stop.reason) return stoppedResult(chunk, s.modelId, s.retries);
  await chunk.intentOf(ctx.index);
  // Then the model's per-minute budget, for the same worst case; a call waiting for it holds no permit.
  const ticket = await deps.budgets
    ?.for(s.modelId)
    ?.acquire(worstCaseInputTokens(input) + ctx.analyst.maxTokens, stop.signal)
    .catch(() => undefined);
  scope.budgeted(ticket);
  const askedAt = deps.now();
  // While this call is next in line, its job's status is kept fresh (see JobGate.watch).
  const permit = await deps.limiters
    ?.for(s.modelId)
    .acquire(chunk.lane, { ...chunk.tenant, signal: stop.signal, onNext: () => scope.watch(chunk.gate) })
    .catch(() => undefined);
  scope.holds(permit);
  scope.unwatched();
  if (stop.signal.aborted) return stoppedResult(chunk, s.modelId, s.retries);
  const { job, checkedAt } = await gateReading(chunk.gate, askedAt, deps.now());
  if (!chunk.leaseHeld()) stop.stop('lease-lost');
  if (job?.status !== 'running' || job.budgetExceededAt || stop.reason) {
    // The first reason stands: a lease found lost is not made a cancel.
    stop.stop(stopReasonOf(job));
    if (s.totals.attempts > s.priorAttempts) {
      await settle(s, { status: 'retryable', lastError: 'stopped before the next attempt' });
    }
    return stoppedResult(chunk, s.modelId, s.retries);
  }
  return { scope: scope.move(), checkedAt };
}

/** A call whose model has no price fails before any request, recorded on its intent. */
async function unpriced(s: CallState, error: unknown): Promise<CallResult> {
  await s.ctx.chunk.intentOf(s.ctx.index);
  const lastError = describeError(error);
  return ended(
    s,
    { status: 'failed', failureKind: 'permanent', errorClass: 'logic', lastError },
    { kind: 'failed', failureKind: 'permanent', retries: s.retries, modelId: s.modelId },
  );
}

/** Why a job read stops a chunk's calls: its ceiling, a pause, or (any other status) a cancel. */
function stopReasonOf(job: GateReading['job']): StopReason {
  if (job?.status === 'running' && job.budgetExceededAt) return 'ceiling';
  return isPaused(job) ? 'paused' : 'cancelled';
}

/** Why a refused reservation stops a chunk's calls. */
const refusalStop = {
  budget: 'ceiling',
  paused: 'paused',
  stopped: 'cancelled',
} as const satisfies Record<BudgetRefusal, StopReason>;

/**
 * How long before its permit a call's job-status read may have begun. Reads of a job with a
 * call next in line for a permit come every 100 ms (JobGate.watch), so a call granted a permit
 * finds one this fresh even when a read takes 150 ms, and starts without holding its permit
 * through a read. It bounds how late after a cancel a call can start: at 12 permits of 400 ms
 * calls, about 8 calls are granted in 250 ms.
 */
export const GATE_LOOKAHEAD_MS = 250;

/**
 * The job-status reading a call starts on: one that began after the call asked and at most
 * {@link GATE_LOOKAHEAD_MS} before its permit, the newest answered or the one in flight, else
 * a new one. Either way a cancel recorded before the call asked is seen.
 */
function gateReading(gate: JobGate, askedAt: number, grantedAt: number): Promise<GateReading> {
  return gate.since(askedAt, grantedAt - GATE_LOOKAHEAD_MS);
}

/**
 * A request that failed. Bedrock's error answers bill nothing. A request that went out and came
 * back without an answer (the client's timeout, a cut connection) may have been answered and
 * billed all the same: it counts at its worst case, recorded on the entry at once, as a takeover
 * counts an intent left in flight; a lost lease leaves that to the next holder. A permanent error
 * ends the call; a transient one is retried after a full-jitter wait (returns undefined), until
 * tier 1 runs out.
 */
async function afterError(
  s: CallState,
  start: Started,
  error: unknown,
  sentAt: number,
): Promise<CallResult | undefined> {
  const { chunk, deps, analyst } = s.ctx;
  const errorClass = classifyCallError(error);
  const lastError = describeError(error);
  if (!chunk.stop.endsRequests && isUnanswered(error)) {
    const worstCase = start.scope.estimate;
    start.scope.unanswered();
    s.totals.cost += worstCase;
    s.totals.unanswered++;
    const fields = {
      status: 'in-flight',
      reservation: worstCase,
      lastError,
      checkedAt: start.checkedAt,
    } as const;
    if (!(await settle(s, fields))) return { kind: 'lease-lost', retries: s.retries, modelId: s.modelId };
  } else start.scope.failed(isThrottle(error));
  deps.metrics?.attempt({ model: s.modelId, latencyMs: deps.now() - sentAt, throttled: isThrottle(error) });
  const { retries, modelId } = s;
  if (errorClass !== 'transient') {
    const fields = {
      status: 'failed',
      failureKind: 'permanent',
      errorClass,
      lastError,
      checkedAt: start.checkedAt,
    } as const;
    return ended(s, fields, { kind: 'failed', failureKind: 'permanent', retries, modelId });
  }
  if (chunk.stop.endsRequests) return { kind: 'lease-lost', retries, modelId };
  if (isThrottle(error)) {
    s.consecutiveThrottles++;
    if (
      s.consecutiveThrottles >= deps.backoff.throttlesBeforeFallback &&
      s.modelId !== analyst.fallbackModelId
    ) {
      s.modelId = analyst.fallbackModelId;
      s.consecutiveThrottles = 0;
    }
  } else s.consecutiveThrottles = 0;
  const delay = fullJitterDelay(s.retries, deps.backoff, deps.random);
  if (!mayRetry(s.retries, deps.now() - s.started, delay, deps.backoff)) {
    const fields = { status: 'retryable', errorClass, lastError, checkedAt: start.checkedAt } as const;
    return ended(s, fields, { kind: 'exhausted', error: lastError, retries, modelId: s.modelId });
  }
  s.retries++;
  await deps.sleep(delay, chunk.stop.signal);
  return undefined;
}

/**
 * Stop reasons of a model that declined to answer: its refusal, a content filter, or a
 * guardrail (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
 * A cut-off answer (`max_tokens`) is an invalid answer instead, and gets the repair retry.
 */
const DECLINED: ReadonlySet<string> = new Set(['refusal', 'content_filtered', 'guardrail_intervened']);

/**
 * An answered request: billed, its cost settled against the allotment. A valid answer ends the
 * call; the first invalid one gets a repair retry (returns undefined), the second fails it.
 */
async function afterAnswer(
  s: CallState,
  start: Started,
  output: ConverseCommandOutput,
  sentAt: number,
): Promise<CallResult | undefined> {
  const { deps, analyst, clause } = s.ctx;
  const usage = {
    inputTokens: output.usage?.inputTokens ?? 0,
    outputTokens: output.usage?.outputTokens ?? 0,
    cacheReadInputTokens: output.usage?.cacheReadInputTokens ?? 0,
    cacheWriteInputTokens: output.usage?.cacheWriteInputTokens ?? 0,
  };
  const cost = costOf(s.modelId, usage, deps.prices);
  start.scope.answered(cost, quotaTokens(s.modelId, usage));
  // The permit just went to the next call: let it reach the model before this one's answer is
  // checked and written.
  await setImmediate();
  s.totals.inputTokens += usage.inputTokens;
  s.totals.outputTokens += usage.outputTokens;
  s.totals.cacheReadInputTokens += usage.cacheReadInputTokens;
  s.totals.cacheWriteInputTokens += usage.cacheWriteInputTokens;
  s.totals.cost += cost;
  deps.metrics?.attempt({
    model: s.modelId,
    latencyMs: deps.now() - sentAt,
    throttled: false,
    costMicros: cost,
  });
  const billed = {
    modelId: s.modelId,
    checkedAt: start.checkedAt,
    ...(output.stopReason ? { stopReason: output.stopReason } : {}),
  };
  const { retries, modelId } = s;
  if (output.stopReason && DECLINED.has(output.stopReason)) {
    // The model declined this clause; asking again would be declined again, at a price.
    const fields = {
      ...billed,
      status: 'failed',
      failureKind: 'refused',
      errorClass: 'validation',
      lastError: `the model declined to answer (stopReason ${output.stopReason})`,
    } as const;
    return ended(s, fields, { kind: 'failed', failureKind: 'refused', retries, modelId });
  }
  let answer: AnalystAnswer;
  try {
    answer = parseAnswer(analyst, clause, output);
  } catch (error) {
    if (!isAnswerValidationError(error)) throw error;
    if (!s.repair) {
      s.repair = { previousAnswer: answerText(output), error: error.repairHint };
      const next = buildConverseInput(analyst, clause, {
        modelId: s.modelId,
        repair: s.repair,
        ...(deps.context ? { context: deps.context } : {}),
      });
      // The entry stays an intent, now for the repair attempt's (larger) worst case.
      const reservation = worstCaseCost(next, s.modelId, analyst.maxTokens, deps.prices);
      if (await settle(s, { ...billed, status: 'in-flight', reservation })) return undefined;
      return { kind: 'lease-lost', retries, modelId };
    }
    const fields = {
      ...billed,
      status: 'failed',
      failureKind: 'validation',
      errorClass: 'validation',
      lastError: describeError(error),
    } as const;
    return ended(s, fields, { kind: 'failed', failureKind: 'validation', retries, modelId });
  }
  const result = JSON.stringify(answer);
  return ended(s, { ...billed, status: 'done', result }, { kind: 'done', result, retries, modelId });
}
