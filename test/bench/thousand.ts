/**
 * A thousand jobs from ten owners, one of them hot: `--jobs N` small real contracts (CUAD's
 * shortest planning 20 to 200 model calls, about 100 on average) uploaded within a minute, 80 %
 * of them by one owner and the rest by nine quiet owners, interleaved. Then a second, short run
 * with one quiet owner's jobs alone (the same contracts at the same moments), to set the quiet
 * owners' times in the crowd beside what they get alone.
 *
 *   npm run bench -- --only thousand [--jobs 1000]
 *   npx tsx test/bench/thousand.ts [--jobs 1000] [--json]
 *
 * The stand-in answers in 200 ms with 48 requests in flight per model: 240 calls/s, above what
 * the orchestration and moto can drive on a small machine, so the pipeline's own work (the
 * realtime lane's 20 invocations, DynamoDB, SQS) is a bound too, and not only the model.
 *
 * Prints, as JSON and as a table: every job ended and its calls accounted (the soak's checks),
 * calls billed twice, spend over a ceiling; the pickup latency of a chunk stage (ready → claimed,
 * from the checkpoints' timestamps: of the stages that became ready while the lane had a slot for
 * them, and counted only while one of the lane's slots was free); the
 * checkpoint write latency (around the SDK call); upload → first finding and upload → report per
 * owner, the quiet owners beside their times alone; each process's peak memory and CPU; the
 * DynamoDB requests per model call.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { costOfTotals } from '../../lambdas/core/model-catalogue.js';
import type { Checkpoint } from '../../lambdas/core/state/claims.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { addCoverage, checkJob, emptyCallTally, type Violation } from '../soak/checks.js';
import { factsOf } from '../soak/end-checks.js';
import { startGroundProbe } from './ground-probe.js';
import {
  firstFindingMs,
  type PlannedUpload,
  pickupLatency,
  pickupsOf,
  planUploads,
  runViolations,
  type Spread,
  spread,
} from './thousand-measure.js';
import {
  type BenchStack,
  CROWD_DEFAULTS,
  type CrowdOptions,
  jobStates,
  type ProcessFigures,
  processFigures,
  shortestContracts,
  sleep,
  startCrowdStack,
  uploadAs,
} from './thousand-rig.js';

export interface ThousandOptions extends CrowdOptions {
  readonly jobs: number;
  readonly uploadSeconds: number;
  /** Distinct contracts the jobs take in turn. */
  readonly contracts: number;
}

export const THOUSAND_DEFAULTS: Omit<ThousandOptions, 'log'> = {
  ...CROWD_DEFAULTS,
  jobs: 1000,
  uploadSeconds: 60,
  contracts: 30,
  maxMinutes: 60,
};

/** One scenario's figures. */
export interface ScenarioResult {
  readonly jobs: number;
  readonly seconds: number;
  readonly statuses: Record<string, number>;
  readonly calls: {
    planned: number;
    done: number;
    failed: number;
    skipped: number;
    cancelled: number;
    screened: number;
    notRun: number;
  };
  readonly callsAnswered: number;
  readonly billedTwice: number;
  /** Jobs that spent over their ceiling, and the stand-in's bill against what the jobs recorded (µ$). */
  readonly overCeiling: number;
  readonly billedMicros: number;
  readonly recordedMicros: number;
  readonly violationCount: number;
  readonly violations: Violation[];
  readonly pickupMs: ReturnType<typeof pickupLatency>;
  /** A chunk message's first delivery: sent → received by a slot. */
  readonly queueWaitMs: Spread;
  readonly checkpointWriteMs: Spread;
  readonly checkpointTransactionMs: Spread;
  /**
   * The local ground's own latency at the same moments, from a process of its own (ground-probe.ts):
   * a claim-shaped checkpoint write and a receive on an empty queue.
   */
  readonly groundMs: { checkpointWrite: Spread; emptyReceive: Spread };
  /** How late the runner's event loop ran its timers (every handler shares it), ms. */
  readonly runnerLoopDelayMs: Spread;
  /** Per owner (0 hot, 1.. quiet), and `quiet` for the quiet owners together: seconds. */
  readonly byOwner: Record<string, { jobs: number; recorded: Spread; firstFinding: Spread; report: Spread }>;
  readonly processes: Record<string, ProcessFigures>;
  readonly dynamoRequestsPerCall: number;
  readonly dynamoByCommand: Record<string, number>;
}

