/**
 * The pipeline under load: contracts through the local runtime (intake, the realtime lane's
 * handlers, finalize; moto for AWS), against the Bedrock stand-in run as a separate process
 * with a set latency and capacity. One scenario is one or more contracts uploaded at once.
 *
 *   npx tsx test/bench/pipeline.ts [--latency-ms 400] [--capacity 12] [--jobs 1] [--file PATH]
 *
 * Prints achieved model calls per second against the bound the stand-in allows (capacity ÷
 * latency), the DynamoDB requests per model call (writes, transactions, job-item writes),
 * transaction conflicts per 1,000 calls, the orchestration CPU per call and the emulator's.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { parseDocumentBounded } from '../../lambdas/core/documents/index.js';
import { jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { PRIMARY_MODEL_ID as LOCAL_RUN_PRIMARY_MODEL } from '../../lambdas/core/model-catalogue.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import type { AccountingSnapshot } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { startLocalStack } from '../../localstack/runtime/local-stack.js';
import { countConflicts } from '../helpers/conflict-counter.js';
import { type FirstCallTrace, formatFirstCall, watchFirstCall } from './first-call.js';

export const BENCH_CONTRACT = join(
  PROJECT_ROOT,
  'test/fixtures/contracts/BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt',
);
/** A small contract (77 calls) and the largest fixture (8,382 calls). */
export const SMALL_CONTRACT = join(
  PROJECT_ROOT,
  'test/fixtures/contracts/GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt',
);
export const MEDIUM_CONTRACT = join(
  PROJECT_ROOT,
  'test/fixtures/contracts/KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt',
);
export const LARGEST_CONTRACT = join(
  PROJECT_ROOT,
  'test/fixtures/contracts/VerizonAbsLlc_20200123_8-K_EX-10_4_11952335_EX-10_4_Service_Agreement.txt',
);

export interface PipelineBenchOptions {
  readonly latencyMs: number;
  /** Requests the stand-in serves at once per model; above it, ThrottlingException. */
  readonly capacity: number;
  /** Contracts uploaded at once, one job each. */
  readonly files: readonly string[];
  readonly log?: (line: string) => void;
}

export interface PipelineBenchResult {
  readonly jobs: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly callsPlanned: number;
  readonly callsAnswered: number;
  readonly throttled: number;
  readonly fallbackShare: number;
  readonly seconds: number;
  readonly callsPerSecond: number;
  readonly boundPerSecond: number;
  readonly orchestrationCpuMsPerCall: number;
  readonly emulatorCpuMsPerCall: number;
  readonly dynamoRequestsPerCall: number;
  readonly writesPerCall: number;
  readonly transactionsPerCall: number;
  readonly jobItemWritesPerCall: number;
  readonly conflictsPer1000Calls: number;
  readonly dynamoByCommand: Readonly<Record<string, number>>;
  /** The primary model's limiter, sampled every 250 ms while calls ran: mean limit and permits in use. */
  readonly limiterMeanLimit: number;
  readonly limiterMeanActive: number;
  /** Share of those samples in which calls waited for a permit. */
  readonly limiterWaitingShare: number;
  /** Mean time a permit was held (from its grant to the model's answer), against the stand-in's latency. */
  readonly permitHeldMs: number;
  /** Mean time from a model request's send to its answer, as the SDK client saw it (the bar's figure). */
  readonly requestToAnswerMs: number;
  /** The primary model's limiter: windows that raised the limit, and throttles by the limit they met. */
  readonly limiterIncreases: number;
  readonly throttlesByLimit: Readonly<Record<string, number>>;
  /** The steps from the upload to the first model request (the first job's). */
  readonly firstCall: FirstCallTrace;
  /** Upload to the first model call's end, as the limiter saw it. */
  readonly toFirstCallSeconds: number;
  /** From the first model call's end to the last one's: the stretch in which calls ran. */
  readonly callingSeconds: number;
  /** The last model call's end to the last report written. */
  readonly afterLastCallSeconds: number;
  /** Event-loop delay of the process running intake, the realtime lane and finalize (ms). */
  readonly eventLoopDelayMs: { readonly mean: number; readonly p99: number; readonly max: number };
}

/** The stand-in in its own process, so its CPU is not counted as orchestration. */
export async function standInProcess(
  plan: object,
): Promise<{ url: string; child: ChildProcess; accounting(): Promise<AccountingSnapshot> }> {
  const planFile = join(mkdtempSync(join(tmpdir(), 'clause-review-bench-')), 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(PROJECT_ROOT, 'localstack/bedrock/main.ts'), '--plan', planFile],
    { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`stand-in exited with ${code}`)));
  });
  return {
    url,
    child,
    async accounting() {
      const r = await fetch(`${url}/_stand-in/accounting`);
      return (await r.json()) as AccountingSnapshot;
    },
  };
}

