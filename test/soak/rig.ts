/**
 * The soak's rig: the local stack and pipeline with short leases, backoffs and quiet periods
 * (and a cap on each owner's running jobs when the run sets one), the chaos bound to it, the
 * trail of admission control's writes, and one job driven from upload to its end with the
 * user's actions (a re-sent S3 event, a cancel, a pause and resume, a reviewer's decision) at
 * planned moments, and the deaths and duplicates planned on its way through routing,
 * admission and its end.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { decide } from '../../lambdas/core/holds/decide.js';
import { isHoldStateError } from '../../lambdas/core/holds/errors.js';
import { cancelJob, type HoldDeps, pauseJob, resumeJob } from '../../lambdas/core/holds/pause.js';
import { decisionRights } from '../../lambdas/core/holds/playbook-holds.js';
import { jobIdFor } from '../../lambdas/core/intake/intake.js';
import type { S3ObjectRef } from '../../lambdas/core/intake/s3-event.js';
import { SUBMITTED_BY_METADATA } from '../../lambdas/core/intake/submitter.js';
import { byLane, LANES } from '../../lambdas/core/lanes-and-limits.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import type { FaultPlan } from '../../localstack/bedrock/index.js';
import type { ProvisionedResources } from '../../localstack/provision.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { type LocalRun, startLocalRun } from '../../localstack/runtime/local-run.js';
import { type ConflictCounter, countConflicts } from '../helpers/conflict-counter.js';
import { Chaos } from './chaos.js';
import type { DeathPoint } from './mortal.js';
import { type JobPlan, soakOwner } from './plan.js';
import { type SlotTrail, watchSlots } from './slot-trail.js';

/** The chunk lanes' visibility timeout in a soak (see startRig). */
const SOAK_VISIBILITY_SECONDS = 60;

/** One job as the run saw it. */
export interface Tracked {
  readonly plan: JobPlan;
  jobId?: string;
  uploadedAt?: number;
  endedAt?: number;
  cancelled: boolean;
  paused: boolean;
  actionErrors: string[];
}

/** Everything a soak run drives and reads. */
export interface Rig extends LocalRun {
  readonly resources: ProvisionedResources;
  readonly jobs: Jobs;
  readonly chaos: Chaos;
  readonly holdDeps: HoldDeps;
  readonly conflicts: ConflictCounter;
  /** Every write that took or gave back an owner's slot, queued a job or recorded a fan-out. */
  readonly trail: SlotTrail;
  /** Jobs one owner runs at once (0: no cap). */
  readonly maxJobsPerOwner: number;
  /** The pipeline's own log lines (the first 2,000), kept for a failure's story. */
  readonly pipelineLog: string[];
  /** No job starts, and none is waited for, past this time. */
  readonly deadline: number;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the local stack and pipeline with the soak's faults, short timings and owner caps: at
 * most `maxJobsPerOwner` running (0: no cap), and `dailySpendPerOwnerMicros` a day (0: no cap;
 * the stack's default unless given).
 */
export async function startRig(
  seed: number,
  faults: Partial<FaultPlan>,
  deadline: number,
  random: () => number,
  caps: { readonly maxJobsPerOwner?: number; readonly dailySpendPerOwnerMicros?: number } = {},
): Promise<Rig> {
  const maxJobsPerOwner = caps.maxJobsPerOwner ?? 0;
  const pipelineLog: string[] = [];
  const run = await startLocalRun(
    { prefix: `soak${seed}`, seed, plan: faults },
    {
      settings: {
        ...LOCAL_RUN_DEFAULTS,
        leaseSeconds: 8,
        modelTimeoutMs: 4000,
        redeliveryBackoffSeconds: [1, 2, 3],
        maxJobsPerOwner,
        dailySpendPerOwnerMicros:
          caps.dailySpendPerOwnerMicros ?? LOCAL_RUN_DEFAULTS.dailySpendPerOwnerMicros,
      },
      batchWorkers: 2,
      sweepIntervalMs: 1000,
      sweepRules: {
        quietMs: byLane(() => 25_000),
        finalizeQuietMs: 15_000,
      },
      log: (line) => {
        // The last lines are the ones a violation needs (a worker's dying words).
        pipelineLog.push(line);
        if (pipelineLog.length > 4000) pipelineLog.splice(0, 2000);
      },
    },
  );
  const { stack, pipeline } = run;
  const r = stack.resources;
  const { db, sqs, s3 } = pipeline.clients;
  // Before the first upload, so that no slot write goes unrecorded.
  const trail = watchSlots(db);
  // A chunk message whose consumer died before its first heartbeat (a worker killed in a long
  // poll that had just taken it) stays invisible for the lane's whole visibility timeout, 5 or
  // 30 min as deployed; a minute keeps such a message inside the run, as the short leases and
  // quiet periods above keep the sweeper's rounds inside it.
  for (const lane of LANES) {
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: r.queueUrls[lane],
        Attributes: { VisibilityTimeout: String(SOAK_VISIBILITY_SECONDS) },
      }),
    );
  }
  const dlqDeps = {
    db,
    sqs,
    sns: stack.clients.sns,
    tableName: r.tableName,
    alertsTopicArn: r.alertsTopicArn,
    queueUrls: r.queueUrls,
    dlqUrls: r.dlqUrls,
    dlqArns: r.dlqArns,
  };
  const holdDeps: HoldDeps = {
    db,
    s3,
    sqs,
    tableName: r.tableName,
    resultsBucket: r.resultsBucket,
    laneQueueUrls: r.queueUrls,
    finalizeQueueUrl: r.queueUrls.finalize,
  };
  return {
    ...run,
    resources: r,
    jobs: new Jobs(db, r.tableName),
    chaos: new Chaos(pipeline, r, dlqDeps, holdDeps, random),
    holdDeps,
    conflicts: countConflicts(db),
    trail,
    maxJobsPerOwner,
    pipelineLog,
    deadline,
  };
}

