import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, expect } from 'vitest';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { normaliseText } from '../../lambdas/core/documents/normalise.js';
import { jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { costOfTotals } from '../../lambdas/core/model-catalogue.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import type { Delivery, WorkerDeps } from '../../lambdas/core/worker/process-chunk.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { workerDeps } from '../../lambdas/shared/runtime.js';
import type { Lane } from '../../lib/topology.js';
import type { OfflineAnalystName } from '../../localstack/bedrock/heuristic-types.js';
import {
  type BedrockStandIn,
  duplicateBilledCalls,
  type FaultPlan,
  repeatedAnswers,
  startBedrockStandIn,
} from '../../localstack/bedrock/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { LOCAL_RUN_DEFAULTS, type LocalRunSettings } from '../../localstack/runtime/local-env.js';
import {
  type LocalPipeline,
  type LocalPipelineOptions,
  startLocalPipeline,
} from '../../localstack/runtime/local-pipeline.js';
import { provisionTestStack, type TestStack } from './local-aws.js';

/**
 * The checks every completed review must pass: every clause analysed by every analyst of the
 * panel the relevance screen did not leave out (`fullPanel`: by every analyst, none screened),
 * every finding's quote found verbatim at its offsets, the money settled.
 */
export function expectCompleteReview(
  report: Report,
  source: string,
  panel: 'screened' | 'full' = 'screened',
): void {
  const normalised = normaliseText(source);
  expect(report.job.status).toBe('completed');
  expect(report.clauses.length).toBeGreaterThan(0);
  const c = report.coverage;
  expect(c.callsPlanned).toBe(report.clauses.length * ANALYSTS.length);
  if (panel === 'full') expect(c.callsScreened).toBe(0);
  else expect(c.callsScreened).toBeGreaterThan(0);
  expect(c.callsDone + c.callsScreened).toBe(c.callsPlanned);
  for (const clause of report.clauses) {
    expect(clause.status).toBe('analysed');
    const screened = (clause.screened ?? []).map((s) => s.analystId);
    expect([...clause.analystsAnswered, ...screened].sort()).toEqual(ANALYSTS.map((a) => a.id).sort());
    for (const f of clause.findings) {
      expect(clause.text.slice(f.start - clause.start, f.end - clause.start)).toBe(f.quote);
      // Offsets index the normalised text; in the file itself only runs of spaces may differ.
      expect(normalised.slice(f.start, f.end)).toBe(f.quote);
      expect(source).toMatch(new RegExp(f.quote.split(/\s+/).map(escapeRegExp).join('\\s+')));
    }
  }
  expect(report.clauses.flatMap((c) => c.findings).length).toBeGreaterThan(0);
  expect(report.cost.spentMicros).toBeGreaterThan(0);
  expect(report.cost.spentMicros).toBeLessThanOrEqual(report.cost.ceilingMicros);
  expect(report.cost.reservedMicros).toBe(0);
}

/** The calls a job asks: those planned less the pairs the relevance screen left out. */
export function callsAsked(job: Pick<Job, 'callsPlanned' | 'callsScreened'>): number {
  return job.callsPlanned - (job.callsScreened ?? 0);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A contract fixture's bytes. */
export function fixture(name: string): Buffer {
  return readFileSync(join(PROJECT_ROOT, 'test/fixtures/contracts', name));
}

export const SMALL = 'GALACTICOMMTECHNOLOGIESINC_11_07_1997-EX-10_46-WEB_HOSTING_AGREEMENT.txt';
export const MEDIUM = 'KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt';
export const LARGE =
  'ParatekPharmaceuticalsInc_20170505_10-KA_EX-10_29_10323872_EX-10_29_Outsourcing_Agreement.txt';
/** A consulting agreement of 39 clauses, for reviews against the default playbook. */
export const CONSULTING = 'KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT.txt';

/**
 * The consulting agreement as the consultant's side might have marked it up: a ten-year term
 * renewed unless stopped 120 days ahead, and 180 days' notice to terminate. Three terms below
 * every rung of the default playbook for the company (the customer), two of them in one clause,
 * each a number the review brings back to the standard in place.
 */
export function markedUpConsulting(): Buffer {
  const edits: readonly [string, string][] = [
    [
      'will continue until termination as provided below',
      'will continue for an initial term of ten (10) years. Thereafter it shall automatically renew for successive one (1) year terms unless either party gives written notice of non-renewal at least one hundred and twenty (120) days prior to the end of the then-current term, unless terminated earlier as provided below',
    ],
    [
      'may terminate this Agreement upon prior written notice',
      "may terminate this Agreement upon one hundred and eighty (180) days' prior written notice",
    ],
  ];
  let text = fixture(CONSULTING).toString('utf8');
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`the consulting agreement no longer says '${from}'`);
    text = text.replace(from, to);
  }
  return Buffer.from(text, 'utf8');
}

/** The largest contract (290 KB, 8,382 model calls): scale runs. */
export const LARGEST = 'VerizonAbsLlc_20200123_8-K_EX-10_4_11952335_EX-10_4_Service_Agreement.txt';