/** CPU seconds (user + system) a process has used, from /proc. */
export function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The first process whose command line matches `pattern` (pgrep -f). */
export async function findPid(pattern: string): Promise<number | undefined> {
  const child = spawn('pgrep', ['-f', pattern], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await new Promise((r) => child.once('exit', r));
  const pid = Number(out.trim().split('\n')[0]);
  return Number.isFinite(pid) && pid > 0 ? pid : undefined;
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

type Keyed = { Key?: { sk?: unknown }; Item?: { sk?: unknown } } | undefined;

/** True when a request addresses the job item (`sk = JOB`). */
function isJobKey(k: Keyed): boolean {
  return (k?.Key?.sk ?? k?.Item?.sk) === 'JOB';
}

/** True when a DynamoDB request writes the job item, alone or in a transaction. */
function writesJobItem(command: string, input: Record<string, unknown>): boolean {
  if (WRITES.has(command)) return isJobKey(input as Keyed);
  if (command === 'TransactWriteItemsCommand') {
    const items = (input.TransactItems ?? []) as Record<string, Keyed>[];
    return items.some((i) => isJobKey(i.Update) || isJobKey(i.Put) || isJobKey(i.Delete));
  }
  return false;
}

/** Mean milliseconds a released permit was held. */
function permitHeld(stats: { calls: number; heldMs: number } | undefined): number {
  return stats && stats.calls > 0 ? stats.heldMs / stats.calls : Number.NaN;
}

export async function runPipelineBench(options: PipelineBenchOptions): Promise<PipelineBenchResult> {
  const log = options.log ?? (() => {});
  const standIn = await standInProcess({
    latency: { kind: 'fixed', ms: options.latencyMs },
    capacity: { maxInFlight: options.capacity },
  });
  const stack = await startLocalStack({});
  const motoProcess = await findPid(`moto_serve.py -H 127.0.0.1 -p ${new URL(stack.awsEndpoint).port}`);
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: standIn.url,
    topology: stack.topology,
    resources: stack.resources,
    // The limiter at the model's capacity, as an account that knows its quota sets it: the bench
    // measures what a call costs besides the model, not the probing for a limit (the limiter
    // bench does that), and each probe past the capacity is a throttle.
    settings: { ...LOCAL_RUN_DEFAULTS, limiterInitial: options.capacity, limiterMax: options.capacity },
    batchWorkers: 0,
    log,
  });
  // Warm, as a deployed intake function is once its initialisation has started a parser thread:
  // the upload's parse then finds the thread's modules loaded (intake's pool is this process's).
  await parseDocumentBounded(new TextEncoder().encode('1. Warm. The parser is ready.'), {
    key: 'warm.txt',
    maxBytes: 1000,
  });
  const dynamo = new Map<string, number>();
  let jobItemWrites = 0;
  pipeline.clients.db.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown');
      dynamo.set(name, (dynamo.get(name) ?? 0) + 1);
      if (writesJobItem(name, args.input as Record<string, unknown>)) jobItemWrites++;
      return next(args);
    },
    { step: 'initialize', name: 'benchCountDynamoRequests' },
  );
  const conflicts = countConflicts(pipeline.clients.db);
  const firstCall = watchFirstCall(pipeline.clients, stack.resources);
  // The event sources' pollers were long-polling before the watch was installed, and a receive
  // already sent does not pass through middleware added after it: wait until every poll in
  // flight has been sent again (a poll waits at most a second), so that the first receives of
  // the S3 event and of the chunk messages are seen.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  // Request to answer of every answered model request, and the limit each throttle met.
  const requests = { answered: 0, ms: 0 };
  const throttlesByLimit: Record<string, number> = {};
  pipeline.clients.bedrock.middlewareStack.add(
    (next) => async (args) => {
      const sent = performance.now();
      try {
        const result = await next(args);
        requests.answered++;
        requests.ms += performance.now() - sent;
        return result;
      } catch (error) {
        if ((error as Error).name === 'ThrottlingException') {
          const limit = String(pipeline.limiters?.stats()[LOCAL_RUN_PRIMARY_MODEL]?.limit);
          throttlesByLimit[limit] = (throttlesByLimit[limit] ?? 0) + 1;
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'benchTimeModelRequests' },
  );
  const samples: { limit: number; active: number; waiting: number }[] = [];
  // When calls were first and last seen ending (limiter permits released), every 250 ms.
  const calls = { first: Number.NaN, last: Number.NaN, count: 0 };
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const sampler = setInterval(() => {
    const l = pipeline.limiters?.stats()[LOCAL_RUN_PRIMARY_MODEL];
    if (l && l.calls > calls.count) {
      if (calls.count === 0) calls.first = Date.now();
      calls.count = l.calls;
      calls.last = Date.now();
    }
    const waiting = l ? Object.values(l.waiting).reduce((sum, n) => sum + n, 0) : 0;
    if (l && (l.active > 0 || waiting > 0)) samples.push({ limit: l.limit, active: l.active, waiting });
  }, 250);
  try {
    const cpuBefore = process.cpuUsage();
    const motoBefore = motoProcess ? cpuSecondsOf(motoProcess) : Number.NaN;
    const jobs = new Jobs(pipeline.clients.db, stack.resources.tableName);
    const started = Date.now();
    firstCall.start();
    const jobIds = await Promise.all(
      options.files.map(async (file, i) => {
        const key = `${stack.resources.intakePrefix}bench-${i}-${basename(file)}`;
        const put = await pipeline.clients.s3.send(
          new PutObjectCommand({
            Bucket: stack.resources.intakeBucket,
            Key: key,
            Body: readFileSync(file),
            // A ceiling every bench job stays under: the bench measures throughput, not the ceiling.
            Metadata: { 'ceiling-usd': '100' },
          }),
        );
        return jobIdOfPut(stack.resources.intakeBucket, key, put);
      }),
    );
    const ended = new Map<string, Job>();
    let lastLog = 0;
    while (ended.size < jobIds.length) {
      await new Promise((r) => setTimeout(r, 500));
      for (const id of jobIds) {
        if (ended.has(id)) continue;
        const job = await jobs.find(id);
        if (job?.finalizedAt || job?.status === 'rejected') ended.set(id, job);
      }
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        log(`  … ${ended.size}/${jobIds.length} jobs ended, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    }
    const finished = Math.max(
      ...[...ended.values()].map((j) => Date.parse(j.finalizedAt ?? '') || Date.now()),
    );
    const seconds = (finished - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const motoCpu = motoProcess ? cpuSecondsOf(motoProcess) - motoBefore : Number.NaN;
    const accounting = await standIn.accounting();
    let answered = 0;
    let throttled = 0;
    let fallback = 0;
    for (const [model, byOutcome] of Object.entries(accounting.byModel)) {
      answered += byOutcome.success?.calls ?? 0;
      throttled += byOutcome.ThrottlingException?.calls ?? 0;
      if (model !== LOCAL_RUN_PRIMARY_MODEL) fallback += byOutcome.success?.calls ?? 0;
    }
    const count = (names: string[]) => names.reduce((n, c) => n + (dynamo.get(c) ?? 0), 0);
    const dynamoRequests = [...dynamo.values()].reduce((a, b) => a + b, 0);
    const mean = (f: (x: (typeof samples)[number]) => number) =>
      samples.length === 0 ? Number.NaN : samples.reduce((n, x) => n + f(x), 0) / samples.length;
    const statuses: Record<string, number> = {};
    for (const j of ended.values()) statuses[j.status] = (statuses[j.status] ?? 0) + 1;
    return {
      jobs: jobIds.length,
      statuses,
      callsPlanned: [...ended.values()].reduce((n, j) => n + j.callsPlanned, 0),
      callsAnswered: answered,
      throttled,
      fallbackShare: answered ? fallback / answered : 0,
      seconds,
      callsPerSecond: answered / seconds,
      boundPerSecond: options.capacity / (options.latencyMs / 1000),
      orchestrationCpuMsPerCall: (cpu.user + cpu.system) / 1000 / answered,
      emulatorCpuMsPerCall: (motoCpu * 1000) / answered,
      dynamoRequestsPerCall: dynamoRequests / answered,
      writesPerCall: count([...WRITES]) / answered,
      transactionsPerCall: count(['TransactWriteItemsCommand']) / answered,
      jobItemWritesPerCall: jobItemWrites / answered,
      conflictsPer1000Calls: (conflicts.count * 1000) / answered,
      dynamoByCommand: Object.fromEntries(dynamo),
      limiterMeanLimit: mean((x) => x.limit),
      limiterMeanActive: mean((x) => x.active),
      limiterWaitingShare: mean((x) => (x.waiting > 0 ? 1 : 0)),
      permitHeldMs: permitHeld(pipeline.limiters?.stats()[LOCAL_RUN_PRIMARY_MODEL]),
      requestToAnswerMs: requests.ms / Math.max(1, requests.answered),
      limiterIncreases: pipeline.limiters?.stats()[LOCAL_RUN_PRIMARY_MODEL]?.increases ?? 0,
      throttlesByLimit,
      firstCall: firstCall.steps(),
      toFirstCallSeconds: (calls.first - started) / 1000,
      callingSeconds: (calls.last - calls.first) / 1000,
      afterLastCallSeconds: (finished - calls.last) / 1000,
      eventLoopDelayMs: {
        mean: loopDelay.mean / 1e6,
        p99: loopDelay.percentile(99) / 1e6,
        max: loopDelay.max / 1e6,
      },
    };
  } finally {
    loopDelay.disable();
    clearInterval(sampler);
    await pipeline.stop();
    await stack.stop();
    standIn.child.kill('SIGTERM');
  }
}

export function formatPipelineBench(label: string, o: PipelineBenchOptions, r: PipelineBenchResult): string {
  const f = (n: number, d = 1) => n.toFixed(d);
  return [
    `${label}: ${r.jobs} job(s), ${r.callsPlanned} planned calls; stand-in latency ${o.latencyMs} ms, capacity ${o.capacity} in flight; limiter at most ${o.capacity}`,
    `  job status                         ${Object.entries(r.statuses)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}`,
    `  calls answered                     ${r.callsAnswered} (fallback model ${f(r.fallbackShare * 100)} %), throttled ${r.throttled}${
      r.throttled > 0
        ? ` (at limit ${Object.entries(r.throttlesByLimit)
            .map(([limit, n]) => `${limit}: ${n}`)
            .join(', ')}; ${r.limiterIncreases} raises of the limit)`
        : ''
    }`,
    `  wall time (upload → last report)   ${f(r.seconds)} s`,
    `  achieved calls/s ÷ C/L             ${f(r.callsPerSecond)} ÷ ${f(r.boundPerSecond)} = ${f(r.callsPerSecond / r.boundPerSecond, 3)}`,
    `  where the time went                ${f(r.toFirstCallSeconds)} s to the first call, ${f(r.callingSeconds)} s of calls (${f(r.callsAnswered / r.callingSeconds / r.boundPerSecond, 3)} of C/L), ${f(r.afterLastCallSeconds)} s from the last call to the report`,
    `  DynamoDB requests per model call   ${f(r.dynamoRequestsPerCall, 2)}: writes ${f(r.writesPerCall, 3)}, transactions ${f(r.transactionsPerCall, 3)}, job-item writes ${f(r.jobItemWritesPerCall, 4)}`,
    `  transaction conflicts              ${f(r.conflictsPer1000Calls, 2)} per 1,000 calls`,
    `  event-loop delay                   mean ${f(r.eventLoopDelayMs.mean)} ms, p99 ${f(r.eventLoopDelayMs.p99)} ms, max ${f(r.eventLoopDelayMs.max)} ms (the process running the handlers)`,
    `  orchestration CPU per call         ${f(r.orchestrationCpuMsPerCall, 2)} ms (handlers, SDK clients, limiter)`,
    `  emulator (moto) CPU per call       ${f(r.emulatorCpuMsPerCall, 2)} ms`,
    `  primary model's limiter            mean limit ${f(r.limiterMeanLimit)}, mean permits in use ${f(r.limiterMeanActive)}; calls waiting for a permit in ${f(r.limiterWaitingShare * 100)} % of samples`,
    `  permit held                        ${f(r.permitHeldMs)} ms on average, ${f(r.requestToAnswerMs)} ms of it from request to answer (the model answers in ${o.latencyMs} ms)`,
    '  the first call, from the upload:',
    formatFirstCall(r.firstCall),
    `  requests by command                ${JSON.stringify(r.dynamoByCommand)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'latency-ms': { type: 'string', default: '400' },
      capacity: { type: 'string', default: '12' },
      jobs: { type: 'string', default: '1' },
      file: { type: 'string', default: BENCH_CONTRACT },
    },
  });
  const options = {
    latencyMs: Number(values['latency-ms']),
    capacity: Number(values.capacity),
    files: Array.from({ length: Number(values.jobs) }, () => values.file ?? BENCH_CONTRACT),
    log: (line: string) => console.error(line),
  };
  const result = await runPipelineBench(options);
  console.log(formatPipelineBench(basename(values.file ?? BENCH_CONTRACT), options, result));
}
