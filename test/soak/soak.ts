/**
 * The chaos soak: many jobs at once on the local stack under model faults, killed workers,
 * dying invocations, duplicate deliveries, cancels, pauses, tight ceilings and review gates,
 * with the sweeper and DLQ triage running as deployed. At the end every job is held to the
 * pipeline's promises (checks.ts) and the stand-in's books to "billed once" and "never over
 * what was recorded".
 *
 *   npm run soak -- [--jobs 40] [--minutes 8] [--seed 1] [--concurrency 8] [--json]
 *
 * Contracts come from ../shared/corpus when it is there, else test/fixtures. Each job gets its
 * own title line, so its questions are its own in the stand-in's fingerprints. `--seed` replays
 * a run's choices (which contract, lane, options and actions per job, and when the faults
 * come); timing on a loaded machine still varies between runs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { LANES, type Lane } from '../../lambdas/core/contracts.js';
import type { Report } from '../../lambdas/core/finalize/report-types.js';
import { cancelJob, type HoldDeps, pauseJob, resumeJob } from '../../lambdas/core/holds/pause.js';
import { decide } from '../../lambdas/core/holds/review.js';
import { jobIdFor } from '../../lambdas/core/intake/intake.js';
import { readStoredDocument } from '../../lambdas/core/intake/stored-document.js';
import { costOf } from '../../lambdas/core/models.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { type Job, Jobs } from '../../lambdas/core/state/jobs.js';
import type { FaultPlan } from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { startLocalStack } from '../../localstack/runtime/local-stack.js';
import { countConflicts } from '../helpers/conflict-counter.js';
import { seededRandom } from '../helpers/random.js';
import { Chaos } from './chaos.js';
import { checkJob, checkRepeats, checkSpend, type JobFacts, p99, type Violation } from './checks.js';

/** The model faults of the stand-in's plan: every kind, at rates a long contract meets many times. */
export const SOAK_FAULTS: Partial<FaultPlan> = {
  errorRates: {
    ThrottlingException: 0.02,
    ServiceUnavailableException: 0.01,
    InternalServerException: 0.01,
    ModelTimeoutException: 0.005,
    ModelNotReadyException: 0.003,
    ModelErrorException: 0.002,
    ValidationException: 0.001,
  },
  malformed: { invalidJson: 0.01, schemaViolation: 0.01, badQuote: 0.005 },
  // Hangs past the model timeout (4 s here): the call is aborted and made again.
  hang: { probability: 0.002, ms: 6000 },
  latency: { kind: 'fixed', ms: 25 },
  capacity: { maxInFlight: 48 },
};

/** What one job of the run gets: its contract, options and the actions taken on it. */
export interface JobPlan {
  readonly index: number;
  readonly file: string;
  readonly lane: 'realtime' | 'batch';
  /** A few analysts, or the whole panel. */
  readonly analysts?: readonly string[];
  /** A ceiling far below the job's need, with allow-partial. */
  readonly tightCeilingUsd?: number;
  readonly gate?: 'high';
  /** Milliseconds after the upload. */
  readonly cancelAfterMs?: number;
  readonly pauseAfterMs?: number;
  readonly pauseForMs?: number;
  readonly resendEvent: boolean;
}

const FEW_ANALYSTS = ['liability-counsel', 'term-lifecycle', 'ip-counsel'];

/** The contracts a run draws from: the corpus when present (up to 60 KB each), else the fixtures. */
export function soakContracts(): string[] {
  const corpus = join(PROJECT_ROOT, '..', 'shared', 'corpus', 'contracts');
  const dir = existsSync(corpus) ? corpus : join(PROJECT_ROOT, 'test', 'fixtures', 'contracts');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).size <= 60_000)
    .sort();
}

