/**
 * The capacity model: how long a batch of contracts takes on a real account, which limit binds
 * first, and what it costs. Every figure of load and money comes from the quote's own walk over
 * the requests (`estimateJob`, lambdas/core/intake/quote.ts), priced by the one price table
 * (lambdas/core/model-catalogue.ts); this file adds only the limits and the arithmetic of rates.
 *
 * Each limit is a rate; the batch needs, under each one alone, its load divided by that rate.
 * The limits act at once, so the batch takes as long as the slowest of them allows (steady
 * state: a contract alone also waits at least one chunk's calls end to end).
 */

import { CALL_SECONDS, COMPUTE_PRICES, LANE_COMPUTE } from '../../lambdas/core/intake/lane-cost.js';
import type { JobEstimate, ModelLoad } from '../../lambdas/core/intake/quote.js';
import { modelSpec } from '../../lambdas/core/model-catalogue.js';
import { topology } from '../../lib/topology.js';
import type { AccountLimits } from './quotas.js';

/** What the stack can keep in flight (its defaults: lib/topology.ts, lambdas/shared/config.ts). */
export interface StackShape {
  /** Concurrent worker invocations on the realtime lane (the event source's maximum concurrency). */
  readonly realtimeInvocations: number;
  /** Fargate tasks on the batch lane, and chunks each works on at once. */
  readonly batchTasks: number;
  readonly chunksPerTask: number;
  /** Model calls in flight inside one chunk (`CALL_CONCURRENCY`). */
  readonly callsPerChunk: number;
  /** The worker function's memory (MiB), for its Lambda cost. */
  readonly workerMemoryMiB: number;
}

const TOPOLOGY = topology();

/** The deployed stack's defaults. */
export const DEFAULT_STACK: StackShape = {
  realtimeInvocations: TOPOLOGY.queues.realtime.maxConcurrency,
  batchTasks: TOPOLOGY.queues.batch.maxConcurrency,
  chunksPerTask: LANE_COMPUTE.batch.pollerConcurrency,
  callsPerChunk: LANE_COMPUTE.callsPerChunk,
  workerMemoryMiB: LANE_COMPUTE.realtime.memoryMiB,
};

/** What the model assumes where nothing can be read. */
export interface Assumptions {
  /** Seconds one model call takes end to end (an assumption: measure yours). */
  readonly callSeconds: number;
  /**
   * Whether prompt-cache reads count against tokens per minute. The quota is defined over input
   * and output tokens; counting the reads is the cautious reading, and the plan shows both.
   */
  readonly cacheReadsCount: boolean;
  readonly lane: 'realtime' | 'batch';
}

export const DEFAULT_ASSUMPTIONS: Assumptions = {
  callSeconds: CALL_SECONDS,
  cacheReadsCount: true,
  lane: 'realtime',
};

/**
 * DynamoDB on-demand throughput of one table per second, by default
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
 */
export const DYNAMODB_TABLE_WRITE_UNITS_PER_SECOND = 40_000;

/**
 * Prices outside Bedrock, micro-dollars (us-east-1): Lambda per GB-second on arm64, which the
 * worker runs on (lambdas/core/intake/lane-cost.ts), DynamoDB on-demand per write request unit
 * (https://aws.amazon.com/dynamodb/pricing/on-demand/).
 */
export const INFRA_PRICES = {
  lambdaPerGbSecond: COMPUTE_PRICES.lambdaArmPerGbSecond,
  dynamoPerWriteUnit: 0.625,
} as const;

/** Hours in a month, as AWS's pricing pages count them. */
export const HOURS_PER_MONTH = 730;

/** One limit and the minutes the batch needs under it alone. */
export interface LimitRow {
  readonly limit: string;
  readonly minutes: number;
  /** The rate, in words (`5,000,000 tokens/min (AWS default)`). */
  readonly rate: string;
  /** What the batch asks of it (`38.9M quota tokens`). */
  readonly load: string;
}

/** A batch's plan. */
export interface BatchPlan {
  readonly contracts: number;
  readonly calls: number;
  /** Slowest first: the first binds. */
  readonly limits: readonly LimitRow[];
  readonly minutes: number;
  readonly expectedMicros: number;
  readonly worstCaseMicros: number;
  /** Lambda and DynamoDB at the expected load. */
  readonly infraMicros: number;
  readonly contractsPerHour: number;
  /** Expected spend per month with batches like this one back to back. */
  readonly monthlyMicros: number;
  /** Whether cache reads were counted toward tokens per minute ({@link Assumptions}). */
  readonly cacheReadsCount: boolean;
  /** The same plan's binding minutes with cache reads counted the other way. */
  readonly minutesOtherReading: number;
}

/** Quota tokens of a load: input, cache writes, cache reads if they count, output at its burndown. */
export function quotaTokens(load: ModelLoad, burndown: number, cacheReadsCount: boolean): number {
  return (
    load.inputTokens +
    load.cacheWriteInputTokens +
    (cacheReadsCount ? load.cacheReadInputTokens : 0) +
    burndown * load.outputTokens
  );
}

/** Write units of one call's ledger entries: its intent (1) and its outcome with the answer. */
export function writeUnitsPerCall(outputTokensPerCall: number): number {
  // The outcome item holds the answer (about 4 bytes a token) and some 600 bytes of fields.
  return 1 + Math.ceil((outputTokensPerCall * 4 + 600) / 1024);
}

