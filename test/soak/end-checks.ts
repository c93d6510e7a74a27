/**
 * The soak's end: every job held to the pipeline's promises (checks.ts) from what the table,
 * the results bucket and the stand-in's books say, with the run's tallies.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { readStoredDocument } from '../../lambdas/core/intake/stored-document.js';
import { costOfTotals } from '../../lambdas/core/model-catalogue.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/job.js';
import type { Jobs } from '../../lambdas/core/state/jobs.js';
import type { RuntimeClients } from '../../lambdas/shared/runtime.js';
import type { ProvisionedResources } from '../../localstack/provision.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import {
  addCoverage,
  checkJob,
  checkRepeats,
  checkSpend,
  emptyCallTally,
  type JobFacts,
  type Violation,
} from './checks.js';
import { checkOwnerSeparation } from './owner-checks.js';
import type { OwnerProbe } from './owner-probe.js';
import type { Rig, Tracked } from './rig.js';

/** Every job held to the promises (checks.ts), with the run's tallies from the reports and the jobs as they ended. */
export async function checkJobs(rig: Rig, tracked: readonly Tracked[], probe: OwnerProbe) {
  const violations: Violation[] = [];
  const ended: Job[] = [];
  const endStates: Record<string, number> = {};
  const rejections: Record<string, number> = {};
  const calls = emptyCallTally();
  let redeliveries = 0;
  let recordedMicros = 0;
  let unanswered = 0;
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
    const facts = await factsOf(
      { clients: rig.pipeline.clients, resources: rig.resources, jobs: rig.jobs },
      t.jobId,
      t.cancelled,
    );
    violations.push(...checkJob(facts));
    const { job, report } = facts;
    if (job) ended.push(job);
    // The clauses findings-as-they-happen can give: those of the chunks that consolidated.
    const readable = report?.chunks
      .filter((c) => c.stages.consolidate?.status === 'done')
      .reduce((n, c) => n + c.clauseIds.length, 0);
    violations.push(...checkOwnerSeparation(t.jobId, await probe.answers(t.jobId), readable));
    const state = job?.status ?? 'missing';
    endStates[state] = (endStates[state] ?? 0) + 1;
    if (job?.rejection) rejections[job.rejection] = (rejections[job.rejection] ?? 0) + 1;
    recordedMicros += job?.costSpent ?? 0;
    for (const entry of facts.ledger) unanswered += entry.unanswered ?? 0;
    if (report) {
      const c = report.coverage;
      addCoverage(calls, c);
      redeliveries += c.redeliveries;
      if (job?.finalizedAt && t.uploadedAt) uploadToReport.push(Date.parse(job.finalizedAt) - t.uploadedAt);
    }
  }
  return {
    violations,
    endStates,
    rejections,
    calls,
    redeliveries,
    recordedMicros,
    unanswered,
    uploadToReport,
    ended,
  };
}

/** Where {@link factsOf} reads: the clients, the stack's resources and its jobs. */
export interface FactsSource {
  readonly clients: Pick<RuntimeClients, 'db' | 's3'>;
  readonly resources: ProvisionedResources;
  readonly jobs: Jobs;
}

/** What the table and the results bucket hold about one job at the end. */
export async function factsOf(at: FactsSource, jobId: string, cancelled: boolean): Promise<JobFacts> {
  const { db, s3 } = at.clients;
  const r = at.resources;
  const job = await at.jobs.find(jobId);
  let report: Report | undefined;
  if (job?.reportKey) {
    const object = await s3.send(new GetObjectCommand({ Bucket: r.resultsBucket, Key: job.reportKey }));
    report = JSON.parse((await object.Body?.transformToString()) ?? '{}') as Report;
  }
  const doc =
    job && job.status !== 'rejected'
      ? await readStoredDocument(s3, r.resultsBucket, jobId).catch(() => undefined)
      : undefined;
  return {
    jobId,
    job,
    ...(report ? { report } : {}),
    ...(doc ? { doc } : {}),
    checkpoints: job ? await new Claims(db, r.tableName).list(jobId) : [],
    ledger: job ? await new CallLedger(db, r.tableName).forJob(jobId) : [],
    cancelled,
  };
}

/**
 * The run against the stand-in's books: no question answered twice beyond the attempts the
 * jobs' ledgers record as `unanswered` (a death's calls in flight, fenced off by the takeover;
 * answers that came back after the model timeout), the bill at most the recorded spend, no
 * worker that ended on its own, and nothing left in flight or in a DLQ.
 */
export async function checkRun(
  rig: Rig,
  recorded: { readonly micros: number; readonly unanswered: number },
  left: string | undefined,
) {
  const { chaos } = rig;
  const books = rig.stack.bedrock.accounting();
  let billedMicros = 0;
  for (const [modelId, byOutcome] of Object.entries(books.byModel)) {
    const ok = byOutcome.success;
    if (ok) billedMicros += costOfTotals(modelId, { ...ok, ...books.cache[modelId] });
  }
  // A worker's death can lose the answers of the calls it had in flight: at most its chunks'
  // concurrency each (a batch worker runs 2 chunks at once). Shown beside the repeats; the
  // ledgers' unanswered attempts are what each repeat must be one of.
  const bound =
    (chaos.tally.workerKills * 2 + chaos.tally.dyingInvocations) * LOCAL_RUN_DEFAULTS.callConcurrency;
  const repeats = checkRepeats(books.successes, recorded.unanswered);
  const violations: Violation[] = [...repeats.violations, ...checkSpend(billedMicros, recorded.micros)];
  if (left) {
    violations.push({
      jobId: '*',
      check: 'triaged',
      detail: 'work messages still on the queues past their visibility timeouts after the last job ended',
      evidence: left,
    });
  }
  for (const crash of chaos.tally.workerCrashes) {
    const pid = crash.match(/^pid (\d+)/)?.[1];
    violations.push({
      jobId: '*',
      check: 'worker-exit',
      detail: `a batch worker ended on its own: ${crash}`,
      evidence: rig.pipelineLog
        .filter((line) => line.startsWith(`batch worker ${pid}:`))
        .slice(-5)
        .join(' | '),
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
  return {
    violations,
    billedMicros,
    remade: repeats.repeated,
    remadeBound: bound,
    modelRequests: books.totals.calls,
  };
}
