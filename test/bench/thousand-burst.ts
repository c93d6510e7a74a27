/**
 * A burst of tiny uploads: `--burst N` (5,000 by default) copies of CUAD's shortest contract
 * put as fast as 32 connections allow, 80 % by one owner, the rest by nine others. Every upload
 * must be recorded (its job item exists) and be waiting or started; none lost. Whatever statuses
 * the jobs pass through are counted (admission control may hold some back before they run),
 * with the most seen at once per status; each job is cancelled as soon as it is seen admitted
 * (running), which bounds the run to intake and admission.
 *
 *   npm run bench -- --only thousand-burst [--burst 5000]
 */
import { cancelJob, type HoldDeps } from '../../lambdas/core/holds/pause.js';
import { TERMINAL_STATUSES } from '../../lambdas/core/state/job.js';
import { planUploads } from './thousand-measure.js';
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

export interface BurstOptions extends CrowdOptions {
  readonly uploads: number;
  /** Uploads in flight at once. */
  readonly connections: number;
}

export const BURST_DEFAULTS: Omit<BurstOptions, 'log'> = {
  ...CROWD_DEFAULTS,
  uploads: 5000,
  connections: 32,
  maxMinutes: 30,
};

/** Runs `work` over `items`, `width` at a time. */
async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) await work(items[i] as T);
    }),
  );
}

function holdDeps(b: BenchStack): HoldDeps {
  const r = b.stack.resources;
  return {
    db: b.reader,
    s3: b.stack.clients.s3,
    sqs: b.stack.clients.sqs,
    tableName: r.tableName,
    resultsBucket: r.resultsBucket,
    laneQueueUrls: r.queueUrls,
    finalizeQueueUrl: r.queueUrls.finalize,
  };
}

const ENDED = new Set<string>(TERMINAL_STATUSES);

/** What the burst's polls saw. */
interface Watch {
  readonly peak: Record<string, number>;
  readonly seenBeforeRunning: Record<string, number>;
  readonly cancelled: Set<string>;
  readonly refusedCancels: number[];
  recordedAllAt?: number;
  admittedAllAt?: number;
}

/** One poll: counts by status (and the peak of each), and a cancel for every job newly seen running. */
async function poll(b: BenchStack, ids: readonly string[], w: Watch, firstSeen: Map<string, string>) {
  const states = await jobStates(b, ids);
  const now: Record<string, number> = {};
  for (const [id, s] of states) {
    now[s.status] = (now[s.status] ?? 0) + 1;
    if (!firstSeen.has(id)) firstSeen.set(id, s.status);
  }
  for (const [status, n] of Object.entries(now)) w.peak[status] = Math.max(w.peak[status] ?? 0, n);
  const toCancel = [...states].filter(([id, s]) => s.status === 'running' && !w.cancelled.has(id));
  await pool(toCancel, 16, async ([id]) => {
    w.cancelled.add(id);
    const r = await cancelJob(id, 'cancelled by the burst bench once admitted', holdDeps(b)).catch(
      () => undefined,
    );
    if (!r?.cancelled) w.refusedCancels.push(1);
  });
  return states;
}

/** Runs the burst: uploads, then polls until every job is recorded, admitted and ended, or the bound. */
export async function runBurst(o: BurstOptions) {
  const [tiny] = await shortestContracts(1, 1, 200);
  if (!tiny) throw new Error('no contract to upload: neither CUAD nor the fixtures were found');
  const plan = planUploads(o.uploads, o.owners, o.hotShare, 0, [tiny.file]);
  const b = await startCrowdStack(o);
  try {
    const started = Date.now();
    const ids: string[] = [];
    let uploadErrors = 0;
    await pool(plan, o.connections, async (u) => {
      try {
        ids.push(await uploadAs(b, u.index, u.owner, u.file));
      } catch {
        uploadErrors++;
      }
    });
    const uploadSeconds = (Date.now() - started) / 1000;
    o.log(`  ${ids.length} uploads in ${uploadSeconds.toFixed(1)} s`);
    const w: Watch = { peak: {}, seenBeforeRunning: {}, cancelled: new Set(), refusedCancels: [] };
    const firstSeen = new Map<string, string>();
    let states = new Map<string, { status: string; finalizedAt?: string }>();
    for (let lastLog = 0; Date.now() < started + o.maxMinutes * 60_000; await sleep(2000)) {
      states = await poll(b, ids, w, firstSeen);
      const ended = [...states.values()].filter(
        (s) => ENDED.has(s.status) && (s.finalizedAt || s.status === 'rejected'),
      );
      if (states.size === ids.length) w.recordedAllAt ??= Date.now();
      const waiting = [...states.values()].filter(
        (s) => s.status !== 'running' && !ENDED.has(s.status),
      ).length;
      if (states.size === ids.length && waiting === 0) w.admittedAllAt ??= Date.now();
      if (ended.length === ids.length) break;
      if (Date.now() - lastLog > 15_000) {
        lastLog = Date.now();
        o.log(`  … ${states.size}/${ids.length} recorded, ${waiting} waiting, ${ended.length} ended`);
      }
    }
    for (const s of firstSeen.values()) w.seenBeforeRunning[s] = (w.seenBeforeRunning[s] ?? 0) + 1;
    const finalStatuses: Record<string, number> = {};
    for (const s of states.values()) finalStatuses[s.status] = (finalStatuses[s.status] ?? 0) + 1;
    const processes: Record<string, ProcessFigures> = {
      runner: processFigures(process.pid),
      'stand-in': processFigures(b.standIn.child.pid ?? -1),
      ...(b.motoPid ? { moto: processFigures(b.motoPid) } : {}),
    };
    const at = (t: number | undefined) => (t === undefined ? Number.NaN : (t - started) / 1000);
    return {
      uploads: o.uploads,
      uploadErrors,
      uploadSeconds,
      recorded: states.size,
      lost: ids.length - states.size,
      secondsToRecordAll: at(w.recordedAllAt),
      secondsToAdmitAll: at(w.admittedAllAt),
      statusFirstSeen: w.seenBeforeRunning,
      peakByStatus: w.peak,
      finalStatuses,
      cancelledByBench: w.cancelled.size - w.refusedCancels.length,
      cancelsRefused: w.refusedCancels.length,
      processes,
    };
  } finally {
    await b.stop();
  }
}

export type BurstResult = Awaited<ReturnType<typeof runBurst>>;

export function formatBurst(r: BurstResult): string {
  const list = (x: Record<string, number>) =>
    Object.entries(x)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none';
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
  return [
    `thousand-burst: ${r.uploads} tiny uploads (${r.uploadErrors} refused) in ${f(r.uploadSeconds)} s`,
    `  recorded (job item exists)         ${r.recorded} of ${r.uploads - r.uploadErrors}; lost ${r.lost}; all recorded after ${f(r.secondsToRecordAll)} s, all admitted after ${f(r.secondsToAdmitAll)} s`,
    `  status when first seen             ${list(r.statusFirstSeen)}`,
    `  most at once, by status            ${list(r.peakByStatus)}`,
    `  final status                       ${list(r.finalStatuses)} (cancelled by the bench once running: ${r.cancelledByBench}; refused, already ended: ${r.cancelsRefused})`,
    ...Object.entries(r.processes).map(
      ([name, p]) =>
        `  ${name.padEnd(34)} peak RSS ${p.peakRssMb.toFixed(0)} MB, CPU ${p.cpuSeconds.toFixed(1)} s`,
    ),
  ].join('\n');
}