function sumLoads(estimates: readonly JobEstimate[]): Map<string, ModelLoad> {
  const byFoundation = new Map<string, ModelLoad>();
  for (const e of estimates) {
    for (const [modelId, l] of Object.entries(e.loads)) {
      const id = modelSpec(modelId).foundationModelId;
      const s = byFoundation.get(id);
      byFoundation.set(id, {
        calls: (s?.calls ?? 0) + l.calls,
        inputTokens: (s?.inputTokens ?? 0) + l.inputTokens,
        cacheReadInputTokens: (s?.cacheReadInputTokens ?? 0) + l.cacheReadInputTokens,
        cacheWriteInputTokens: (s?.cacheWriteInputTokens ?? 0) + l.cacheWriteInputTokens,
        outputTokens: (s?.outputTokens ?? 0) + l.outputTokens,
      });
    }
  }
  return byFoundation;
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** Calls the stack keeps in flight on a lane, within Lambda's concurrency on the realtime lane. */
export function callsInFlight(stack: StackShape, limits: AccountLimits, lane: Assumptions['lane']): number {
  return lane === 'realtime'
    ? Math.min(stack.realtimeInvocations, limits.lambdaConcurrency) * stack.callsPerChunk
    : stack.batchTasks * stack.chunksPerTask * stack.callsPerChunk;
}

function bedrockRows(loads: Map<string, ModelLoad>, limits: AccountLimits, reads: boolean): LimitRow[] {
  return [...loads].flatMap(([id, load]) => {
    const q = limits.models[id];
    if (!q) throw new Error(`no quota given for ${id}`);
    const tokens = quotaTokens(load, q.outputBurndown, reads);
    return [
      {
        limit: `Bedrock tokens/min, ${id}`,
        minutes: tokens / q.tokensPerMinute,
        rate: `${n(q.tokensPerMinute)} tokens/min (${q.source})`,
        load: `${n(tokens)} quota tokens (output ×${q.outputBurndown}${reads ? ', cache reads counted' : ''})`,
      },
      {
        limit: `Bedrock requests/min, ${id}`,
        minutes: load.calls / q.requestsPerMinute,
        rate: `${n(q.requestsPerMinute)} requests/min (${q.source})`,
        load: `${n(load.calls)} requests`,
      },
    ];
  });
}

/** The limit rows of a batch, slowest first. */
export function limitRows(
  estimates: readonly JobEstimate[],
  limits: AccountLimits,
  stack: StackShape,
  assume: Assumptions,
): LimitRow[] {
  const loads = sumLoads(estimates);
  const calls = [...loads.values()].reduce((s, l) => s + l.calls, 0);
  const output = [...loads.values()].reduce((s, l) => s + l.outputTokens, 0);
  const inFlight = callsInFlight(stack, limits, assume.lane);
  const units = calls * writeUnitsPerCall(calls > 0 ? output / calls : 0);
  const rows: LimitRow[] = [
    ...bedrockRows(loads, limits, assume.cacheReadsCount),
    {
      limit: `calls in flight, ${assume.lane} lane`,
      minutes: (calls * assume.callSeconds) / inFlight / 60,
      rate: `${n(inFlight)} calls × 60 s / ${assume.callSeconds} s per call`,
      load: `${n(calls)} calls`,
    },
    {
      limit: 'DynamoDB on-demand writes (table)',
      minutes: units / DYNAMODB_TABLE_WRITE_UNITS_PER_SECOND / 60,
      rate: `${n(DYNAMODB_TABLE_WRITE_UNITS_PER_SECOND)} write units/s`,
      load: `${n(units)} write units`,
    },
  ];
  return rows.sort((a, b) => b.minutes - a.minutes);
}

/** The plan of a batch of contracts, each estimated by the quote's own code. */
export function planBatch(
  estimates: readonly JobEstimate[],
  limits: AccountLimits,
  stack: StackShape = DEFAULT_STACK,
  assume: Assumptions = DEFAULT_ASSUMPTIONS,
): BatchPlan {
  if (estimates.length === 0) throw new RangeError('a plan needs at least one contract');
  if (!(assume.callSeconds > 0))
    throw new RangeError(`callSeconds must be above 0; got ${assume.callSeconds}`);
  const limits1 = limitRows(estimates, limits, stack, assume);
  const other = limitRows(estimates, limits, stack, { ...assume, cacheReadsCount: !assume.cacheReadsCount });
  const calls = estimates.reduce((s, e) => s + Object.values(e.loads).reduce((c, l) => c + l.calls, 0), 0);
  const output = estimates.reduce(
    (s, e) => s + Object.values(e.loads).reduce((c, l) => c + l.outputTokens, 0),
    0,
  );
  const expectedMicros = estimates.reduce((s, e) => s + e.quote.expectedMicros, 0);
  const worstCaseMicros = estimates.reduce((s, e) => s + e.quote.worstCaseMicros, 0);
  const gbSeconds = (calls * assume.callSeconds * stack.workerMemoryMiB) / 1024 / stack.callsPerChunk;
  const infraMicros = Math.ceil(
    gbSeconds * INFRA_PRICES.lambdaPerGbSecond +
      calls * writeUnitsPerCall(calls > 0 ? output / calls : 0) * INFRA_PRICES.dynamoPerWriteUnit,
  );
  const minutes = limits1[0]?.minutes ?? 0;
  const perHour = minutes > 0 ? 60 / minutes : Number.POSITIVE_INFINITY;
  return {
    contracts: estimates.length,
    calls,
    limits: limits1,
    minutes,
    expectedMicros,
    worstCaseMicros,
    infraMicros,
    contractsPerHour: estimates.length * perHour,
    monthlyMicros: Math.round((expectedMicros + infraMicros) * perHour * HOURS_PER_MONTH),
    cacheReadsCount: assume.cacheReadsCount,
    minutesOtherReading: other[0]?.minutes ?? 0,
  };
}