/** Every job's plan, drawn from the seed. */
export function planJobs(count: number, files: readonly string[], random: () => number): JobPlan[] {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)] as T;
  return Array.from({ length: count }, (_, index) => {
    const draw = random();
    const action = random();
    return {
      index,
      file: pick(files),
      lane: random() < 0.35 ? 'batch' : 'realtime',
      ...(random() < 0.6 ? { analysts: FEW_ANALYSTS } : {}),
      ...(draw < 0.1 ? { tightCeilingUsd: 0.01 + random() * 0.04 } : {}),
      ...(draw >= 0.1 && draw < 0.18 ? { gate: 'high' as const } : {}),
      ...(action < 0.1 ? { cancelAfterMs: 300 + Math.floor(random() * 4000) } : {}),
      ...(action >= 0.1 && action < 0.2
        ? { pauseAfterMs: 300 + Math.floor(random() * 3000), pauseForMs: 500 + Math.floor(random() * 3000) }
        : {}),
      resendEvent: random() < 0.1,
    };
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Options {
  readonly jobs: number;
  readonly minutes: number;
  readonly seed: number;
  readonly concurrency: number;
  readonly json: boolean;
}

function options(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: 'string' },
      minutes: { type: 'string' },
      seed: { type: 'string' },
      concurrency: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const num = (name: string, raw: string | undefined, fallback: number, min: number) => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(n) || n < min)
      throw new Error(`--${name} must be a number of at least ${min}; got '${raw}'`);
    return n;
  };
  return {
    jobs: num('jobs', values.jobs, 40, 1),
    minutes: num('minutes', values.minutes, 8, 0.5),
    seed: num('seed', values.seed, 1, 0),
    concurrency: num('concurrency', values.concurrency, 8, 1),
    json: values.json ?? false,
  };
}

/** One job as the run saw it. */
interface Tracked {
  readonly plan: JobPlan;
  jobId?: string;
  uploadedAt?: number;
  endedAt?: number;
  cancelled: boolean;
  paused: boolean;
  actionErrors: string[];
}

