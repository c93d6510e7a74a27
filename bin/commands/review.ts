import { existsSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { BedrockClient } from '@aws-sdk/client-bedrock';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { checkPanelModels } from '../../lambdas/core/analysts/index.js';
import { jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { submissionMetadata } from '../../lambdas/core/jobs/index.js';
import { DEFAULT_CEILING_MICROS, isLane, LANE_CHOICES, LANES } from '../../lambdas/core/lanes-and-limits.js';
import { FALLBACK_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { checkModels } from '../../lambdas/core/model-lifecycle.js';
import {
  isPlaybookError,
  type JobPlaybook,
  jobPlaybookOf,
  parsePlaybookRequest,
  playbookRequestText,
} from '../../lambdas/core/playbooks/index.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { type JobProgress, readJobProgress } from '../../lambdas/core/state/progress.js';
import { money } from '../../lambdas/text/money.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { ceilingFlag } from './ceiling-flag.js';
import { CliError } from './cli-error.js';
import { pause } from './pause.js';
import { readPlaybookFile } from './playbook-commands.js';
import { writeResults } from './review-results.js';
import { againstBeforeUpload, closeHeldReview } from './review-round.js';
import { type RunOptions, type Session, type Submitted, startSession } from './review-session.js';

export { reportDirName } from './review-results.js';

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
  const ceiling = ceilingFlag(values);
  const ceilingUsd = num(ceiling.given, ceiling.flag, DEFAULT_CEILING_MICROS / 1_000_000);
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
    const seed = num(values.seed, 'seed', 1);
    return await run(
      inputs,
      { lane, ceilingUsd, faultRate, workers, concurrency, latencyMs, seed, timeoutS, outDir, values },
      interrupted.signal,
      () => signalled,
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
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
async function playbookBeforeUpload({ stores }: Session, given: string): Promise<JobPlaybook> {
  const store = stores.playbooks;
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
    const against = o.values.against ? await againstBeforeUpload(session, o.values.against) : undefined;
    const submitted: Submitted[] = [];
    for (const input of inputs) submitted.push(await upload(session, input, o, { model, playbook, against }));
    const finished = await watch(session, submitted, Date.now() + o.timeoutS * 1000, interrupted);
    if (interrupted.aborted) {
      console.log(
        `\nstopped by ${signalled()}: no report was written. Jobs still running were stopped with the local stack:`,
      );
      for (const s of submitted) {
        const job = finished.get(s.jobId) ?? (await session.stores.jobs.find(s.jobId));
        console.log(`  ${basename(s.file)} (job ${s.jobId}): ${job?.status ?? 'not started'}`);
      }
      return signalled() === 'SIGTERM' ? 143 : 130;
    }
    return await writeResults(session, submitted, finished, o);
  } finally {
    await session.stop();
  }
}

/** What every upload of the run carries besides the run's lane and ceiling. */
interface UploadWith {
  readonly model: string | undefined;
  readonly playbook: JobPlaybook | undefined;
  /** The version the documents answer (`against` metadata). */
  readonly against: string | undefined;
}

/** Uploads one document to the intake bucket with the run's lane, ceiling, model, playbook and version answered. */
async function upload(
  { stack, pipeline }: Session,
  input: { path: string; bytes: Buffer },
  o: RunOptions,
  { model, playbook, against }: UploadWith,
): Promise<Submitted> {
  const key = `${stack.resources.intakePrefix}${basename(input.path)}`;
  const put = await pipeline.clients.s3.send(
    new PutObjectCommand({
      Bucket: stack.resources.intakeBucket,
      Key: key,
      Body: input.bytes,
      Metadata: {
        ...submissionMetadata(
          {
            lane: o.lane,
            ceilingUsd: o.ceilingUsd,
            ...(playbook ? { playbook: playbookRequestText(playbook) } : {}),
            ...(o.values['contract-type'] ? { contractType: o.values['contract-type'] } : {}),
            ...(o.values.party ? { party: o.values.party } : {}),
            ...(o.values['all-analysts'] ? { allAnalysts: true } : {}),
            ...(o.values['full-panel'] ? { fullPanel: true } : {}),
            ...(o.values['allow-partial'] ? { allowPartial: true } : {}),
            ...(against ? { against } : {}),
          },
          { defaultLane: o.lane, defaultCeilingMicros: Math.round(o.ceilingUsd * 1_000_000) },
        ),
        // The model is the local run's own choice; a deployed stack's comes from its settings.
        ...(model ? { model } : {}),
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
 * One document's part of the progress line; notes a job that ended in `finished` and prints
 * its quote once. Chunks account what they spend to the job when they take more or end, so
 * while they run the job shows what they hold (their calls' worst cases) besides what is
 * accounted.
 */
async function progressOf(
  session: Session,
  s: Submitted,
  finished: Map<string, Job>,
  quoted: Set<string>,
): Promise<string> {
  const {
    stores: { jobs },
    pipeline,
    stack,
  } = session;
  const job = await jobs.find(s.jobId);
  if (!job) return `${basename(s.file)}: waiting for intake`;
  const closed = await closeHeldReview(session, job);
  if (closed) console.log(`${basename(s.file)}: ${closed}`);
  if (job.status === 'rejected' || job.finalizedAt) finished.set(s.jobId, job);
  if (job.quote && !quoted.has(s.jobId)) {
    quoted.add(s.jobId);
    const saved = job.quote.notAsked;
    const screened = job.quote.screened;
    console.log(
      `${basename(s.file)}: quote ${money(job.quote.expectedMicros)} expected, ${money(job.quote.worstCaseMicros)} at worst, ceiling ${money(job.ceilingMicros)} (${job.callsPlanned - (screened?.calls ?? 0)} calls` +
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
  return `${name}: ${job.status} · chunks ${job.chunksTerminal}/${job.chunkCount} · calls ${c ? `${c.done} done, ${c.failed} failed, ${c.skipped} skipped, ${c.cancelled} cancelled, ${c.screened} screened of ${c.planned}` : '-'} · cost ${money(job.costSpent)} accounted${job.costReserved > 0 ? ` + ${money(job.costReserved)} held by running chunks` : ''} of ${money(job.ceilingMicros)}`;
}