interface Tracked {
  readonly upload: PlannedUpload;
  jobId?: string;
  uploadedAt?: number;
  uploadError?: string;
}

/** Uploads on the schedule, each as its owner; resolves when the last upload is in. */
async function uploadOnSchedule(b: BenchStack, uploads: readonly PlannedUpload[]): Promise<Tracked[]> {
  const started = Date.now();
  const tracked = uploads.map((upload): Tracked => ({ upload }));
  const puts: Promise<void>[] = [];
  for (const t of tracked) {
    await sleep(Math.max(0, started + t.upload.atMs - Date.now()));
    t.uploadedAt = Date.now();
    puts.push(
      uploadAs(b, t.upload.index, t.upload.owner, t.upload.file).then(
        (id) => {
          t.jobId = id;
        },
        (error) => {
          t.uploadError = String(error);
        },
      ),
    );
  }
  await Promise.all(puts);
  return tracked;
}

/** Waits until every job is finalized or rejected, or the bound passes; polls in bulk every 3 s. */
async function waitForEnd(
  b: BenchStack,
  tracked: readonly Tracked[],
  until: number,
  log: (l: string) => void,
) {
  const ids = tracked.flatMap((t) => (t.jobId ? [t.jobId] : []));
  const started = Date.now();
  let lastLog = 0;
  for (;;) {
    const states = await jobStates(b, ids);
    const ended = [...states.values()].filter((s) => s.finalizedAt || s.status === 'rejected').length;
    if (ended === ids.length || Date.now() > until) return;
    if (Date.now() - lastLog > 15_000) {
      lastLog = Date.now();
      log(`  … ${ended}/${ids.length} jobs ended, ${Math.round((Date.now() - started) / 1000)} s`);
    }
    await sleep(3000);
  }
}

const seconds = (values: number[]) => spread(values.map((v) => v / 1000));

/** Every job's facts held to the soak's checks, with the timings each job's checkpoints give. */
async function account(b: BenchStack, tracked: readonly Tracked[]) {
  const at = {
    clients: { db: b.reader, s3: b.stack.clients.s3 },
    resources: b.stack.resources,
    jobs: new Jobs(b.reader, b.stack.resources.tableName),
  };
  const violations: Violation[] = [];
  const statuses: Record<string, number> = {};
  const calls = emptyCallTally();
  const checkpoints = new Map<string, Checkpoint[]>();
  const owners = new Map<string, { jobs: number; recorded: number[]; first: number[]; report: number[] }>();
  let recordedMicros = 0;
  for (const t of tracked) {
    if (!t.jobId || t.uploadedAt === undefined) {
      violations.push({
        jobId: `upload ${t.upload.index}`,
        check: 'upload',
        detail: t.uploadError ?? 'no job',
      });
      continue;
    }
    const f = await factsOf(at, t.jobId, false);
    violations.push(...checkJob(f));
    statuses[f.job?.status ?? 'missing'] = (statuses[f.job?.status ?? 'missing'] ?? 0) + 1;
    recordedMicros += f.job?.costSpent ?? 0;
    const c = f.report?.coverage;
    if (c) {
      addCoverage(calls, c);
    }
    checkpoints.set(t.jobId, [...f.checkpoints]);
    for (const key of [String(t.upload.owner), ...(t.upload.owner === 0 ? [] : ['quiet'])]) {
      const o = owners.get(key) ?? { jobs: 0, recorded: [], first: [], report: [] };
      owners.set(key, o);
      o.jobs++;
      if (f.job?.createdAt) o.recorded.push(Date.parse(f.job.createdAt) - t.uploadedAt);
      const first = firstFindingMs(t.uploadedAt, f.checkpoints);
      if (first !== undefined) o.first.push(first);
      if (f.job?.finalizedAt) o.report.push(Date.parse(f.job.finalizedAt) - t.uploadedAt);
    }
  }
  const byOwner = Object.fromEntries(
    [...owners].map(([k, o]) => [
      k,
      {
        jobs: o.jobs,
        recorded: seconds(o.recorded),
        firstFinding: seconds(o.first),
        report: seconds(o.report),
      },
    ]),
  );
  return { violations, statuses, calls, checkpoints, byOwner, recordedMicros };
}