/** Uploads a job's contract as its owner, with its own title line and the plan's metadata; returns the object. */
async function upload(rig: Rig, t: Tracked): Promise<S3ObjectRef & { size: number }> {
  const { plan } = t;
  const r = rig.resources;
  const name = basename(plan.file);
  // Its own title: every question of this job is its own in the stand-in's books.
  const body = `SOAK COPY ${String(plan.index).padStart(4, '0')} OF ${name.slice(0, 60).toUpperCase()}\n\n${readFileSync(plan.file, 'utf8')}`;
  const key = `${r.intakePrefix}soak-${plan.index}-${name}`;
  // The owner as the status API signs it into an upload it presigns (moto's events name no uploader).
  const metadata: Record<string, string> = {
    lane: plan.lane,
    'ceiling-usd': '50',
    [SUBMITTED_BY_METADATA]: soakOwner(plan.owner),
  };
  if (plan.analysts) metadata.analysts = plan.analysts.join(',');
  if (plan.tightCeilingUsd) {
    metadata['ceiling-usd'] = plan.tightCeilingUsd.toFixed(4);
    metadata['allow-partial'] = 'true';
  }
  if (plan.gate) metadata.gate = plan.gate;
  const put = await rig.pipeline.clients.s3.send(
    new PutObjectCommand({ Bucket: r.intakeBucket, Key: key, Body: body, Metadata: metadata }),
  );
  t.uploadedAt = Date.now();
  const object = {
    bucket: r.intakeBucket,
    key,
    size: Buffer.byteLength(body),
    ...(put.VersionId ? { versionId: put.VersionId } : {}),
    ...(put.ETag ? { etag: put.ETag } : {}),
  };
  t.jobId = jobIdFor(object);
  return object;
}

/** A person's action on a job, once intake has recorded it; refusals for an ended or ending job (its report on its way) are expected. */
function actor(rig: Rig, t: Tracked, jobId: string) {
  const recorded = (async () => {
    for (const until = Date.now() + 60_000; Date.now() < until; await sleep(100)) {
      if (await rig.jobs.find(jobId)) return;
    }
  })();
  return async (what: string, run: () => Promise<unknown>) => {
    await recorded;
    try {
      await run();
    } catch (error) {
      const message = String(error);
      if (
        !/already ended|already paused|only a running job|not paused|nothing left to pause|is (completed|incomplete|budget_exceeded|rejected|cancelled)/.test(
          message,
        )
      ) {
        t.actionErrors.push(`${what}: ${message}`);
      }
    }
  };
}

/** Runs a fault of the chaos; a fault that could not be made is logged, not held against the job. */
function fault(rig: Rig, what: string, run: () => Promise<unknown>): Promise<void> {
  return run().then(
    () => {},
    (error) => {
      rig.pipelineLog.push(`chaos ${what}: ${String(error)}`);
    },
  );
}

