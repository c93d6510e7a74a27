/**
 * The chaos soak: many jobs of several owners at once on the local stack under model faults,
 * killed workers, dying invocations, duplicate deliveries, cancels, pauses, tight ceilings and
 * review gates, with the sweeper and DLQ triage running as deployed; with
 * `--max-jobs-per-owner N`, every owner runs at most N jobs at once and the rest wait `queued`,
 * and the chaos lands on routing, admission and each job's end. At the end every job is held to
 * the pipeline's promises (checks.ts), admission control to its own (no owner over its cap, no
 * slot held by an ended job, every queued job started or ended), and the stand-in's books to
 * "billed once" and "never over what was recorded".
 *
 *   npm run soak -- [--jobs 40] [--minutes 8] [--seed 1] [--concurrency 8] [--max-jobs-per-owner N]
 *                   [--daily-spend-usd USD] [--json]
 *
 * Each owner's daily spend cap is the stack's default (`LOCAL_RUN_DEFAULTS`, $33 a day with the
 * default models), or `--daily-spend-usd` (0: none): a job whose start would pass it waits
 * `queued` and counts as admission's to start, as a job held by the owner's running jobs does.
 * The soak's jobs count their worst cases (about $0.50 each, $1.40 at most, under their $50
 * ceilings), so at the default cap its owners' days stay open and no job waits for the next.
 *
 * Contracts come from ../shared/corpus when it is there, else test/fixtures. Each job gets its
 * own title line, so its questions are its own in the stand-in's fingerprints. `--seed` replays
 * a run's choices (which contract, lane, options and actions per job, and when the faults
 * come); timing on a loaded machine still varies between runs.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { Job } from '../../lambdas/core/state/job.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { seededRandom } from '../helpers/random.js';
import { p99 } from './checks.js';
import { checkJobs, checkRun } from './end-checks.js';
import { checkAdmission, freeSlotWaits, peakSlots } from './owner-checks.js';
import { startOwnerProbe } from './owner-probe.js';
import { type OwnerWatch, startOwnerWatch } from './owner-watch.js';
import { OWNER_SHARES, planJobs, SOAK_FAULTS, soakContracts, soakOwner } from './plan.js';
import { pauseAndResume, type Rig, runJob, sleep, startRig, type Tracked } from './rig.js';

// Progress goes to stderr, so that --json leaves stdout to the summary alone.
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Options {
  readonly jobs: number;
  readonly minutes: number;
  readonly seed: number;
  readonly concurrency: number;
  /** Jobs one owner runs at once, the rest `queued` (0: no cap). */
  readonly maxJobsPerOwner: number;
  /** Micro-dollars one owner's jobs started on a day may spend (0: no cap). */
  readonly dailySpendPerOwnerMicros: number;
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
      'max-jobs-per-owner': { type: 'string' },
      'daily-spend-usd': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const num = (name: string, raw: string | undefined, fallback: number, min: number) => {
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(n) || n < min)
      throw new Error(`--${name} must be a number of at least ${min}; got '${raw}'`);
    return n;
  };
  const cap = values['max-jobs-per-owner'];
  const maxJobsPerOwner = cap === undefined ? 0 : Number(cap);
  if (!(Number.isInteger(maxJobsPerOwner) && maxJobsPerOwner >= 0 && maxJobsPerOwner <= 10_000))
    throw new Error(`--max-jobs-per-owner must be a whole number from 0 (no cap) to 10000; got '${cap}'`);
  const daily = values['daily-spend-usd'];
  const dailySpendPerOwnerMicros =
    daily === undefined
      ? LOCAL_RUN_DEFAULTS.dailySpendPerOwnerMicros
      : Math.round(num('daily-spend-usd', daily, 0, 0) * 1_000_000);
  return {
    dailySpendPerOwnerMicros,
    jobs: num('jobs', values.jobs, 40, 1),
    minutes: num('minutes', values.minutes, 8, 0.5),
    seed: num('seed', values.seed, 1, 0),
    concurrency: num('concurrency', values.concurrency, 8, 1),
    maxJobsPerOwner,
    json: values.json ?? false,
  };
}