/** One scenario: the uploads on a fresh stack, to the end of every job, then every figure. */
export async function runScenario(
  o: ThousandOptions,
  uploads: readonly PlannedUpload[],
): Promise<ScenarioResult> {
  const b = await startCrowdStack(o);
  const probe = startGroundProbe(b.stack.awsEndpoint, b.stack.resources.tableName);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  try {
    const cpuBefore = process.cpuUsage();
    const started = Date.now();
    loop.enable();
    const tracked = await uploadOnSchedule(b, uploads);
    o.log(`  ${tracked.length} uploads in ${Math.round((Date.now() - started) / 1000)} s`);
    await waitForEnd(b, tracked, started + o.maxMinutes * 60_000, o.log);
    const wall = (Date.now() - started) / 1000;
    loop.disable();
    const ground = await probe.stop();
    // The figures of the run itself, before the bench's own reads below.
    const requests = [...b.watch.byCommand.values()].reduce((n, x) => n + x, 0);
    const byCommand = Object.fromEntries(b.watch.byCommand);
    const cpu = process.cpuUsage(cpuBefore);
    const processes: Record<string, ProcessFigures> = {
      'runner (intake, realtime workers, finalize, sweeper)': {
        ...processFigures(process.pid),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      },
      'stand-in': processFigures(b.standIn.child.pid ?? -1),
      ...(b.motoPid ? { moto: processFigures(b.motoPid) } : {}),
    };
    const books = await b.standIn.accounting();
    let answered = 0;
    let billed = 0;
    for (const [modelId, byOutcome] of Object.entries(books.byModel)) {
      const ok = byOutcome.success;
      if (!ok) continue;
      answered += ok.calls;
      billed += costOfTotals(modelId, { ...ok, ...books.cache[modelId] });
    }
    const a = await account(b, tracked);
    const violations = runViolations(a.violations, books.successes, billed, a.recordedMicros);
    const { pickups, busy } = pickupsOf(b.deliveries, a.checkpoints);
    const slots =
      b.stack.topology.queues.realtime.maxConcurrency * b.stack.topology.queues.realtime.batchSize;
    return {
      jobs: tracked.length,
      seconds: wall,
      statuses: a.statuses,
      calls: a.calls,
      callsAnswered: answered,
      billedTwice: violations.billedTwice,
      overCeiling: a.violations.filter((v) => v.check === 'ceiling').length,
      billedMicros: billed,
      recordedMicros: a.recordedMicros,
      // The first few named; the count is what matters at this scale.
      violationCount: violations.count,
      violations: violations.named,
      pickupMs: pickupLatency(pickups, busy, slots),
      queueWaitMs: spread(
        b.deliveries.filter((d) => d.receiveCount === 1).map((d) => d.receivedAt - d.sentAt),
      ),
      checkpointWriteMs: spread(b.watch.checkpointWriteMs),
      checkpointTransactionMs: spread(b.watch.checkpointTransactionMs),
      groundMs: {
        checkpointWrite: spread(ground.checkpointWriteMs),
        emptyReceive: spread(ground.emptyReceiveMs),
      },
      runnerLoopDelayMs: {
        n: loop.count,
        p50: loop.percentile(50) / 1e6,
        p95: loop.percentile(95) / 1e6,
        p99: loop.percentile(99) / 1e6,
      },
      byOwner: a.byOwner,
      processes,
      dynamoRequestsPerCall: requests / answered,
      dynamoByCommand: byCommand,
    };
  } finally {
    loop.disable();
    await probe.stop().catch(() => undefined);
    await b.stop();
  }
}

