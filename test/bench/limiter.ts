/**
 * The adaptive limiter against a model of known capacity: does it find the throttling limit
 * and hold near it?
 *
 *   npx tsx test/bench/limiter.ts [--duration 60] [--capacity 40] [--callers 200]
 *       [--realtime 20] [--window 2000] [--latency lognormal|fixed] [--median 200]
 *       [--decrease-on throttle|window] [--approach probe|aimd]
 *
 * The Bedrock stand-in runs in this process with a capacity of `capacity` requests in flight
 * (ThrottlingException above it) and a latency of `median` ms. `callers` closed-loop callers,
 * `realtime` of them in the realtime lane and the rest in the batch lane, send Converse calls
 * through the real SDK client, built as the worker builds it (`createClients`, maxAttempts 1),
 * each call gated by one AdaptiveLimiter. A throttled caller releases its permit, waits a
 * short full-jitter backoff and tries again, as tier 1 does. Offered load is far above
 * capacity, so the limit alone decides how many calls are in flight.
 *
 * Reported: the capacity bound (capacity ÷ mean latency, the best goodput any limiter could
 * reach), goodput over the run and after convergence, the throttle rate (throttled ÷
 * attempted calls), the windows until the limit first came within ±20 % of capacity, the
 * final and median limit after that, and the p50 wait for a permit in each lane.
 *
 * `runLimiterBench` is exported for test/bench/run-all.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { ANALYSTS, buildConverseInput } from '../../lambdas/core/analysts/index.js';
import type { Clause, Lane } from '../../lambdas/core/clause.js';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { isThrottle } from '../../lambdas/core/worker/error-class.js';
import { AdaptiveLimiter, type WindowSnapshot } from '../../lambdas/core/worker/limiter.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createClients } from '../../lambdas/shared/runtime.js';
import { type LatencySpec, startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { seededRandom } from '../helpers/random.js';

/** Settings of one bench run; every field has a default. */
export interface LimiterBenchOptions {
  /** The stand-in's `maxInFlight`. @default 40 */
  readonly capacity?: number;
  /** The stand-in's latency. @default lognormal, median 200 ms, sigma 0.25 */
  readonly latency?: LatencySpec;
  /** Length of the load. @default 60000 */
  readonly durationMs?: number;
  /** Length of the reference run with a fixed limit equal to the capacity; 0 skips it. @default 10000 */
  readonly referenceMs?: number;
  /** Limiter window. @default 2000 */
  readonly windowMs?: number;
  /** Closed-loop callers in all. @default 200 */
  readonly callers?: number;
  /** How many of them are in the realtime lane. @default 20 */
  readonly realtimeCallers?: number;
  /** Upper bound of the full-jitter wait before retrying a throttled call. @default 100 */
  readonly backoffMs?: number;
  /** When the limiter cuts its limit (see AdaptiveLimiterOptions). @default 'throttle' */
  readonly decreaseOn?: 'throttle' | 'window';
  /** How the limiter moves its limit (see AdaptiveLimiterOptions). @default 'probe' */
  readonly approach?: 'probe' | 'aimd';
  /** Limiter aging. @default 5000 */
  readonly agingMs?: number;
  /** Limiter p99 latency target. @default 1000 */
  readonly p99TargetMs?: number;
  readonly seed?: number;
  /** Progress lines. @default console.log */
  readonly log?: (line: string) => void;
}

/** What a run measured. Rates are per second; times in milliseconds. */
export interface LimiterBenchResult {
  readonly capacity: number;
  readonly meanLatencyMs: number;
  /** capacity ÷ mean latency. */
  readonly capacityBound: number;
  readonly durationMs: number;
  readonly attempts: number;
  readonly successes: number;
  readonly throttles: number;
  readonly otherErrors: number;
  readonly goodput: number;
  /** Goodput from the first window within ±20 % of capacity to the end. */
  readonly goodputAfterConvergence?: number;
  readonly throttleRate: number;
  /**
   * Goodput with a fixed limit equal to the capacity, through the same client: the best a
   * limiter can do here, since client-side time (SDK, connections) holds permits too.
   */
  readonly referenceGoodput?: number;
  readonly referenceThrottleRate?: number;
  /** Evaluated windows until the limit first came within ±20 % of capacity; undefined if never. */
  readonly windowsToConverge?: number;
  readonly finalLimit: number;
  /** Median limit over the windows after convergence. */
  readonly medianLimit?: number;
  readonly waitP50Ms: Readonly<Record<Lane, number>>;
  readonly waitP99Ms: Readonly<Record<Lane, number>>;
  readonly limits: readonly number[];
}