export async function runSoak(o: Options) {
  const random = seededRandom(o.seed);
  const files = soakContracts();
  const plans = planJobs(o.jobs, files, random);
  const deadline = Date.now() + o.minutes * 60_000;
  // Progress goes to stderr, so that --json leaves stdout to the summary alone.
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const pipelineLog: string[] = [];
  const stack = await startLocalStack({ prefix: `soak${o.seed}`, seed: o.seed, plan: SOAK_FAULTS });
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: stack.bedrock.url,
    topology: stack.topology,
    resources: stack.resources,
    settings: {
      ...LOCAL_RUN_DEFAULTS,
      leaseSeconds: 8,
      modelTimeoutMs: 4000,
      redeliveryBackoffSeconds: [1, 2, 3],
    },
    batchWorkers: 2,
    sweepIntervalMs: 1000,
    sweepRules: {
      quietMs: Object.fromEntries(LANES.map((lane) => [lane, 25_000])) as Record<Lane, number>,
      finalizeQuietMs: 15_000,
    },
    log: (line) => {
      if (pipelineLog.length < 2000) pipelineLog.push(line);
    },
  });
  const conflicts = countConflicts(pipeline.clients.db);
  const r = stack.resources;
  const holdDeps: HoldDeps = {
    db: pipeline.clients.db,
    s3: pipeline.clients.s3,
    sqs: pipeline.clients.sqs,
    tableName: r.tableName,
    resultsBucket: r.resultsBucket,
    laneQueueUrls: r.queueUrls,
    finalizeQueueUrl: r.queueUrls.finalize,
  };
  const chaos = new Chaos(
    pipeline,
    r,
    {
      db: pipeline.clients.db,
      sqs: pipeline.clients.sqs,
      sns: stack.clients.sns,
      tableName: r.tableName,
      alertsTopicArn: r.alertsTopicArn,
      queueUrls: r.queueUrls,
      dlqUrls: r.dlqUrls,
      dlqArns: r.dlqArns,
    },
    random,
  );
  const jobs = new Jobs(pipeline.clients.db, r.tableName);
  const tracked: Tracked[] = plans.map((plan) => ({
    plan,
    cancelled: false,
    paused: false,
    actionErrors: [],
  }));
  const started = Date.now();

  const runJob = async (t: Tracked) => {
    const { plan } = t;
    const name = basename(plan.file);
    // Its own title: every question of this job is its own in the stand-in's books.
    const body = `SOAK COPY ${String(plan.index).padStart(4, '0')} OF ${name.slice(0, 60).toUpperCase()}\n\n${readFileSync(plan.file, 'utf8')}`;
    const key = `${r.intakePrefix}soak-${plan.index}-${name}`;
    const metadata: Record<string, string> = { lane: plan.lane, 'cost-ceiling-usd': '50' };
    if (plan.analysts) metadata.analysts = plan.analysts.join(',');
    if (plan.tightCeilingUsd) {
      metadata['cost-ceiling-usd'] = plan.tightCeilingUsd.toFixed(4);
      metadata['allow-partial'] = 'true';
    }
    if (plan.gate) metadata.gate = plan.gate;
    const put = await pipeline.clients.s3.send(
      new PutObjectCommand({ Bucket: r.intakeBucket, Key: key, Body: body, Metadata: metadata }),
    );
    t.uploadedAt = Date.now();
    const jobId = jobIdFor({
      bucket: r.intakeBucket,
      key,
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
      ...(put.ETag ? { etag: put.ETag } : {}),
    });
    t.jobId = jobId;
    const upload = {
      key,
      size: Buffer.byteLength(body),
      ...(put.VersionId ? { versionId: put.VersionId } : {}),
      ...(put.ETag ? { etag: put.ETag } : {}),
    };
    // A person acts on a job they can see: intake has recorded it.
    const recorded = (async () => {
      for (const until = Date.now() + 60_000; Date.now() < until; await sleep(100)) {
        if (await jobs.find(jobId)) return;
      }
    })();
    const act = async (what: string, run: () => Promise<unknown>) => {
      await recorded;
      try {
        await run();
      } catch (error) {
        // A pause or cancel refused because the job already ended is expected; record the rest.
        const message = String(error);
        if (
          !/already ended|only a running job|not paused|is (completed|incomplete|budget_exceeded|rejected|cancelled)/.test(
            message,
          )
        ) {
          t.actionErrors.push(`${what}: ${message}`);
        }
      }
    };
    const actions: Promise<void>[] = [];
    if (plan.resendEvent)
      actions.push(sleep(200).then(() => act('resend event', () => chaos.duplicateEvent(upload))));
    if (plan.cancelAfterMs !== undefined) {
      actions.push(
        sleep(plan.cancelAfterMs).then(() =>
          act('cancel', async () => {
            if ((await cancelJob(jobId, 'cancelled by the soak', holdDeps)).cancelled) t.cancelled = true;
          }),
        ),
      );
    }
    if (plan.pauseAfterMs !== undefined) {
      actions.push(
        sleep(plan.pauseAfterMs).then(() =>
          act('pause', async () => {
            await pauseJob(jobId, 'soak', holdDeps);
            t.paused = true;
            await sleep(plan.pauseForMs ?? 1000);
            await resumeJob(jobId, holdDeps);
          }),
        ),
      );
    }
    for (;;) {
      const job = await jobs.find(jobId);
      if (job?.finalizedAt || job?.status === 'rejected') break;
      if (job?.status === 'awaiting_review' && !job.reviewCompletedAt && !job.reviewExpiredAt) {
        await act('decide', () =>
          decide(
            job,
            { findings: 'all-undecided', verdict: 'approve', note: 'soak' },
            'arn:aws:iam::000000000000:user/soak-reviewer',
            { ...holdDeps, resultsPrefix: r.resultsPrefix },
          ),
        );
      }
      if (Date.now() > deadline) break;
      await sleep(400);
    }
    await Promise.all(actions);
    t.endedAt = Date.now();
  };

  // Jobs start `concurrency` at a time; the chaos runs beside them until the last has ended.
  let next = 0;
  let ended = 0;
  const lanes = Array.from({ length: Math.min(o.concurrency, plans.length) }, async () => {
    for (;;) {
      const t = tracked[next++];
      if (!t || Date.now() > deadline) return;
      await runJob(t).catch((error) => t.actionErrors.push(`run: ${String(error)}`));
      ended++;
    }
  });
  let chaosOn = true;
  const chaosLoop = (async () => {
    let lastLog = 0;
    while (chaosOn) {
      await sleep(1000 + Math.floor(random() * 1000));
      const running = (
        await Promise.all(
          tracked.filter((t) => t.jobId && !t.endedAt).map((t) => jobs.find(t.jobId as string)),
        )
      ).filter((j): j is Job => j?.status === 'running');
      const victim = running[Math.floor(random() * running.length)];
      const draw = random();
      try {
        chaos.replaceCrashedWorkers();
        if (draw < 0.12) chaos.killBatchWorker();
        else if (draw < 0.3 && victim) chaos.dyingInvocation(victim);
        else if (draw < 0.5 && victim) await chaos.duplicateChunk(victim);
        if (random() < 0.25) await chaos.triage();
      } catch (error) {
        pipelineLog.push(`chaos: ${String(error)}`);
      }
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        log(`  … ${ended}/${plans.length} jobs ended, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    }
  })();
  await Promise.all(lanes);
  chaosOn = false;
  await chaosLoop;
  await chaos.settle();
  // Messages still in flight (duplicates meeting held leases) end acked or dead-lettered; then
  // what is in a DLQ gets one last triage, as the schedule would.
  const quiet = await chaos.quiesce();
  await chaos.triage();
  const wallSeconds = (Date.now() - started) / 1000;

  // The checks.
  const violations: Violation[] = [];
  const ledger = new CallLedger(pipeline.clients.db, r.tableName);
  const claims = new Claims(pipeline.clients.db, r.tableName);
  const endStates: Record<string, number> = {};
  const calls = { planned: 0, done: 0, failed: 0, skipped: 0, cancelled: 0, notRun: 0 };
  let redeliveries = 0;
  let recordedMicros = 0;
  const uploadToReport: number[] = [];
  for (const t of tracked) {
    if (!t.jobId) {
      violations.push({
        jobId: `plan ${t.plan.index}`,
        check: 'terminal',
        detail: 'never started within the time bound',
      });
      continue;
    }
    for (const e of t.actionErrors) violations.push({ jobId: t.jobId, check: 'action', detail: e });
    const job = await jobs.find(t.jobId);
    let report: Report | undefined;
    if (job?.reportKey) {
      const o2 = await pipeline.clients.s3.send(
        new GetObjectCommand({ Bucket: r.resultsBucket, Key: job.reportKey }),
      );
      report = JSON.parse((await o2.Body?.transformToString()) ?? '{}') as Report;
    }
    const doc =
      job && job.status !== 'rejected'
        ? await readStoredDocument(pipeline.clients.s3, r.resultsBucket, t.jobId).catch(() => undefined)
        : undefined;
    const facts: JobFacts = {
      jobId: t.jobId,
      job,
      ...(report ? { report } : {}),
      ...(doc ? { doc } : {}),
      checkpoints: job ? await claims.list(t.jobId) : [],
      ledger: job ? await ledger.forJob(t.jobId) : [],
      cancelled: t.cancelled,
    };
    violations.push(...checkJob(facts));
    const state = job?.status ?? 'missing';
    endStates[state] = (endStates[state] ?? 0) + 1;
    recordedMicros += job?.costSpent ?? 0;
    if (report) {
      const c = report.coverage;
      calls.planned += c.callsPlanned;
      calls.done += c.callsDone;
      calls.failed += c.callsFailed;
      calls.skipped += c.callsSkippedBudget;
      calls.cancelled += c.callsCancelled;
      calls.notRun += c.callsNotRun;
      redeliveries += c.redeliveries;
      if (job?.finalizedAt && t.uploadedAt) uploadToReport.push(Date.parse(job.finalizedAt) - t.uploadedAt);
    }
  }
  const books = stack.bedrock.accounting();
  let billedMicros = 0;
  for (const [modelId, byOutcome] of Object.entries(books.byModel)) {
    const ok = byOutcome.success;
    if (ok) billedMicros += costOf(modelId, { ...ok, ...books.cache[modelId] });
  }
  // A worker's death can lose the answers of the calls it had in flight: at most its chunks'
  // concurrency each (a batch worker runs 2 chunks at once).
  const callConcurrency = LOCAL_RUN_DEFAULTS.callConcurrency;
  const bound = (chaos.tally.workerKills * 2 + chaos.tally.dyingInvocations) * callConcurrency;
  const repeats = checkRepeats(books.successes, bound);
  violations.push(...repeats.violations, ...checkSpend(billedMicros, recordedMicros));
  if (!quiet)
    violations.push({
      jobId: '*',
      check: 'triaged',
      detail: 'work messages still in flight 2 min after the last job ended',
    });
  for (const crash of chaos.tally.workerCrashes) {
    violations.push({
      jobId: '*',
      check: 'worker-exit',
      detail: `a batch worker ended on its own: ${crash}`,
    });
  }
  const dlqLeft = await chaos.triage();
  if (dlqLeft.seen > 0) {
    violations.push({
      jobId: '*',
      check: 'triaged',
      detail: `${dlqLeft.seen} dead letter(s) left after the last triage`,
    });
  }

  const summary = {
    seed: o.seed,
    jobs: plans.length,
    minutes: o.minutes,
    wallSeconds: Math.round(wallSeconds),
    violations: violations.length,
    endStates,
    calls,
    modelRequests: books.totals.calls,
    redeliveries,
    deadLetters: chaos.tally.deadLetters,
    conflicts: conflicts.count,
    chaos: {
      workerKills: chaos.tally.workerKills,
      workerCrashes: chaos.tally.workerCrashes.length,
      dyingInvocations: chaos.tally.dyingInvocations,
      duplicateChunks: chaos.tally.duplicateChunks,
      duplicateEvents: chaos.tally.duplicateEvents,
      cancels: tracked.filter((t) => t.cancelled).length,
      pauses: tracked.filter((t) => t.paused).length,
      tightCeilings: plans.filter((p) => p.tightCeilingUsd).length,
      gated: plans.filter((p) => p.gate).length,
      triageRuns: chaos.tally.triageRuns,
    },
    callsRemadeAfterDeath: repeats.repeated,
    callsRemadeBound: bound,
    billedMicros,
    recordedMicros,
    uploadToReportP99Seconds: Math.round(p99(uploadToReport) / 100) / 10,
    violationList: violations.slice(0, 200).map((v) => ({ ...v, seed: o.seed })),
  };
  await pipeline.stop();
  await stack.stop();
  return summary;
}

function printTable(s: Awaited<ReturnType<typeof runSoak>>): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`soak seed ${s.seed}: ${s.jobs} jobs in ${s.wallSeconds} s (bound ${s.minutes} min)`);
  out(
    `  end states        ${Object.entries(s.endStates)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  out(
    `  calls             planned ${s.calls.planned}: done ${s.calls.done}, failed ${s.calls.failed}, skipped ${s.calls.skipped}, cancelled ${s.calls.cancelled}, not run ${s.calls.notRun}; ${s.modelRequests} model requests`,
  );
  out(`  redeliveries      ${s.redeliveries}`);
  out(
    `  dead letters      ${
      Object.entries(s.deadLetters)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
  );
  out(`  conflicts         ${s.conflicts}`);
  out(
    `  chaos             ${Object.entries(s.chaos)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  out(`  re-made on death  ${s.callsRemadeAfterDeath} (bound ${s.callsRemadeBound})`);
  out(`  spend             billed ${s.billedMicros} µ$ ≤ recorded ${s.recordedMicros} µ$`);
  out(`  upload → report   p99 ${s.uploadToReportP99Seconds} s`);
  out(`  violations        ${s.violations}`);
  for (const v of s.violationList.slice(0, 40)) {
    out(
      `    ${v.check}: job ${v.jobId}${v.chunk !== undefined ? ` chunk ${v.chunk}` : ''}: ${v.detail} (seed ${v.seed})`,
    );
  }
}

const isMain = process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]));
if (isMain) {
  const o = options(process.argv.slice(2));
  const summary = await runSoak(o);
  if (o.json) process.stdout.write(`${JSON.stringify(summary, null, 1)}\n`);
  else printTable(summary);
  process.exitCode = summary.violations > 0 ? 1 : 0;
}