/** Runs the soak: every planned job under the chaos, then every check; the run's summary. */
export async function runSoak(o: Options) {
  const random = seededRandom(o.seed);
  const plans = planJobs(o.jobs, soakContracts(), random);
  const rig = await startRig(o.seed, SOAK_FAULTS, Date.now() + o.minutes * 60_000, random, {
    maxJobsPerOwner: o.maxJobsPerOwner,
    dailySpendPerOwnerMicros: o.dailySpendPerOwnerMicros,
  });
  const owners = OWNER_SHARES.map((_, i) => soakOwner(i));
  const watch = startOwnerWatch(
    rig.stack.clients.documents,
    rig.resources.tableName,
    owners,
    o.maxJobsPerOwner,
  );
  const tracked: Tracked[] = plans.map((plan) => ({
    plan,
    cancelled: false,
    paused: false,
    actionErrors: [],
  }));
  const started = Date.now();
  const { left, fullPauses } = await drive(rig, tracked, o.concurrency, random, watch);
  const wallSeconds = (Date.now() - started) / 1000;
  await watch.stop();
  const probe = await startOwnerProbe(rig);
  const perJob = await checkJobs(rig, tracked, probe).finally(() => probe.close());
  const run = await checkRun(rig, { micros: perJob.recordedMicros, unanswered: perJob.unanswered }, left);
  const admission = checkAdmission(
    rig.trail.entries,
    o.maxJobsPerOwner,
    perJob.ended,
    await watch.readSlots(),
  );
  const violations = [...perJob.violations, ...run.violations, ...watch.violations, ...admission];
  const { chaos } = rig;
  const summary = {
    seed: o.seed,
    jobs: plans.length,
    minutes: o.minutes,
    maxJobsPerOwner: o.maxJobsPerOwner,
    dailySpendPerOwnerUsd: o.dailySpendPerOwnerMicros / 1_000_000,
    wallSeconds: Math.round(wallSeconds),
    violations: violations.length,
    endStates: perJob.endStates,
    rejections: perJob.rejections,
    calls: perJob.calls,
    modelRequests: run.modelRequests,
    redeliveries: perJob.redeliveries,
    deadLetters: chaos.tally.deadLetters,
    conflicts: rig.conflicts.count,
    admission: admissionFigures(
      rig,
      watch,
      owners,
      plans.map((p) => p.owner),
    ),
    chaos: {
      workerKills: chaos.tally.workerKills,
      workerCrashes: chaos.tally.workerCrashes.length,
      dyingInvocations: chaos.tally.dyingInvocations,
      duplicateChunks: chaos.tally.duplicateChunks,
      duplicateEvents: chaos.tally.duplicateEvents,
      reroutes: chaos.tally.reroutes,
      duplicateFinalizes: chaos.tally.duplicateFinalizes,
      dying: chaos.tally.dying,
      cancels: tracked.filter((t) => t.cancelled).length,
      pauses: tracked.filter((t) => t.paused).length,
      pausesOfFullOwners: fullPauses,
      tightCeilings: plans.filter((p) => p.tightCeilingUsd).length,
      gated: plans.filter((p) => p.gate).length,
      triageRuns: chaos.tally.triageRuns,
    },
    dyingErrors: chaos.tally.dyingErrors,
    callsRemadeAfterDeath: run.remade,
    callsRemadeBound: run.remadeBound,
    callsUnanswered: perJob.unanswered,
    billedMicros: run.billedMicros,
    recordedMicros: perJob.recordedMicros,
    uploadToReportP99Seconds: Math.round(p99(perJob.uploadToReport) / 100) / 10,
    violationList: violations.slice(0, 200).map((v) => ({ ...v, seed: o.seed })),
  };
  await rig.stop();
  return summary;
}

/** What admission control did in the run, from the trail of its writes and the watch's readings. */
function admissionFigures(
  rig: Rig,
  watch: OwnerWatch,
  owners: readonly string[],
  planned: readonly number[],
) {
  const entries = rig.trail.entries.filter((e) => e.outcome === 'ok');
  const takes = entries.filter((e) => e.kind === 'take');
  const queued = entries.filter((e) => e.kind === 'queued');
  // A job queued after it had taken a slot was resumed while its owner was full.
  const requeued = queued.filter((q) => takes.some((t) => t.jobId === q.jobId && t.answeredSeq < q.sentSeq));
  let longestWait = 0;
  for (const q of queued) {
    const start = takes.find((t) => t.jobId === q.jobId && t.answeredSeq > q.sentSeq);
    if (start) longestWait = Math.max(longestWait, start.at - q.at);
  }
  const peak = peakSlots(rig.trail.entries);
  const mostHeld = Math.max(0, ...watch.samples.flatMap((s) => s.slots.map((o) => o.held)));
  const waits = freeSlotWaits(watch.samples, rig.maxJobsPerOwner);
  return {
    owners: owners.length,
    jobsByOwner: owners.map((_, i) => planned.filter((p) => p === i).length),
    jobsQueued: new Set(queued.map((q) => q.jobId)).size,
    resumesQueued: requeued.length,
    slotsTaken: takes.length,
    slotsGivenBack: entries.filter((e) => e.kind === 'release').length,
    writesOfUnknownOutcome: rig.trail.entries
      .filter((e) => e.outcome === 'unknown')
      .map((e) => `${e.kind} of ${e.jobId}: ${e.error}`),
    peakSlotsByRecords: owners.map((o) => peak.get(o)?.held ?? 0),
    mostHeldSampled: mostHeld,
    readings: watch.samples.length,
    longestQueueWaitSeconds: Math.round(longestWait / 1000),
    longestFreeSlotWaitSeconds: Math.round(Math.max(0, ...waits.values()) / 1000),
  };
}

/**
 * Starts jobs `concurrency` at a time while the chaos runs beside them, every one or two
 * seconds, until the last has ended; then lets what is in flight settle and triages what is
 * in a DLQ, as the schedule would. Beside the faults of chaos.ts, the chaos pauses running
 * jobs of owners whose jobs wait (the pause starts the next; the resume, a second or so later,
 * finds the owner full and queues) and sends finalize messages again. Returns what was still on
 * the work queues when the wait ended (see Chaos.quiesce), or undefined when they emptied, and
 * how many pauses of full owners it made.
 */
