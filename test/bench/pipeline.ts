/**
 * The pipeline under load: one contract of more than 3,000 model calls through the local
 * runtime (intake, the realtime lane's handlers, finalize; moto for AWS), against the Bedrock
 * stand-in run as a separate process with a set latency and capacity.
 *
 *   npx tsx test/bench/pipeline.ts [--latency-ms 400] [--capacity 12] [--file PATH]
 *
 * Prints achieved model calls per second against the bound the stand-in allows (capacity ÷
 * latency), the orchestration CPU per call (this process: handlers, SDK clients, limiter) and
 * the emulator's, and the DynamoDB requests per model call.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { Report } from '../../lambdas/core/finalize/report-types.js';
import { jobIdFor } from '../../lambdas/core/intake/intake.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import type { AccountingSnapshot } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { startLocalStack } from '../../localstack/runtime/local-stack.js';

export const BENCH_CONTRACT = join(
  PROJECT_ROOT,
  'test/fixtures/contracts/BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt',
);

export interface PipelineBenchOptions {
  readonly latencyMs: number;
  /** Requests the stand-in serves at once per model; above it, ThrottlingException. */
  readonly capacity: number;
  readonly file: string;
  readonly log?: (line: string) => void;
}

export interface PipelineBenchResult {
  readonly status: string;
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
  readonly dynamoByCommand: Readonly<Record<string, number>>;
}

/** The stand-in in its own process, so its CPU is not counted as orchestration. */
async function standInProcess(
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
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

async function findPid(pattern: string): Promise<number | undefined> {
  const child = spawn('pgrep', ['-f', pattern], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await new Promise((r) => child.once('exit', r));
  const pid = Number(out.trim().split('\n')[0]);
  return Number.isFinite(pid) && pid > 0 ? pid : undefined;
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
    settings: { ...LOCAL_RUN_DEFAULTS, limiterInitial: 10 },
    batchWorkers: 0,
    log,
  });
  const dynamo = new Map<string, number>();
  pipeline.clients.db.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown');
      dynamo.set(name, (dynamo.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCountDynamoRequests' },
  );
  try {
    const cpuBefore = process.cpuUsage();
    const motoBefore = motoProcess ? cpuSecondsOf(motoProcess) : Number.NaN;
    const key = `${stack.resources.intakePrefix}bench.txt`;
    const put = await pipeline.clients.s3.send(
      new PutObjectCommand({
        Bucket: stack.resources.intakeBucket,
        Key: key,
        Body: readFileSync(options.file),
      }),
    );
    const jobId = jobIdFor({
      bucket: stack.resources.intakeBucket,
      key,
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
    });
    const jobs = new Jobs(pipeline.clients.db, stack.resources.tableName);
    let job = await jobs.find(jobId);
    let lastLog = 0;
    while (!job?.finalizedAt && job?.status !== 'rejected') {
      await new Promise((r) => setTimeout(r, 500));
      job = await jobs.find(jobId);
      if (job && Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        log(`  … ${job.chunksTerminal}/${job.chunkCount} chunks`);
      }
    }
    const cpu = process.cpuUsage(cpuBefore);
    const motoCpu = motoProcess ? cpuSecondsOf(motoProcess) - motoBefore : Number.NaN;
    const get = await pipeline.clients.s3.send(
      new GetObjectCommand({
        Bucket: stack.resources.resultsBucket,
        Key: job.reportKey ?? '',
      }),
    );
    const report = JSON.parse((await get.Body?.transformToString()) ?? '{}') as Report;
    const accounting = await standIn.accounting();
    let answered = 0;
    let throttled = 0;
    let fallback = 0;
    for (const [model, byOutcome] of Object.entries(accounting.byModel)) {
      answered += byOutcome.success?.calls ?? 0;
      throttled += byOutcome.ThrottlingException?.calls ?? 0;
      if (!model.startsWith('anthropic.')) fallback += byOutcome.success?.calls ?? 0;
    }
    const seconds = report.timings.durationMs / 1000;
    const requests = [...dynamo.values()].reduce((a, b) => a + b, 0);
    return {
      status: job.status,
      callsPlanned: job.callsPlanned,
      callsAnswered: answered,
      throttled,
      fallbackShare: answered ? fallback / answered : 0,
      seconds,
      callsPerSecond: answered / seconds,
      boundPerSecond: options.capacity / (options.latencyMs / 1000),
      orchestrationCpuMsPerCall: (cpu.user + cpu.system) / 1000 / answered,
      emulatorCpuMsPerCall: (motoCpu * 1000) / answered,
      dynamoRequestsPerCall: requests / answered,
      dynamoByCommand: Object.fromEntries(dynamo),
    };
  } finally {
    await pipeline.stop();
    await stack.stop();
    standIn.child.kill('SIGTERM');
  }
}

export function formatPipelineBench(o: PipelineBenchOptions, r: PipelineBenchResult): string {
  const f = (n: number, d = 1) => n.toFixed(d);
  return [
    `pipeline: ${r.callsPlanned} planned calls, stand-in latency ${o.latencyMs} ms, capacity ${o.capacity} in flight per model`,
    `  job status                         ${r.status}`,
    `  calls answered                     ${r.callsAnswered} (fallback model ${f(r.fallbackShare * 100)} %), throttled ${r.throttled}`,
    `  wall time (intake → finalized)     ${f(r.seconds)} s`,
    `  achieved calls/s                   ${f(r.callsPerSecond)}  of a bound of ${f(r.boundPerSecond)} (capacity ÷ latency) = ${f((r.callsPerSecond / r.boundPerSecond) * 100)} %`,
    `  orchestration CPU per call         ${f(r.orchestrationCpuMsPerCall, 2)} ms (handlers, SDK clients, limiter)`,
    `  emulator (moto) CPU per call       ${f(r.emulatorCpuMsPerCall, 2)} ms`,
    `  DynamoDB requests per model call   ${f(r.dynamoRequestsPerCall, 2)}  ${JSON.stringify(r.dynamoByCommand)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      'latency-ms': { type: 'string', default: '400' },
      capacity: { type: 'string', default: '12' },
      file: { type: 'string', default: BENCH_CONTRACT },
    },
  });
  const options = {
    latencyMs: Number(values['latency-ms']),
    capacity: Number(values.capacity),
    file: values.file ?? BENCH_CONTRACT,
    log: (line: string) => console.error(line),
  };
  const result = await runPipelineBench(options);
  console.log(formatPipelineBench(options, result));
}