/** The crowd, then one quiet owner's jobs alone; the quiet owners' times in the crowd over alone. */
export async function runThousand(o: ThousandOptions) {
  const contracts = await shortestContracts(o.contracts);
  const files = contracts.map((c) => c.file);
  const meanCalls = contracts.reduce((n, c) => n + c.calls, 0) / contracts.length;
  o.log(
    `thousand: ${contracts.length} contracts of ${contracts.at(0)?.calls}–${contracts.at(-1)?.calls} calls, ${meanCalls.toFixed(0)} on average`,
  );
  const uploads = planUploads(o.jobs, o.owners, o.hotShare, o.uploadSeconds * 1000, files);
  o.log(`== ${o.jobs} jobs, ${o.owners} owners, ${Math.round(o.hotShare * 100)} % from one`);
  const crowd = await runScenario(o, uploads);
  const quietOnly = uploads.filter((u) => u.owner !== 0);
  o.log(`== the nine quiet owners without the hot one: ${quietOnly.length} jobs`);
  const withoutHot = await runScenario(o, quietOnly);
  const alone = uploads.filter((u) => u.owner === 1);
  o.log(`== one quiet owner alone: ${alone.length} jobs`);
  const aloneResult = await runScenario(o, alone);
  const over = (base: ScenarioResult['byOwner'][string] | undefined) => {
    const ratio = (key: 'firstFinding' | 'report', p: 'p50' | 'p95') =>
      (crowd.byOwner.quiet?.[key][p] ?? Number.NaN) / (base?.[key][p] ?? Number.NaN);
    return {
      firstFindingP50: ratio('firstFinding', 'p50'),
      firstFindingP95: ratio('firstFinding', 'p95'),
      reportP50: ratio('report', 'p50'),
      reportP95: ratio('report', 'p95'),
    };
  };
  return {
    options: { ...o, log: undefined },
    contracts: { count: contracts.length, meanCalls, files: files.map((f) => f.split('/').at(-1)) },
    crowd,
    withoutHot,
    alone: aloneResult,
    /** What the hot owner's jobs cost the quiet ones: the quiet owners with it over without it. */
    quietCrowdOverWithoutHot: over(withoutHot.byOwner.quiet),
    /** The quiet owners in the crowd over one quiet owner's jobs alone on the ground. */
    quietCrowdOverAlone: over(aloneResult.byOwner['1']),
  };
}

export type ThousandResult = Awaited<ReturnType<typeof runThousand>>;

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const s3 = (s: Spread, d = 1) => `${f(s.p50, d)} / ${f(s.p95, d)} / ${f(s.p99, d)}`;

function ownerRows(crowd: ScenarioResult, withoutHot: ScenarioResult, alone: ScenarioResult): string[] {
  const rows = [
    '  owner          jobs   recorded by intake p50 / p95 (s)   first finding p50 / p95 (s)   report p50 / p95 (s)',
  ];
  const keys = Object.keys(crowd.byOwner).sort((a, b) =>
    a === 'quiet' ? 1 : b === 'quiet' ? -1 : Number(a) - Number(b),
  );
  const row = (label: string, r: ScenarioResult['byOwner'][string]) =>
    `  ${label.padEnd(14)} ${String(r.jobs).padStart(4)}   ${`${f(r.recorded.p50)} / ${f(r.recorded.p95)}`.padEnd(33)}  ${`${f(r.firstFinding.p50)} / ${f(r.firstFinding.p95)}`.padEnd(28)}  ${f(r.report.p50)} / ${f(r.report.p95)}`;
  for (const k of keys) {
    const r = crowd.byOwner[k];
    if (r) rows.push(row(k === '0' ? 'hot' : k === 'quiet' ? 'quiet (all 9)' : `quiet ${k}`, r));
  }
  const w = withoutHot.byOwner.quiet;
  if (w) rows.push(row('quiet, no hot', w));
  const a = alone.byOwner['1'];
  if (a) rows.push(row('quiet 1 alone', a));
  return rows;
}