async function drive(
  rig: Rig,
  tracked: Tracked[],
  concurrency: number,
  random: () => number,
  watch: OwnerWatch,
): Promise<{ left: string | undefined; fullPauses: number }> {
  const { chaos } = rig;
  const holds: Promise<unknown>[] = [];
  let fullPauses = 0;
  const started = Date.now();
  let next = 0;
  let ended = 0;
  const lanes = Array.from({ length: Math.min(concurrency, tracked.length) }, async () => {
    for (;;) {
      const t = tracked[next++];
      if (!t || Date.now() > rig.deadline) return;
      await runJob(rig, t).catch((error) => t.actionErrors.push(`run: ${String(error)}`));
      ended++;
    }
  });
  let chaosOn = true;
  const chaosLoop = (async () => {
    let lastLog = 0;
    while (chaosOn) {
      await sleep(1000 + Math.floor(random() * 1000));
      const live = new Map(tracked.flatMap((t) => (t.jobId && !t.endedAt ? [[t.jobId, t] as const] : [])));
      // Jobs that ended in the last half minute: a finalize message may still come twice.
      const recent = tracked.flatMap((t) =>
        t.jobId && t.endedAt && Date.now() - t.endedAt < 30_000 ? [t.jobId] : [],
      );
      const items = (
        await Promise.all([...live.keys(), ...recent].map((jobId) => rig.jobs.find(jobId)))
      ).filter((j): j is Job => j !== undefined);
      const running = items.filter((j) => j.status === 'running' && live.has(j.jobId));
      const victim = running[Math.floor(random() * running.length)];
      // A running job of an owner whose jobs wait: its pause starts the next, its resume queues it
      // (each dying first where the job's plan has its holds die).
      const waiting = new Set(watch.latest()?.queued.map((q) => q.owner));
      const full = running.filter((j) => j.owner && waiting.has(j.owner) && !j.finalizeEnqueuedAt);
      // Finalize due or made in the last half minute: a second delivery of its message.
      const ending = items.filter((j) => j.finalizeEnqueuedAt);
      const draw = random();
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
      try {
        chaos.replaceCrashedWorkers();
        if (draw < 0.12) chaos.killBatchWorker();
        else if (draw < 0.3 && victim) chaos.dyingInvocation(victim);
        else if (draw < 0.5 && victim) await chaos.duplicateChunk(victim);
        else if (draw < 0.58 && full.length > 0) {
          const t = live.get(pick(full)?.jobId ?? '');
          const forMs = 500 + Math.floor(random() * 2500);
          if (t) {
            fullPauses++;
            holds.push(
              pauseAndResume(rig, t, forMs, t.plan.dyingHold).catch((e) =>
                rig.pipelineLog.push(`chaos pause: ${e}`),
              ),
            );
          }
        } else if (draw < 0.64 && ending.length > 0) {
          await chaos.duplicateFinalize(pick(ending)?.jobId ?? '');
        }
        if (random() < 0.25) await chaos.triage();
      } catch (error) {
        rig.pipelineLog.push(`chaos: ${String(error)}`);
      }
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        log(`  … ${ended}/${tracked.length} jobs ended, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    }
  })();
  await Promise.all(lanes);
  chaosOn = false;
  await chaosLoop;
  await Promise.all(holds);
  await chaos.settle();
  // Messages still in flight (duplicates meeting held leases) end acked or dead-lettered; then
  // what is in a DLQ gets one last triage, as the schedule would.
  const left = await chaos.quiesce();
  await chaos.triage();
  return { left, fullPauses };
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
    `  rejections        ${
      Object.entries(s.rejections)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }`,
  );
  out(
    `  calls             planned ${s.calls.planned}: done ${s.calls.done}, failed ${s.calls.failed}, skipped ${s.calls.skipped}, cancelled ${s.calls.cancelled}, screened ${s.calls.screened}, not run ${s.calls.notRun}; ${s.modelRequests} model requests`,
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
    `  admission         ${Object.entries(s.admission)
      .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join('/') : v}`)
      .join(', ')}`,
  );
  out(
    `  chaos             ${Object.entries(s.chaos)
      .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`)
      .join(', ')}`,
  );
  for (const e of s.dyingErrors) out(`  dying error       ${e}`);
  out(
    `  re-made           ${s.callsRemadeAfterDeath} (unanswered attempts in the ledgers ${s.callsUnanswered}; in flight at deaths at most ${s.callsRemadeBound})`,
  );
  out(`  spend             billed ${s.billedMicros} µ$ ≤ recorded ${s.recordedMicros} µ$`);
  out(`  upload → report   p99 ${s.uploadToReportP99Seconds} s`);
  out(`  violations        ${s.violations}`);
  for (const v of s.violationList.slice(0, 40)) {
    out(
      `    ${v.check}: job ${v.jobId}${v.chunk !== undefined ? ` chunk ${v.chunk}` : ''}: ${v.detail} (seed ${v.seed})`,
    );
    if (v.evidence) out(`      ${v.evidence}`);
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