/**
 * Cancels a job as a person does; with `death`, the first try dies there and the person tries
 * again (a cancel that took before the death is then refused as made).
 */
async function cancel(rig: Rig, t: Tracked, death: DeathPoint | undefined): Promise<void> {
  const jobId = t.jobId as string;
  if (death) await rig.chaos.dyingHold('cancel', jobId, death);
  const r = await cancelJob(jobId, 'cancelled by the soak', rig.holdDeps);
  if (r.cancelled || (death && r.job.cancelledAt)) t.cancelled = true;
}

/**
 * Pauses a job, waits `forMs` and resumes it, as a person does; with `deaths`, the first try of
 * each dies at its point and the person tries again. A resume while the owner has as many jobs
 * running as its cap leaves the job queued until a slot is given back.
 */
export async function pauseAndResume(
  rig: Rig,
  t: Tracked,
  forMs: number,
  deaths?: JobPlan['dyingHold'],
): Promise<void> {
  const jobId = t.jobId as string;
  if (deaths) await rig.chaos.dyingHold('pause', jobId, deaths.pause);
  try {
    await pauseJob(jobId, 'soak', rig.holdDeps);
  } catch (error) {
    // The pause that died had taken: the retry is refused as already made, and the resume follows.
    if (!(deaths && isHoldStateError(error) && error.status === 'paused')) throw error;
  }
  t.paused = true;
  await sleep(forMs);
  if (deaths) await rig.chaos.dyingHold('resume', jobId, deaths.resume);
  await resumeJob(jobId, rig.holdDeps);
}

/**
 * Drives one job from upload to its end (or the deadline), with the plan's actions beside it:
 * the routing made again or dying, an intake dying on the way through admission, a cancel as
 * soon as it is seen queued, and a second finalize dying at its end.
 */
export async function runJob(rig: Rig, t: Tracked): Promise<void> {
  const { plan } = t;
  const object = await upload(rig, t);
  const jobId = t.jobId as string;
  const act = actor(rig, t, jobId);
  const actions: Promise<void>[] = [];
  const { chaos } = rig;
  if (plan.resendEvent) {
    actions.push(sleep(200).then(() => act('resend event', () => chaos.duplicateEvent(object))));
  }
  if (plan.reroute) actions.push(sleep(100).then(() => fault(rig, 'reroute', () => chaos.reroute(object))));
  const { dyingRoute, dyingIntake, dyingEnd, dyingHold } = plan;
  if (dyingRoute) actions.push(fault(rig, 'dying route', () => chaos.dyingRoute(object, dyingRoute)));
  if (dyingIntake) actions.push(fault(rig, 'dying intake', () => chaos.dyingIntake(object, dyingIntake)));
  if (plan.cancelAfterMs !== undefined) {
    actions.push(
      sleep(plan.cancelAfterMs).then(() => act('cancel', () => cancel(rig, t, dyingHold?.cancel))),
    );
  }
  if (plan.pauseAfterMs !== undefined) {
    const forMs = plan.pauseForMs ?? 1000;
    actions.push(
      sleep(plan.pauseAfterMs).then(() => act('pause', () => pauseAndResume(rig, t, forMs, dyingHold))),
    );
  }
  let cancelledQueued = false;
  let endDied = false;
  for (;;) {
    const job: Job | undefined = await rig.jobs.find(jobId);
    if (job?.finalizedAt || job?.status === 'rejected') break;
    if (job?.status === 'queued' && plan.cancelWhenQueued && !cancelledQueued) {
      cancelledQueued = true;
      actions.push(act('cancel queued', () => cancel(rig, t, dyingHold?.cancel)));
    }
    if (job?.finalizeEnqueuedAt && dyingEnd && !endDied) {
      endDied = true;
      actions.push(fault(rig, 'dying finalize', () => chaos.dyingFinalize(jobId, dyingEnd)));
    }
    if (job?.status === 'awaiting_review' && !job.reviewCompletedAt && !job.reviewExpiredAt) {
      await act('decide', () =>
        decide(
          job,
          { findings: 'all-undecided', verdict: 'approve', note: 'soak' },
          'arn:aws:iam::000000000000:user/soak-reviewer',
          { ...rig.holdDeps, resultsPrefix: rig.resources.resultsPrefix },
          {},
          decisionRights(true, true),
        ),
      );
    }
    if (Date.now() > rig.deadline) break;
    await sleep(400);
  }
  await Promise.all(actions);
  t.endedAt = Date.now();
}