const CLAUSE_TEXTS = [
  'The Supplier shall indemnify, defend and hold harmless the Customer from all losses; such liability shall be uncapped.',
  'Either party may terminate this Agreement for convenience upon thirty (30) days prior written notice.',
  'All work product and inventions shall be the sole property of the Company, and the Consultant hereby assigns all rights.',
  'In no event shall either party be liable for consequential damages, except for breach of confidentiality.',
  'This Agreement shall be governed by the laws of the State of New York.',
];

/** Real pipeline requests: every analyst × a few clauses, all on the primary model. */
function requests(): ConverseCommandInput[] {
  const clauses: Clause[] = CLAUSE_TEXTS.map((text, index) => ({
    index,
    id: `c${String(index + 1).padStart(4, '0')}`,
    start: 0,
    end: text.length,
    text,
  }));
  return clauses.flatMap((clause) =>
    ANALYSTS.map((analyst) => buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID })),
  );
}

export function meanOf(spec: LatencySpec): number {
  const scale = spec.scale ?? 1;
  switch (spec.kind) {
    case 'fixed':
      return spec.ms * scale;
    case 'uniform':
      return ((spec.minMs + spec.maxMs) / 2) * scale;
    case 'lognormal':
      return spec.medianMs * Math.exp((spec.sigma * spec.sigma) / 2) * scale;
  }
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] as number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface LoadSettings {
  readonly callers: number;
  readonly realtimeCallers: number;
  readonly backoffMs: number;
  readonly random: () => number;
  readonly log: (line: string) => void;
}

export interface LoadResult {
  attempts: number;
  throttles: number;
  otherErrors: number;
  readonly successAt: number[];
  readonly waits: Record<Lane, number[]>;
  readonly deadline: number;
}

