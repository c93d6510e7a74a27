/**
 * Worker processes sharing one model's tokens- and requests-per-minute budget through the state
 * table, against a stand-in that enforces the same quotas: do they spend the quota without
 * being throttled?
 *
 *   npx tsx test/bench/tpm.ts [--processes 4] [--duration 150] [--tpm 600000] [--rpm 400]
 *       [--callers 16] [--latency 400]
 *
 * One Bedrock stand-in (tokens per minute `tpm` and requests per minute `rpm` for the primary
 * model, Claude Haiku 4.5, whose output burns 5 quota tokens a token; lognormal latency with
 * median `latency` ms) and one moto server with the state table. `processes` child processes
 * each run `callers` closed-loop callers sending the pipeline's own requests (every analyst on
 * the README sample's clauses) through the real SDK client. Before each request a caller waits
 * for the worker's TokenBudget (the same limits, leased from the table); after it the budget is
 * corrected to the quota tokens the answer was billed, or given back on a throttle, which is
 * retried after a full-jitter wait of up to 500 ms, as tier 1 does.
 *
 * Printed as JSON and a table: goodput (quota tokens answered per minute over the steady part of
 * the run, from 10 s after the start to the end, against the limit), the throttle rate,
 * requests per minute against the limit, and DynamoDB requests per answered call.
 *
 * `runTpmBench` is exported for test/bench/run-all.ts.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { ANALYSTS, buildConverseInput } from '../../lambdas/core/analysts/index.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { PRIMARY_MODEL_ID, quotaTokens } from '../../lambdas/core/model-catalogue.js';
import { ModelBudgets } from '../../lambdas/core/state/model-budgets.js';
import { isThrottle } from '../../lambdas/core/worker/error-class.js';
import { TokenBudgets } from '../../lambdas/core/worker/token-budget.js';
import { worstCaseInputTokens } from '../../lambdas/core/worker/worst-case.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createClients } from '../../lambdas/shared/runtime.js';
import { startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { seededRandom } from '../helpers/random.js';
import { BENCH_CONTRACT } from './pipeline.js';
import { spawnFleetChild, startFleetTable } from './process-fleet.js';

const TABLE = 'tpm';
/** The start-up left out of the steady part: the processes' first leases and first calls. */
const WARM_UP_MS = 10_000;

/** What one child process reports when it ends. */
interface ChildReport {
  readonly worker: string;
  readonly attempts: number;
  readonly throttles: number;
  readonly otherErrors: number;
  /** Epoch ms and quota tokens of each answered call. */
  readonly answered: readonly (readonly [number, number])[];
  readonly dynamoRequests: number;
  readonly leases: number;
}

export interface TpmBenchOptions {
  readonly processes?: number;
  readonly durationMs?: number;
  readonly tokensPerMinute?: number;
  readonly requestsPerMinute?: number;
  readonly callers?: number;
  readonly latencyMs?: number;
  /** The budget's leadMs and sliceMs. @default TokenBudget's */
  readonly leadMs?: number;
  readonly sliceMs?: number;
  readonly log?: (line: string) => void;
}

export interface TpmBenchResult {
  readonly processes: number;
  readonly durationMs: number;
  readonly tokensPerMinute: number;
  readonly requestsPerMinute: number;
  /** The steady part: from WARM_UP_MS after the start to the end of the run. */
  readonly steadyMs: number;
  /** Quota tokens answered per minute in the steady part. */
  readonly quotaTokensPerMinute: number;
  readonly goodput: number;
  readonly answeredPerMinute: number;
  readonly attempts: number;
  readonly throttles: number;
  readonly throttleRate: number;
  /** Throttles as the stand-in counted them, by message. */
  readonly standInThrottles: number;
  readonly otherErrors: number;
  readonly dynamoRequests: number;
  readonly dynamoPerCall: number;
  readonly leases: number;
}

/** The pipeline's requests: every analyst on the README sample's first clauses. */
async function requests(): Promise<ConverseCommandInput[]> {
  const bytes = readFileSync(BENCH_CONTRACT);
  const doc = await parseDocument(bytes, {
    key: basename(BENCH_CONTRACT),
    maxBytes: 10 * 1024 * 1024,
    chunk: { maxClauses: 8 },
  });
  return doc.clauses
    .slice(0, 40)
    .flatMap((clause) => ANALYSTS.map((a) => buildConverseInput(a, clause, { modelId: PRIMARY_MODEL_ID })));
}