/** A provisioned stack, a Bedrock stand-in and a running local pipeline, torn down after the file. */
export interface PipelineHarness {
  readonly stack: TestStack;
  readonly bedrock: BedrockStandIn;
  readonly pipeline: LocalPipeline;
  readonly jobs: Jobs;
  upload(name: string, body: Uint8Array | string, metadata?: Record<string, string>): Promise<string>;
  waitForEnd(jobId: string, timeoutMs?: number): Promise<Job>;
  /** Resolves with the job once `wanted` holds for it (checked every 100 ms). */
  until(jobId: string, wanted: (job: Job) => boolean, timeoutMs?: number): Promise<Job>;
  report(job: Job): Promise<Report>;
  /** Worker dependencies as a fresh worker instance would build them (its own worker id). */
  workerDeps(workerId: string): WorkerDeps;
  /** Every chunk message now in a lane's queue, received (invisible for 5 minutes). */
  takeChunkMessages(lane: Lane, expected: number): Promise<Delivery[]>;
  /** Resolves once `predicate` holds for the stand-in's accounting. */
  untilCalls(predicate: (calls: number) => boolean, timeoutMs?: number): Promise<void>;
  /** What the stand-in billed, by its own token counts, priced with the project's table. */
  billedMicros(): number;
  /**
   * Questions the stand-in answered (billed) more than once, beyond what the jobs' ledgers say
   * may have been: each `unanswered` attempt (a timeout or cut connection after the model had
   * answered, a fenced-off holder's intent) may have been billed before its call was asked again.
   * Empty when every repeat is one of those; on a quiet machine there are none at all.
   */
  billedTwice(...jobIds: string[]): Promise<string[]>;
}

/** Starts everything; call at the top level of a test file. */
export async function startHarness(
  label: string,
  options: {
    plan?: Partial<FaultPlan>;
    /** The stand-in's offline analyst. @default 'heuristic' */
    analyst?: OfflineAnalystName;
    settings?: Partial<LocalRunSettings>;
    pipeline?: Partial<LocalPipelineOptions>;
  } = {},
): Promise<PipelineHarness> {
  const stack = await provisionTestStack(label);
  // The keyword heuristic answers unless a suite asks otherwise: these suites test the pipeline
  // around the calls (faults, holds, gates), and its judgements are the ones they were written
  // against; a suite about a playbook's positions may ask for the learned reader the CLI uses.
  const bedrock = await startBedrockStandIn({
    seed: 7,
    analyst: options.analyst ?? 'heuristic',
    ...(options.plan ? { plan: options.plan } : {}),
  });
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.endpoint,
    bedrockEndpoint: bedrock.url,
    topology: stack.topology,
    resources: stack.resources,
    settings: { ...LOCAL_RUN_DEFAULTS, ...options.settings },
    batchWorkers: 0,
    log: (line) => console.error(line),
    ...options.pipeline,
  });
  afterAll(async () => {
    await pipeline.stop();
    await bedrock.close();
  });
  const jobs = new Jobs(pipeline.clients.db, stack.resources.tableName);
  return {
    stack,
    bedrock,
    pipeline,
    jobs,
    async upload(name, body, metadata = {}) {
      const key = `${stack.resources.intakePrefix}${name}`;
      const put = await pipeline.clients.s3.send(
        new PutObjectCommand({
          Bucket: stack.resources.intakeBucket,
          Key: key,
          Body: body,
          Metadata: metadata,
        }),
      );
      return jobIdOfPut(stack.resources.intakeBucket, key, put);
    },
    async waitForEnd(jobId, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await jobs.find(jobId);
        if (job && (job.finalizedAt || job.status === 'rejected')) return job;
        if (Date.now() > deadline)
          throw new Error(`job ${jobId} did not end within ${timeoutMs} ms: ${JSON.stringify(job)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async until(jobId, wanted, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await jobs.find(jobId);
        if (job && wanted(job)) return job;
        if (Date.now() > deadline) throw new Error(`job ${jobId} never got there: ${JSON.stringify(job)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    workerDeps(workerId) {
      return workerDeps(loadConfig(pipeline.env), pipeline.clients, { workerId });
    },
    async takeChunkMessages(lane, expected) {
      const queueUrl = stack.resources.queueUrls[lane];
      const out: Delivery[] = [];
      const deadline = Date.now() + 30_000;
      while (out.length < expected) {
        if (Date.now() > deadline)
          throw new Error(`only ${out.length} of ${expected} chunk messages arrived`);
        const r = await pipeline.clients.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 300,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
        );
        for (const m of r.Messages ?? []) {
          out.push({
            messageId: m.MessageId ?? '',
            receiptHandle: m.ReceiptHandle ?? '',
            body: m.Body ?? '',
            receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? '1'),
            queueUrl,
          });
        }
      }
      return out;
    },
    async untilCalls(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(bedrock.accounting().totals.calls)) {
        if (Date.now() > deadline)
          throw new Error(
            `stand-in calls never reached the condition (${bedrock.accounting().totals.calls})`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    billedMicros() {
      const books = bedrock.accounting();
      let total = 0;
      for (const [modelId, byOutcome] of Object.entries(books.byModel)) {
        const ok = byOutcome.success;
        // Prompt-cache tokens are billed apart from input tokens, at their own prices.
        if (ok) total += costOfTotals(modelId, { ...ok, ...books.cache[modelId] });
      }
      return total;
    },
    async billedTwice(...jobIds) {
      const books = bedrock.accounting();
      const repeats = duplicateBilledCalls(books);
      if (repeats.length === 0) return [];
      const repeated = repeatedAnswers(books);
      const ledger = new CallLedger(pipeline.clients.db, stack.resources.tableName);
      let unanswered = 0;
      for (const jobId of jobIds) {
        for (const entry of await ledger.forJob(jobId)) unanswered += entry.unanswered ?? 0;
      }
      if (repeated <= unanswered) return [];
      return repeats.map(
        (f) => `${f} (${repeated} repeated answers, ${unanswered} unanswered attempts recorded)`,
      );
    },
    async report(job) {
      const r = await pipeline.clients.s3.send(
        new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: job.reportKey ?? '' }),
      );
      return JSON.parse((await r.Body?.transformToString()) ?? '{}') as Report;
    },
  };
}