/** Closed-loop callers through `limiter` from `started` for `durationMs`. */
export async function drive(
  bedrock: BedrockRuntimeClient,
  limiter: AdaptiveLimiter,
  started: number,
  durationMs: number,
  settings: LoadSettings,
): Promise<LoadResult> {
  const inputs = requests();
  const result: LoadResult = {
    attempts: 0,
    throttles: 0,
    otherErrors: 0,
    successAt: [],
    waits: { realtime: [], batch: [] },
    deadline: started + durationMs,
  };
  const caller = async (index: number): Promise<void> => {
    const lane: Lane = index < settings.realtimeCallers ? 'realtime' : 'batch';
    let next = index;
    while (performance.now() < result.deadline) {
      const input = inputs[next % inputs.length] as ConverseCommandInput;
      const permit = await limiter.acquire(lane);
      if (performance.now() >= result.deadline) {
        permit.release();
        return;
      }
      result.waits[lane].push(permit.waitedMs);
      result.attempts++;
      try {
        await bedrock.send(new ConverseCommand(input));
        permit.release();
        result.successAt.push(performance.now());
        next += settings.callers;
      } catch (error) {
        if (isThrottle(error)) {
          result.throttles++;
          permit.release({ throttled: true });
          await sleep(Math.floor(settings.random() * settings.backoffMs));
        } else {
          result.otherErrors++;
          permit.release();
          if (result.otherErrors === 1) settings.log(`  first unexpected error: ${String(error)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: settings.callers }, (_, i) => caller(i)));
  return result;
}

/** Drives the load and measures; see the module comment. */
export async function runLimiterBench(options: LimiterBenchOptions = {}): Promise<LimiterBenchResult> {
  const capacity = options.capacity ?? 40;
  const latency: LatencySpec = options.latency ?? { kind: 'lognormal', medianMs: 200, sigma: 0.25 };
  const durationMs = options.durationMs ?? 60_000;
  const referenceMs = options.referenceMs ?? 10_000;
  const windowMs = options.windowMs ?? 2_000;
  const callers = options.callers ?? 200;
  const realtimeCallers = options.realtimeCallers ?? 20;
  const backoffMs = options.backoffMs ?? 100;
  const log = options.log ?? console.log;
  const random = seededRandom(options.seed ?? 7);

  const standIn = await startBedrockStandIn({
    seed: options.seed ?? 7,
    plan: { capacity: { maxInFlight: capacity }, latency },
  });
  const { bedrock } = createClients({
    bedrockEndpoint: standIn.url,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  const windows: WindowSnapshot[] = [];
  const started = performance.now();
  const limiter = new AdaptiveLimiter({
    windowMs,
    decreaseOn: options.decreaseOn ?? 'throttle',
    approach: options.approach ?? 'probe',
    agingMs: options.agingMs ?? 5_000,
    p99TargetMs: options.p99TargetMs ?? 1_000,
    name: PRIMARY_MODEL_ID,
    onWindow: (w) => {
      windows.push(w);
      const seconds = ((w.endedAt - started) / 1000).toFixed(0).padStart(3);
      log(
        `  window ${String(w.index).padStart(3)} (${seconds} s): limit ${w.limitBefore} → ${w.limitAfter} ` +
          `(${w.decision.action}, ${w.decision.reason}); ${w.calls} calls, ${w.throttles} throttles` +
          `${w.staleThrottles > 0 ? ` (+${w.staleThrottles} stale)` : ''}, p99 ${w.p99Ms === undefined ? '-' : w.p99Ms.toFixed(0)} ms`,
      );
    },
  });

  log(
    `Adaptive limiter bench: capacity ${capacity} in flight, latency ${describeLatency(latency)}, ` +
      `${callers} callers (${realtimeCallers} realtime), ${durationMs / 1000} s, windows of ${windowMs} ms`,
  );
  const load = { callers, realtimeCallers, backoffMs, random, log };
  let run: LoadResult;
  let reference: LoadResult | undefined;
  try {
    run = await drive(bedrock, limiter, started, durationMs, load);
    if (referenceMs > 0) {
      standIn.reset();
      // What a limiter that knew the capacity from the start would get through this client.
      const fixed = new AdaptiveLimiter({ initial: capacity, min: capacity, max: capacity });
      reference = await drive(bedrock, fixed, performance.now(), referenceMs, load);
      log(`  reference: fixed limit ${capacity} for ${referenceMs / 1000} s`);
    }
  } finally {
    bedrock.destroy();
    await standIn.close();
  }
  const { attempts, throttles, otherErrors, waits, deadline } = run;
  // Calls still in flight at the deadline finish after it; they do not count.
  const successAt = run.successAt.filter((t) => t <= deadline);

  const elapsed = deadline - started;
  const meanLatencyMs = meanOf(latency);
  const capacityBound = capacity / (meanLatencyMs / 1000);
  const near = (limit: number): boolean => limit >= capacity * 0.8 && limit <= capacity * 1.2;
  const converged = windows.findIndex((w) => near(w.limitAfter));
  const settled = converged >= 0 ? windows.slice(converged) : [];
  const convergedAt = converged >= 0 ? (windows[converged] as WindowSnapshot).endedAt : undefined;
  const successesAfter = convergedAt === undefined ? 0 : successAt.filter((t) => t >= convergedAt).length;
  const afterSeconds = convergedAt === undefined ? 0 : (deadline - convergedAt) / 1000;

  return {
    capacity,
    meanLatencyMs,
    capacityBound,
    durationMs: elapsed,
    attempts,
    successes: successAt.length,
    throttles,
    otherErrors,
    goodput: successAt.length / (elapsed / 1000),
    ...(afterSeconds > 0 ? { goodputAfterConvergence: successesAfter / afterSeconds } : {}),
    throttleRate: attempts === 0 ? 0 : throttles / attempts,
    ...(reference
      ? {
          referenceGoodput:
            reference.successAt.filter((t) => t <= (reference as LoadResult).deadline).length /
            (referenceMs / 1000),
          referenceThrottleRate: reference.attempts === 0 ? 0 : reference.throttles / reference.attempts,
        }
      : {}),
    ...(converged >= 0 ? { windowsToConverge: converged + 1 } : {}),
    finalLimit: limiter.limit,
    ...(settled.length > 0
      ? {
          medianLimit: percentile(
            settled.map((w) => w.limitAfter),
            0.5,
          ),
        }
      : {}),
    waitP50Ms: { realtime: percentile(waits.realtime, 0.5), batch: percentile(waits.batch, 0.5) },
    waitP99Ms: { realtime: percentile(waits.realtime, 0.99), batch: percentile(waits.batch, 0.99) },
    limits: windows.map((w) => w.limitAfter),
  };
}

function describeLatency(spec: LatencySpec): string {
  switch (spec.kind) {
    case 'fixed':
      return `fixed ${spec.ms} ms`;
    case 'uniform':
      return `uniform ${spec.minMs}-${spec.maxMs} ms`;
    case 'lognormal':
      return `lognormal median ${spec.medianMs} ms, sigma ${spec.sigma} (mean ${meanOf(spec).toFixed(0)} ms)`;
  }
}

/** The result as a two-column table. */
export function formatLimiterBench(r: LimiterBenchResult): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  const rate = (x: number): string => `${x.toFixed(1)} calls/s`;
  const rows: [string, string][] = [
    ['capacity', `${r.capacity} in flight, mean latency ${r.meanLatencyMs.toFixed(0)} ms`],
    ['capacity bound', rate(r.capacityBound)],
    ['goodput, whole run', `${rate(r.goodput)} (${pct(r.goodput / r.capacityBound)} of bound)`],
    [
      'goodput, after convergence',
      r.goodputAfterConvergence === undefined
        ? '-'
        : `${rate(r.goodputAfterConvergence)} (${pct(r.goodputAfterConvergence / r.capacityBound)} of bound)`,
    ],
    [
      'reference: fixed limit = capacity',
      r.referenceGoodput === undefined
        ? '-'
        : `${rate(r.referenceGoodput)} (${pct(r.referenceGoodput / r.capacityBound)} of bound), ` +
          `throttle rate ${pct(r.referenceThrottleRate ?? 0)}`,
    ],
    [
      'goodput after conv. / reference',
      r.referenceGoodput === undefined || r.goodputAfterConvergence === undefined
        ? '-'
        : pct(r.goodputAfterConvergence / r.referenceGoodput),
    ],
    ['throttle rate', `${pct(r.throttleRate)} (${r.throttles} of ${r.attempts} attempts)`],
    ['other errors', String(r.otherErrors)],
    [
      'windows to ±20 % of capacity',
      r.windowsToConverge === undefined ? 'never' : String(r.windowsToConverge),
    ],
    ['limit: final / median after', `${r.finalLimit} / ${r.medianLimit ?? '-'}`],
    ['wait p50 realtime / batch', `${r.waitP50Ms.realtime.toFixed(0)} / ${r.waitP50Ms.batch.toFixed(0)} ms`],
    ['wait p99 realtime / batch', `${r.waitP99Ms.realtime.toFixed(0)} / ${r.waitP99Ms.batch.toFixed(0)} ms`],
    ['limit per window', r.limits.join(' ')],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

const invokedDirectly =
  process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (invokedDirectly) {
  // As vitest.config.ts: the SDK's notice about Node 22 would only clutter the output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '60' },
      capacity: { type: 'string', default: '40' },
      callers: { type: 'string', default: '200' },
      realtime: { type: 'string', default: '20' },
      window: { type: 'string', default: '2000' },
      latency: { type: 'string', default: 'lognormal' },
      median: { type: 'string', default: '200' },
      'decrease-on': { type: 'string', default: 'throttle' },
      approach: { type: 'string', default: 'probe' },
    },
  });
  const median = Number(values.median);
  const result = await runLimiterBench({
    durationMs: Number(values.duration) * 1000,
    capacity: Number(values.capacity),
    callers: Number(values.callers),
    realtimeCallers: Number(values.realtime),
    windowMs: Number(values.window),
    decreaseOn: values['decrease-on'] === 'window' ? 'window' : 'throttle',
    approach: values.approach === 'aimd' ? 'aimd' : 'probe',
    latency:
      values.latency === 'fixed'
        ? { kind: 'fixed', ms: median }
        : { kind: 'lognormal', medianMs: median, sigma: 0.25 },
  });
  console.log(formatLimiterBench(result));
  console.log(
    `SUMMARY limiter: goodput ${(result.goodputAfterConvergence ?? result.goodput).toFixed(1)} calls/s = ` +
      `${(((result.goodputAfterConvergence ?? result.goodput) / result.capacityBound) * 100).toFixed(1)} % of ` +
      `the ${result.capacityBound.toFixed(1)} calls/s bound after convergence; throttle rate ` +
      `${(result.throttleRate * 100).toFixed(1)} %; ${result.windowsToConverge ?? 'never'} windows to converge; ` +
      (result.referenceGoodput
        ? `${(((result.goodputAfterConvergence ?? result.goodput) / result.referenceGoodput) * 100).toFixed(1)} % ` +
          `of a fixed limit at capacity (${result.referenceGoodput.toFixed(1)} calls/s); `
        : '') +
      `limit final ${result.finalLimit}, median ${result.medianLimit ?? '-'} (capacity ${result.capacity})`,
  );
}