async function child(values: Record<string, string | boolean | undefined>): Promise<void> {
  const worker = String(values.worker);
  const startAt = Number(values['start-at']);
  const endAt = Number(values['end-at']);
  const clients = createClients({
    endpoint: String(values.endpoint),
    bedrockEndpoint: String(values.bedrock),
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  let dynamoRequests = 0;
  clients.db.middlewareStack.add(
    (next) => async (args) => {
      dynamoRequests++;
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  const budgets = new TokenBudgets(
    {
      [PRIMARY_MODEL_ID]: {
        tokensPerMinute: Number(values.tpm),
        requestsPerMinute: Number(values.rpm),
      },
    },
    {
      store: new ModelBudgets(clients.db, TABLE),
      log: (event, fields) => process.stderr.write(`${worker} ${event} ${JSON.stringify(fields)}\n`),
      ...(values.lead ? { leadMs: Number(values.lead) } : {}),
      ...(values.slice ? { sliceMs: Number(values.slice) } : {}),
    },
  );
  const budget = budgets.for(PRIMARY_MODEL_ID);
  if (!budget) throw new Error('no budget for the primary model');
  const inputs = await requests();
  const random = seededRandom(Number(worker.replace(/\D/g, '')) + 1);
  const report = { attempts: 0, throttles: 0, otherErrors: 0, answered: [] as [number, number][] };
  // Callers waiting for the budget, the model and a backoff; TPM_TRACE=1 prints them every 10 s.
  const where = { budget: 0, model: 0, backoff: 0 };
  const trace = process.env.TPM_TRACE
    ? setInterval(() => {
        const now = {
          ...where,
          ...budget.stats(),
          attempts: report.attempts,
          answered: report.answered.length,
        };
        process.stderr.write(`${worker} ${JSON.stringify(now)}\n`);
      }, 10_000)
    : undefined;
  await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
  const caller = async (index: number): Promise<void> => {
    let next = index;
    while (Date.now() < endAt) {
      const input = inputs[next % inputs.length] as ConverseCommandInput;
      where.budget++;
      const ticket = await budget.acquire(
        worstCaseInputTokens(input) + (input.inferenceConfig?.maxTokens ?? 0),
      );
      where.budget--;
      if (Date.now() >= endAt) {
        ticket.refund();
        return;
      }
      report.attempts++;
      try {
        where.model++;
        // The worker's own bound on a model call (MODEL_TIMEOUT_MS), so a lost answer cannot stall a caller.
        const output = await clients.bedrock
          .send(new ConverseCommand(input), { abortSignal: AbortSignal.timeout(60_000) as never })
          .finally(() => where.model--);
        const usage = {
          inputTokens: output.usage?.inputTokens ?? 0,
          outputTokens: output.usage?.outputTokens ?? 0,
          cacheReadInputTokens: output.usage?.cacheReadInputTokens ?? 0,
          cacheWriteInputTokens: output.usage?.cacheWriteInputTokens ?? 0,
        };
        const quota = quotaTokens(PRIMARY_MODEL_ID, usage);
        ticket.settle(quota);
        report.answered.push([Date.now(), quota]);
        next += Number(values.callers) * 97;
      } catch (error) {
        ticket.refund();
        if (isThrottle(error)) report.throttles++;
        else report.otherErrors++;
        where.backoff++;
        await new Promise((r) => setTimeout(r, random() * 500));
        where.backoff--;
      }
    }
  };
  await Promise.all(Array.from({ length: Number(values.callers) }, (_, i) => caller(i)));
  clearInterval(trace);
  const { leases } = budget.stats();
  const out: ChildReport = { worker, ...report, dynamoRequests, leases };
  process.stdout.write(`${JSON.stringify(out)}\n`);
  clients.db.destroy();
  clients.bedrock.destroy();
}

/** Starts the stand-in, moto and the processes, and measures the run. */
export async function runTpmBench(options: TpmBenchOptions = {}): Promise<TpmBenchResult> {
  const processes = options.processes ?? 4;
  const durationMs = options.durationMs ?? 150_000;
  const tokensPerMinute = options.tokensPerMinute ?? 600_000;
  const requestsPerMinute = options.requestsPerMinute ?? 400;
  const log = options.log ?? console.error;
  const standIn = await startBedrockStandIn({
    seed: 11,
    plan: {
      capacity: { tokensPerMinute, requestsPerMinute },
      latency: { kind: 'lognormal', medianMs: options.latencyMs ?? 400, sigma: 0.25 },
    },
  });
  const ground = await startFleetTable(TABLE);
  try {
    // Room for the processes to boot (tsx compiles on start).
    const startAt = Date.now() + 8_000;
    const endAt = startAt + durationMs;
    log(
      `  ${processes} processes, ${tokensPerMinute} tokens and ${requestsPerMinute} requests a minute, ${durationMs / 1000} s`,
    );
    const reports = await Promise.all(
      Array.from({ length: processes }, (_, i) =>
        spawnFleetChild<ChildReport>(fileURLToPath(import.meta.url), i, {
          endpoint: ground.endpoint,
          bedrock: standIn.url,
          'start-at': String(startAt),
          'end-at': String(endAt),
          callers: String(options.callers ?? 16),
          tpm: String(tokensPerMinute),
          rpm: String(requestsPerMinute),
          ...(options.leadMs ? { lead: String(options.leadMs) } : {}),
          ...(options.sliceMs ? { slice: String(options.sliceMs) } : {}),
        }),
      ),
    );
    const steadyFrom = startAt + WARM_UP_MS;
    const steadyMs = endAt - steadyFrom;
    const steady = reports.flatMap((r) => r.answered).filter(([at]) => at >= steadyFrom && at <= endAt);
    const perMinute = (n: number) => (n * 60_000) / steadyMs;
    const quotaTokensPerMinute = perMinute(steady.reduce((sum, [, q]) => sum + q, 0));
    const sum = (pick: (r: ChildReport) => number) => reports.reduce((n, r) => n + pick(r), 0);
    const attempts = sum((r) => r.attempts);
    const throttles = sum((r) => r.throttles);
    const answered = sum((r) => r.answered.length);
    const dynamoRequests = sum((r) => r.dynamoRequests);
    const books = standIn.accounting().byModel[PRIMARY_MODEL_ID];
    return {
      processes,
      durationMs,
      tokensPerMinute,
      requestsPerMinute,
      steadyMs,
      quotaTokensPerMinute,
      goodput: quotaTokensPerMinute / tokensPerMinute,
      answeredPerMinute: perMinute(steady.length),
      attempts,
      throttles,
      throttleRate: attempts === 0 ? 0 : throttles / attempts,
      standInThrottles: books?.ThrottlingException?.calls ?? 0,
      otherErrors: sum((r) => r.otherErrors),
      dynamoRequests,
      dynamoPerCall: answered === 0 ? 0 : dynamoRequests / answered,
      leases: sum((r) => r.leases),
    };
  } finally {
    await ground.stop();
    await standIn.close();
  }
}

export function formatTpmBench(r: TpmBenchResult): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  const int = (x: number) => Math.round(x).toLocaleString('en-US');
  return [
    JSON.stringify(r),
    '| figure | value |',
    '|---|---|',
    `| goodput: quota tokens answered per minute / tokens per minute (steady ${r.steadyMs / 1000} s) | ${int(r.quotaTokensPerMinute)} / ${int(r.tokensPerMinute)} = ${pct(r.goodput)} |`,
    `| throttles / requests | ${r.throttles} / ${r.attempts} = ${pct(r.throttleRate)} (stand-in: ${r.standInThrottles}) |`,
    `| requests answered per minute / requests per minute | ${int(r.answeredPerMinute)} / ${int(r.requestsPerMinute)} |`,
    `| DynamoDB requests per answered call (leases) | ${r.dynamoPerCall.toFixed(3)} (${r.leases}) |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      child: { type: 'boolean', default: false },
      worker: { type: 'string' },
      endpoint: { type: 'string' },
      bedrock: { type: 'string' },
      'start-at': { type: 'string' },
      'end-at': { type: 'string' },
      processes: { type: 'string', default: '4' },
      duration: { type: 'string', default: '150' },
      tpm: { type: 'string', default: '600000' },
      rpm: { type: 'string', default: '400' },
      callers: { type: 'string', default: '16' },
      latency: { type: 'string', default: '400' },
      lead: { type: 'string' },
      slice: { type: 'string' },
    },
  });
  if (values.child) await child(values);
  else {
    const result = await runTpmBench({
      processes: Number(values.processes),
      durationMs: Number(values.duration) * 1000,
      tokensPerMinute: Number(values.tpm),
      requestsPerMinute: Number(values.rpm),
      callers: Number(values.callers),
      latencyMs: Number(values.latency),
      ...(values.lead ? { leadMs: Number(values.lead) } : {}),
      ...(values.slice ? { sliceMs: Number(values.slice) } : {}),
    });
    console.log(formatTpmBench(result));
  }
}