export function formatThousand(r: ThousandResult): string {
  const c = r.crowd;
  const q = r.quietCrowdOverAlone;
  const w = r.quietCrowdOverWithoutHot;
  const k = c.calls;
  return [
    `thousand: ${c.jobs} jobs, ${r.options.owners} owners (${Math.round(r.options.hotShare * 100)} % hot), ${r.contracts.count} contracts of ${f(r.contracts.meanCalls, 0)} calls on average; stand-in ${r.options.latencyMs} ms, ${r.options.capacity} in flight; ${r.options.maxJobsPerOwner > 0 ? `at most ${r.options.maxJobsPerOwner} jobs per owner at once` : 'no cap per owner'}`,
    `  wall time                          ${f(c.seconds)} s (quiet owners without the hot one: ${f(r.withoutHot.seconds)} s; one alone: ${f(r.alone.seconds)} s)`,
    `  job status                         ${Object.entries(c.statuses)
      .map(([s, n]) => `${n} ${s}`)
      .join(', ')}`,
    `  calls                              planned ${k.planned} = done ${k.done} + failed ${k.failed} + skipped ${k.skipped} + cancelled ${k.cancelled} + screened ${k.screened} + not run ${k.notRun}; answered ${c.callsAnswered}`,
    `  billed twice                       ${c.billedTwice}`,
    `  spend                              ${c.overCeiling} job(s) over the ceiling; billed ${c.billedMicros} µ$, recorded ${c.recordedMicros} µ$`,
    `  violations (accounts, billing)     ${c.violationCount}${c.violations
      .slice(0, 5)
      .map((v) => `\n    ${v.check}: ${v.jobId}: ${v.detail}`)
      .join('')}`,
    `  pickup with a slot for it          analyze ${s3(c.pickupMs.analyze.withSlot, 0)} ms p50/95/99 (n ${c.pickupMs.analyze.withSlot.n} of ${c.pickupMs.analyze.whole.n}); consolidate ${s3(c.pickupMs.consolidate.withSlot, 0)} ms`,
    `  pickup while a slot was free       analyze ${s3(c.pickupMs.analyze.free, 0)} ms p50/95/99 (n ${c.pickupMs.analyze.free.n}); consolidate ${s3(c.pickupMs.consolidate.free, 0)} ms`,
    `  pickup, ready → claimed            analyze ${s3(c.pickupMs.analyze.whole, 0)} ms (sent → received ${s3(c.queueWaitMs, 0)}); consolidate ${s3(c.pickupMs.consolidate.whole, 0)} ms`,
    `  checkpoint write (ms p50/95/99)    ${s3(c.checkpointWriteMs)} (n ${c.checkpointWriteMs.n}); in a transaction ${s3(c.checkpointTransactionMs)} (n ${c.checkpointTransactionMs.n})`,
    `  the ground alone (ms p50/95/99)    claim-shaped write ${s3(c.groundMs.checkpointWrite)}; empty receive ${s3(c.groundMs.emptyReceive)} (a process of its own, ${c.groundMs.checkpointWrite.n} samples)`,
    `  runner event-loop delay (ms)       ${s3(c.runnerLoopDelayMs)}`,
    ...ownerRows(c, r.withoutHot, r.alone),
    `  quiet with the hot ÷ without it    first finding p50 ${f(w.firstFindingP50, 2)}, p95 ${f(w.firstFindingP95, 2)}; report p50 ${f(w.reportP50, 2)}, p95 ${f(w.reportP95, 2)} (without the hot owner: ${f(r.withoutHot.seconds)} s; ground claim-shaped write p50/95 ${f(r.withoutHot.groundMs.checkpointWrite.p50)} / ${f(r.withoutHot.groundMs.checkpointWrite.p95)} ms)`,
    `  quiet in the crowd ÷ one alone     first finding p50 ${f(q.firstFindingP50, 2)}, p95 ${f(q.firstFindingP95, 2)}; report p50 ${f(q.reportP50, 2)}, p95 ${f(q.reportP95, 2)} (alone: ground write p50/95 ${f(r.alone.groundMs.checkpointWrite.p50)} / ${f(r.alone.groundMs.checkpointWrite.p95)} ms)`,
    ...Object.entries(c.processes).map(
      ([name, p]) => `  ${name.padEnd(34)} peak RSS ${f(p.peakRssMb, 0)} MB, CPU ${f(p.cpuSeconds)} s`,
    ),
    `  DynamoDB requests per model call   ${f(c.dynamoRequestsPerCall, 2)}`,
  ].join('\n');
}

/** The bench's options from the command line over the defaults; a bad number is refused by name. */
export function thousandOptions(argv: readonly string[], log: (line: string) => void): ThousandOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: false,
    options: {
      jobs: { type: 'string' },
      'upload-seconds': { type: 'string' },
      'max-minutes': { type: 'string' },
      'max-jobs-per-owner': { type: 'string' },
    },
  });
  const num = (name: string, raw: unknown, fallback: number, min = 1) => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < min)
      throw new RangeError(`--${name} must be a whole number ≥ ${min}; got '${String(raw)}'`);
    return n;
  };
  return {
    ...THOUSAND_DEFAULTS,
    jobs: num('jobs', values.jobs, THOUSAND_DEFAULTS.jobs),
    uploadSeconds: num('upload-seconds', values['upload-seconds'], THOUSAND_DEFAULTS.uploadSeconds),
    maxMinutes: num('max-minutes', values['max-minutes'], THOUSAND_DEFAULTS.maxMinutes),
    maxJobsPerOwner: num(
      'max-jobs-per-owner',
      values['max-jobs-per-owner'],
      CROWD_DEFAULTS.maxJobsPerOwner,
      0,
    ),
    log,
  };
}

if (process.argv[1] && import.meta.url.endsWith('/thousand.ts') && process.argv[1].endsWith('thousand.ts')) {
  const argv = process.argv.slice(2);
  const result = await runThousand(thousandOptions(argv, (line) => console.error(line)));
  console.log(formatThousand(result));
  console.log(JSON.stringify(result));
}
