import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { BedrockClient } from '@aws-sdk/client-bedrock';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { checkPanelModels } from '../../lambdas/core/analysts/index.js';
import {
  DEFAULT_COST_CEILING_MICROS,
  isLane,
  LANE_CHOICES,
  LANE_CONSUMERS,
  LANES,
  type Lane,
} from '../../lambdas/core/contracts.js';
import { sendFinalize } from '../../lambdas/core/finalize-queue.js';
import { jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { metadataValue } from '../../lambdas/core/intake/job-options.js';
import { checkModels } from '../../lambdas/core/model-lifecycle.js';
import { FALLBACK_MODEL_ID } from '../../lambdas/core/models.js';
import {
  isPlaybookError,
  type JobPlaybook,
  jobPlaybookOf,
  PlaybookStore,
  parsePlaybookRequest,
  playbookRequestText,
} from '../../lambdas/core/playbooks/index.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { type Job, TERMINAL_STATUSES } from '../../lambdas/core/state/job.js';
import { JobHolds } from '../../lambdas/core/state/job-holds.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { type JobProgress, readJobProgress } from '../../lambdas/core/state/progress.js';
import { money } from '../../lambdas/text/money.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { offlineAnalystNotice } from '../../localstack/bedrock/offline-analysts.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { type LocalPipeline, startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { type LocalStack, startLocalStack } from '../../localstack/runtime/local-stack.js';
import { CliError } from './cli-error.js';
import { writeConfined } from './confined-write.js';
import { pause } from './pause.js';
import { readPlaybookFile } from './playbook-commands.js';

function fail(message: string): never {
  throw new CliError(message);
}

function num(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) fail(`--${name} must be a number ≥ ${min}; got '${value}'`);
  return n;
}

/** `review <file...>`: the embedded local stack, start to finish, in this process. */
export async function review(files: string[], values: Record<string, string | undefined>): Promise<number> {
  if (files.length === 0) fail('name at least one contract file to review');
  const lane = values.lane ?? LANES[0];
  if (!isLane(lane)) fail(`--lane must be ${LANE_CHOICES}; got '${lane}'`);
  const budget = num(values.budget, 'budget', DEFAULT_COST_CEILING_MICROS / 1_000_000);
  const faultRate = num(values['fault-rate'], 'fault-rate', 0);
  if (faultRate > 1) fail(`--fault-rate must be between 0 and 1; got ${faultRate}`);
  const workers = num(values.workers, 'workers', 2, 0);
  const concurrency = num(values.concurrency, 'concurrency', 8, 1);
  const latencyMs = num(values['latency-ms'], 'latency-ms', 0);
  const timeoutS = num(values.timeout, 'timeout', 1800, 1);
  const outDir = resolve(values.out ?? 'reports');
  const inputs = files.map((f) => {
    try {
      return { path: f, bytes: readFileSync(f) };
    } catch (error) {
      return fail(`cannot read ${f}: ${(error as Error).message}`);
    }
  });

  // Ctrl-C or a SIGTERM stops the wait, and everything this command started is stopped before
  // it exits; a second signal stops it at once. Without this, Node's default would exit at
  // once and leave moto and the batch workers running.
  const interrupted = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      console.error(`\n${signal} again: stopping now`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    signalled = signal;
    console.error(`\n${signal}: stopping the local stack and every process it started…`);
    interrupted.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await run(
      inputs,
      { lane, budget, faultRate, workers, concurrency, latencyMs, timeoutS, outDir, values },
      interrupted.signal,
      () => signalled,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

interface RunOptions {
  readonly lane: Lane;
  readonly budget: number;
  readonly faultRate: number;
  readonly workers: number;
  readonly concurrency: number;
  readonly latencyMs: number;
  readonly timeoutS: number;
  readonly outDir: string;
  readonly values: Record<string, string | undefined>;
}

/**
 * The folder a document's reports go to inside `--out`: its file name without the extension,
 * with anything but letters, digits, `.`, `_` and `-` replaced and no leading dots, so no name
 * (`...txt`, `../x`) can point outside `--out`; a second document of the same name (in any
 * letter case) gets `-2`.
 *
 * @example reportDirName('/tmp/../Master Agreement.docx', new Set()) // 'Master_Agreement'
 */
export function reportDirName(file: string, used: Set<string>): string {
  const stem = basename(file).replace(/\.[^.]*$/, '');
  const clean =
    stem
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^[.]+/, '')
      .slice(0, 120) || 'document';
  // Compared without case: on macOS and Windows `Lease` and `lease` are one folder.
  let name = clean;
  for (let n = 2; used.has(name.toLowerCase()); n++) name = `${clean}-${n}`;
  used.add(name.toLowerCase());
  return name;
}

/**
 * Refuses `--model` before anything is uploaded, let alone called: a model Bedrock no longer
 * serves (the lifecycle guard, on the stand-in's catalogue), or one without a price.
 */
async function checkModelBeforeUpload(bedrock: BedrockClient, model: string): Promise<void> {
  const [verdict] = await checkModels(bedrock, [model], LOCAL_REGION);
  if (verdict?.level === 'error') fail(`--model: ${verdict.message}`);
  if (verdict?.level === 'warning') console.log(`warning: --model: ${verdict.message}`);
  try {
    checkPanelModels({ primary: model, fallback: FALLBACK_MODEL_ID });
  } catch (error) {
    fail(`--model: ${(error as Error).message}`);
  }
}

/**
 * The playbook `--playbook` names, before anything is uploaded: one the local stack holds
 * (`default`, `nda`; NAME or NAME@VERSION), or a playbook file, validated and put first as an
 * administrator would. Refused with the reason when it is neither.
 */
async function playbookBeforeUpload({ stack, pipeline }: Session, given: string): Promise<JobPlaybook> {
  const store = new PlaybookStore(pipeline.clients.db, stack.resources.tableName);
  try {
    const asFile = /\.(ya?ml|json)$/i.test(given) && existsSync(given);
    const playbook = asFile
      ? jobPlaybookOf((await store.put(readPlaybookFile(given), 'clause-review review')).version)
      : jobPlaybookOf(await store.get(parsePlaybookRequest(given)));
    console.log(
      `reviewing against playbook ${playbookRequestText(playbook)} "${playbook.title}" (sha256 ${playbook.sha256})`,
    );
    return playbook;
  } catch (error) {
    if (isPlaybookError(error)) fail(`--playbook: ${error.message}`);
    throw error;
  }
}

/** The local stack and pipeline of one `review` run, and the jobs table they write. */
interface Session {
  readonly stack: LocalStack;
  readonly pipeline: LocalPipeline;
  readonly jobs: Jobs;
}

/** A document uploaded, and the job its upload makes. */
interface Submitted {
  readonly file: string;
  readonly jobId: string;
}

async function run(
  inputs: { path: string; bytes: Buffer }[],
  o: RunOptions,
  interrupted: AbortSignal,
  signalled: () => NodeJS.Signals | undefined,
): Promise<number> {
  const session = await startSession(o);
  try {
    const model = o.values.model?.trim();
    if (model) await checkModelBeforeUpload(session.pipeline.clients.bedrockControl, model);
    const playbook = o.values.playbook ? await playbookBeforeUpload(session, o.values.playbook) : undefined;
    const submitted: Submitted[] = [];
    for (const input of inputs) submitted.push(await upload(session, input, o, model, playbook));
    const finished = await watch(session, submitted, Date.now() + o.timeoutS * 1000, interrupted);
    if (interrupted.aborted) {
      console.log(
        `\nstopped by ${signalled()}: no report was written. Jobs still running were stopped with the local stack:`,
      );
      for (const s of submitted) {
        const job = finished.get(s.jobId) ?? (await session.jobs.find(s.jobId));
        console.log(`  ${basename(s.file)} (job ${s.jobId}): ${job?.status ?? 'not started'}`);
      }
      return signalled() === 'SIGTERM' ? 143 : 130;
    }
    return await writeResults(session, submitted, finished, o);
  } finally {
    await session.pipeline.stop();
    await session.stack.stop();
  }
}

/** Starts moto, the Bedrock stand-in (with the run's latency and faults) and the pipeline. */
async function startSession(o: RunOptions): Promise<Session> {
  console.log('starting the local stack (moto + Bedrock stand-in)…');
  const { faultRate } = o;
  const stack = await startLocalStack({
    seed: num(o.values.seed, 'seed', 1),
    plan: {
      latency: { kind: 'fixed', ms: o.latencyMs },
      errorRates: {
        ThrottlingException: faultRate / 2,
        ServiceUnavailableException: faultRate / 4,
        InternalServerException: faultRate / 4,
      },
    },
    log: (line) => console.log(line),
  });
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: stack.bedrock.url,
    topology: stack.topology,
    resources: stack.resources,
    settings: { ...LOCAL_RUN_DEFAULTS, callConcurrency: o.concurrency, defaultLane: o.lane },
    batchWorkers: LANE_CONSUMERS[o.lane] === 'poller' ? Math.max(1, o.workers) : o.workers,
    notice: offlineAnalystNotice(),
    log: (line) => console.error(line),
  });
  return { stack, pipeline, jobs: new Jobs(pipeline.clients.db, stack.resources.tableName) };
}

/** Uploads one document to the intake bucket with the run's lane, ceiling, model and playbook. */
async function upload(
  { stack, pipeline }: Session,
  input: { path: string; bytes: Buffer },
  o: RunOptions,
  model: string | undefined,
  playbook: JobPlaybook | undefined,
): Promise<Submitted> {
  const key = `${stack.resources.intakePrefix}${basename(input.path)}`;
  const put = await pipeline.clients.s3.send(
    new PutObjectCommand({
      Bucket: stack.resources.intakeBucket,
      Key: key,
      Body: input.bytes,
      Metadata: {
        lane: o.lane,
        'cost-ceiling-usd': String(o.budget),
        ...(model ? { model } : {}),
        ...(playbook ? { playbook: playbookRequestText(playbook) } : {}),
        ...(o.values['contract-type'] ? { 'contract-type': o.values['contract-type'] } : {}),
        ...(o.values.party ? { party: metadataValue(o.values.party) } : {}),
        ...(o.values['all-analysts'] ? { 'all-analysts': 'true' } : {}),
        ...(o.values['full-panel'] ? { 'full-panel': 'true' } : {}),
        ...(o.values['allow-partial'] ? { 'allow-partial': 'true' } : {}),
      },
    }),
  );
  const jobId = jobIdOfPut(stack.resources.intakeBucket, key, put);
  console.log(`uploaded ${input.path} → s3://${stack.resources.intakeBucket}/${key} (job ${jobId})`);
  return { file: input.path, jobId };
}

/**
 * Prints a progress line whenever anything moved (and at least every 30 s) until every job
 * ended, the deadline passed or the run was interrupted. Returns the jobs that ended.
 */
async function watch(
  session: Session,
  submitted: readonly Submitted[],
  deadline: number,
  interrupted: AbortSignal,
): Promise<Map<string, Job>> {
  const finished = new Map<string, Job>();
  const quoted = new Set<string>();
  let lastLine = '';
  let lastPrinted = 0;
  while (finished.size < submitted.length && Date.now() < deadline && !interrupted.aborted) {
    await pause(1000, interrupted);
    if (interrupted.aborted) break;
    const lines: string[] = [];
    for (const s of submitted) lines.push(await progressOf(session, s, finished, quoted));
    const acct = session.stack.bedrock.accounting();
    const calls = acct.totals.calls;
    const ok = Object.values(acct.byModel).reduce((n, m) => n + (m.success?.calls ?? 0), 0);
    lines.push(`model requests: ${calls} sent, ${ok} answered, ${calls - ok} refused or failed`);
    const line = lines.join(' | ');
    if (line !== lastLine || Date.now() - lastPrinted > 30_000) {
      console.log(line);
      lastLine = line;
      lastPrinted = Date.now();
    }
  }
  return finished;
}

/**
 * A job the playbook's escalations hold for approvers: on the embedded stack nobody signs in to
 * decide them, so its review closes at once, as a review past its deadline does, and the report
 * marks them unreviewed. `clause-review local up` keeps the stack for people to decide them.
 */
async function closeUnattendedReview({ pipeline, stack }: Session, s: Submitted, job: Job): Promise<void> {
  const { db, sqs } = pipeline.clients;
  if (!(await new JobHolds(db, stack.resources.tableName).closeReview(job.jobId, 'expired'))) return;
  await sendFinalize({ sqs, finalizeQueueUrl: stack.resources.queueUrls.finalize }, job.jobId);
  const groups = job.approverGroups?.length ? ` (${job.approverGroups.join(', ')})` : '';
  console.log(
    `${basename(s.file)}: ${job.gatedFindings ?? 0} finding(s) wait for approvers${groups}; nobody decides on the embedded stack, so the report marks them unreviewed. 'clause-review local up' keeps a stack where people decide them in the reviewer app.`,
  );
}

/**
 * One document's part of the progress line; notes a job that ended in `finished` and prints
 * its quote once. Chunks account what they spend to the job when they take more or end, so
 * while they run the job shows what they hold (their calls' worst cases) besides what is
 * accounted.
 */
async function progressOf(
  { jobs, pipeline, stack }: Session,
  s: Submitted,
  finished: Map<string, Job>,
  quoted: Set<string>,
): Promise<string> {
  const job = await jobs.find(s.jobId);
  if (!job) return `${basename(s.file)}: waiting for intake`;
  if (job.status === 'rejected' || job.finalizedAt) finished.set(s.jobId, job);
  if (job.status === 'awaiting_review' && !job.reviewCompletedAt && !job.reviewExpiredAt) {
    await closeUnattendedReview({ jobs, pipeline, stack }, s, job);
  }
  if (job.quote && !quoted.has(s.jobId)) {
    quoted.add(s.jobId);
    const saved = job.quote.notAsked;
    const screened = job.quote.screened;
    console.log(
      `${basename(s.file)}: quote ${money(job.quote.expectedMicros)} expected, ${money(job.quote.worstCaseMicros)} at worst, ceiling ${money(job.costLimit)} (${job.callsPlanned - (screened?.calls ?? 0)} calls` +
        `${screened ? `; the relevance screen saves ${screened.calls} calls, ${money(screened.expectedMicros)} expected` : ''}` +
        `${saved ? `; the playbook saves ${saved.calls} calls, ${money(saved.expectedMicros)} expected` : ''})` +
        `${job.quote.compute ? `; compute besides: ${money(job.quote.compute.realtime)} on Lambda (realtime), ${money(job.quote.compute.batch)} on Fargate (batch)` : ''}`,
    );
  }
  const p = await readJobProgress(pipeline.clients.db, stack.resources.tableName, s.jobId);
  return documentLine(s.file, job, p?.calls);
}

/**
 * One document's progress as the review prints it. A job intake has recorded but not yet
 * planned (no chunks) says so, rather than counting calls of a plan that is not there yet.
 */
export function documentLine(file: string, job: Job, c: JobProgress['calls'] | undefined): string {
  const name = basename(file).slice(0, 40);
  if (job.status === 'intake' && job.chunkCount === 0)
    return `${name}: intake · reading and planning the document`;
  return `${name}: ${job.status} · chunks ${job.chunksTerminal}/${job.chunkCount} · calls ${c ? `${c.done} done, ${c.failed} failed, ${c.skipped} skipped, ${c.cancelled} cancelled, ${c.screened} screened of ${c.planned}` : '-'} · cost ${money(job.costSpent)} accounted${job.costReserved > 0 ? ` + ${money(job.costReserved)} held by running chunks` : ''} of ${money(job.costLimit)}`;
}

const RESULT_HEADER = [
  'document',
  'status',
  'clauses',
  'calls done/planned',
  'failed / skipped / cancelled / screened',
  'high+crit',
  'cost',
  'report',
];

/**
 * Writes the reports of the jobs that ended under `--out`, prints the results table, says
 * which jobs were still running at the timeout, and returns the exit code: 0 only when every
 * job completed.
 */
async function writeResults(
  session: Session,
  submitted: readonly Submitted[],
  finished: Map<string, Job>,
  o: RunOptions,
): Promise<number> {
  mkdirSync(o.outDir, { recursive: true });
  console.log('\nresults');
  let exitCode = 0;
  let written = 0;
  const unfinished: string[] = [];
  const used = new Set<string>();
  const rows: string[][] = [RESULT_HEADER];
  for (const s of submitted) {
    const job = finished.get(s.jobId) ?? (await session.jobs.find(s.jobId));
    const name = basename(s.file);
    if (!job || !TERMINAL_STATUSES.includes(job.status) || (!job.finalizedAt && job.status !== 'rejected')) {
      rows.push([name, job?.status ?? 'not started', '-', '-', '-', '-', '-', 'timed out']);
      unfinished.push(
        `  ${name} (job ${s.jobId}): ${job?.status ?? 'not started'}, chunks ${job?.chunksTerminal ?? 0}/${job?.chunkCount ?? '?'}`,
      );
      exitCode = 1;
    } else if (job.status === 'rejected') {
      rows.push([name, 'rejected', '-', '-', '-', '-', '-', job.reason ?? '']);
      exitCode = 1;
    } else {
      const { row, completed } = await writeReport(session, s, job, o.outDir, used);
      rows.push(row);
      written++;
      if (!completed) exitCode = 1;
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  for (const r of rows) console.log(r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
  if (written > 0) {
    console.log(
      `\n${written} report(s) written under ${o.outDir} (report.json, report.html and report.docx per document)`,
    );
  } else console.log('\nno report was written');
  if (unfinished.length > 0) {
    console.log(
      `\ntimed out after ${o.timeoutS} s; these jobs were still running, and stop with the local stack:\n${unfinished.join('\n')}\nRun again with a longer --timeout (seconds) to let them finish.`,
    );
  }
  return exitCode;
}

/** Copies one finalized job's report.json, report.html and report.docx under `outDir`; its results row. */
async function writeReport(
  { pipeline, stack }: Session,
  s: Submitted,
  job: Job,
  outDir: string,
  used: Set<string>,
): Promise<{ row: string[]; completed: boolean }> {
  const get = async (key: string) =>
    (
      await pipeline.clients.s3.send(
        new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: key }),
      )
    ).Body?.transformToString() ?? '';
  const json = await get(job.reportKey ?? '');
  const docx = job.docxReportKey
    ? await (
        await pipeline.clients.s3.send(
          new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: job.docxReportKey }),
        )
      ).Body?.transformToByteArray()
    : undefined;
  const [, htmlPath] = writeConfined(outDir, reportDirName(s.file, used), {
    'report.json': json,
    'report.html': await get(job.htmlReportKey ?? ''),
    ...(docx ? { 'report.docx': docx } : {}),
  });
  const report = JSON.parse(json) as Report;
  const c = report.coverage;
  return {
    row: [
      basename(s.file).slice(0, 40),
      report.job.status,
      String(report.summary.clauses),
      `${c.callsDone}/${c.callsPlanned}`,
      `${c.callsFailed} / ${c.callsSkippedBudget} / ${c.callsCancelled} / ${c.callsScreened}`,
      String(report.summary.riskCounts.high + report.summary.riskCounts.critical),
      `${money(report.cost.spentMicros)} / ${money(report.cost.ceilingMicros)}`,
      htmlPath ?? '',
    ],
    completed: report.job.status === 'completed',
  };
}
