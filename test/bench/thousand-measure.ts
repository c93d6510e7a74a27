/**
 * The `thousand` bench's arithmetic, as pure functions of what the table holds and what the
 * bench saw, so each can be tested on its own: percentiles, the upload schedule of a hot owner
 * among quiet ones, the pickup latency of a chunk stage counted only while a worker slot
 * was free, and the run's violations.
 */
import type { Checkpoint } from '../../lambdas/core/state/claims.js';
import { checkRepeats, checkSpend, type Violation } from '../soak/checks.js';

/** Nearest-rank percentile (`p` in 0..100) of some values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100]; got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** p50, p95 and p99 of some durations, and how many there were. */
export interface Spread {
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
}

export function spread(values: readonly number[]): Spread {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
  };
}

/** One planned upload: whose, which contract, and when after the run's start. */
export interface PlannedUpload {
  readonly index: number;
  /** 0 is the hot owner; 1.. the quiet ones. */
  readonly owner: number;
  readonly file: string;
  readonly atMs: number;
}

/**
 * `jobs` uploads spread evenly over `windowMs`: the hot owner (0) gets `hotShare` of them, the
 * quiet owners (1..owners-1) the rest in turn, interleaved evenly among the hot ones; contracts
 * are taken in turn.
 */
export function planUploads(
  jobs: number,
  owners: number,
  hotShare: number,
  windowMs: number,
  files: readonly string[],
): PlannedUpload[] {
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new RangeError(`jobs must be a whole number ≥ 1; got ${jobs}`);
  if (!Number.isInteger(owners) || owners < 2) throw new RangeError(`owners must be ≥ 2; got ${owners}`);
  if (!(hotShare >= 0 && hotShare <= 1)) throw new RangeError(`hotShare must be in [0, 1]; got ${hotShare}`);
  if (files.length === 0) throw new RangeError('no contracts to upload');
  const quiet = jobs - Math.round(jobs * hotShare);
  let quietSoFar = 0;
  return Array.from({ length: jobs }, (_, index) => {
    // Position `index` is a quiet owner's when the quiet share's running count steps up there.
    const isQuiet = Math.floor(((index + 1) * quiet) / jobs) > Math.floor((index * quiet) / jobs);
    const owner = isQuiet ? 1 + (quietSoFar++ % (owners - 1)) : 0;
    return {
      index,
      owner,
      file: files[index % files.length] as string,
      atMs: jobs === 1 ? 0 : Math.round((index * windowMs) / (jobs - 1)),
    };
  });
}

/** A stretch of time a worker slot was held, epoch ms. */
export interface Busy {
  readonly from: number;
  readonly to: number;
}

/** The number of slots held from each step's time on, in time order. */
export type Occupancy = readonly { readonly at: number; readonly held: number }[];

export function occupancy(busy: readonly Busy[]): Occupancy {
  const edges: [number, number][] = [];
  for (const b of busy) {
    if (b.to <= b.from) continue;
    edges.push([b.from, 1], [b.to, -1]);
  }
  // Ends before starts at the same instant: a slot given back can be taken at once.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const steps: { at: number; held: number }[] = [];
  let held = 0;
  for (const [at, d] of edges) {
    held += d;
    const last = steps.at(-1);
    if (last?.at === at) last.held = held;
    else steps.push({ at, held });
  }
  return steps;
}

/** The index of the last step at or before `at` (binary search); -1 before the first. */
function stepAt(steps: Occupancy, at: number): number {
  let lo = 0;
  let hi = steps.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((steps[mid] as { at: number }).at <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The slots held at `at`: none before the first step. */
function heldAt(steps: Occupancy, at: number): number {
  const i = stepAt(steps, at);
  return i >= 0 ? (steps[i] as { held: number }).held : 0;
}

/** Milliseconds of [from, to] during which fewer than `slots` slots were held. */
export function freeTime(steps: Occupancy, from: number, to: number, slots: number): number {
  if (to <= from) return 0;
  let i = stepAt(steps, from);
  let at = from;
  let free = 0;
  while (at < to) {
    const held = i >= 0 ? (steps[i] as { held: number }).held : 0;
    const next = Math.min(to, steps[i + 1]?.at ?? to);
    if (held < slots) free += next - at;
    at = next;
    i++;
  }
  return free;
}

/** The stretch from a stage ready to be claimed to its claim, epoch ms. */
export interface Pickup {
  readonly stage: 'analyze' | 'consolidate';
  readonly readyAt: number;
  readonly claimedAt: number;
  /** An analyze stage's message received by a worker slot (a consolidate runs in the slot it has). */
  readonly receivedAt?: number;
}

/** One delivery of a chunk message to a worker slot, as the queue's client saw it (epoch ms). */
export interface Delivery {
  readonly jobId: string;
  readonly chunk: number;
  /** SQS's `SentTimestamp`: when the message was sent. */
  readonly sentAt: number;
  readonly receivedAt: number;
  /** SQS's `ApproximateReceiveCount`. */
  readonly receiveCount: number;
  /** When the slot deleted it (the delivery's end); absent when it was left to come back. */
  doneAt?: number;
}

const ms = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN);

/**
 * The pickups and the slots held, from the deliveries and each job's checkpoints: a chunk's
 * analyze stage is ready when its message was first sent and claimed at the stage's first
 * `startedAt`; its consolidate stage is ready when analyze finished. A delivery holds its slot
 * from its receipt to its deletion (or, left to come back, to the chunk's last recorded end).
 */
export function pickupsOf(
  deliveries: readonly Delivery[],
  checkpoints: ReadonlyMap<string, readonly Checkpoint[]>,
): { pickups: Pickup[]; busy: Busy[] } {
  const pickups: Pickup[] = [];
  const busy: Busy[] = [];
  const stage = (jobId: string, chunk: number, name: Checkpoint['stage']) =>
    checkpoints.get(jobId)?.find((cp) => cp.chunk === chunk && cp.stage === name);
  for (const d of deliveries) {
    const analyze = stage(d.jobId, d.chunk, 'analyze');
    const consolidate = stage(d.jobId, d.chunk, 'consolidate');
    const end = d.doneAt ?? ms(consolidate?.finishedAt ?? analyze?.finishedAt);
    if (Number.isFinite(end)) busy.push({ from: d.receivedAt, to: Math.max(d.receivedAt, end) });
    const claimed = ms(analyze?.startedAt);
    if (d.receiveCount === 1 && Number.isFinite(claimed))
      pickups.push({
        stage: 'analyze',
        readyAt: d.sentAt,
        claimedAt: Math.max(d.sentAt, claimed),
        receivedAt: d.receivedAt,
      });
  }
  for (const cps of checkpoints.values()) {
    for (const c of cps) {
      if (c.stage !== 'consolidate') continue;
      const done = ms(stage(c.jobId, c.chunk, 'analyze')?.finishedAt);
      const next = ms(c.startedAt);
      if (Number.isFinite(done) && Number.isFinite(next))
        pickups.push({ stage: 'consolidate', readyAt: done, claimedAt: Math.max(done, next) });
    }
  }
  return { pickups, busy };
}

/**
 * Pickup latency per stage:
 * - `whole`: ready → claimed, every pickup;
 * - `free`: only the part of each wait during which fewer than `slots` slots were held; while
 *   the lane is saturated this adds up the moments other slots spend between one message and the
 *   next, so a message that waits behind a backlog collects them;
 * - `withSlot`: ready → claimed of the analyze stages that became ready when the lane had a slot
 *   for them (slots held plus messages already waiting fewer than `slots`): the latency of a
 *   pickup that capacity did not hold back. A consolidate stage runs in its chunk's own slot, so
 *   every one had a slot: its `withSlot` is its `whole`.
 */
export function pickupLatency(
  pickups: readonly Pickup[],
  busy: readonly Busy[],
  slots: number,
): Record<Pickup['stage'], { free: Spread; whole: Spread; withSlot: Spread }> {
  const steps = occupancy(busy);
  // For each analyze stage, the messages sent before it (in send order, ties in the order given)
  // and not yet received when it was sent.
  const sent = pickups.filter((p) => p.stage === 'analyze').sort((a, b) => a.readyAt - b.readyAt);
  const ahead = new Map<Pickup, number>();
  sent.forEach((p, i) => {
    let n = 0;
    for (let j = 0; j < i; j++)
      if (((sent[j] as Pickup).receivedAt ?? Number.POSITIVE_INFINITY) > p.readyAt) n++;
    ahead.set(p, n);
  });
  const free = { analyze: [] as number[], consolidate: [] as number[] };
  const whole = { analyze: [] as number[], consolidate: [] as number[] };
  const withSlot = { analyze: [] as number[], consolidate: [] as number[] };
  for (const p of pickups) {
    const wait = p.claimedAt - p.readyAt;
    free[p.stage].push(freeTime(steps, p.readyAt, p.claimedAt, slots));
    whole[p.stage].push(wait);
    if (p.stage === 'consolidate') withSlot.consolidate.push(wait);
    else if (heldAt(steps, p.readyAt) + (ahead.get(p) ?? 0) < slots) withSlot.analyze.push(wait);
  }
  return {
    analyze: { free: spread(free.analyze), whole: spread(whole.analyze), withSlot: spread(withSlot.analyze) },
    consolidate: {
      free: spread(free.consolidate),
      whole: spread(whole.consolidate),
      withSlot: spread(withSlot.consolidate),
    },
  };
}

/** Upload to the first finding readable (the first chunk consolidated), ms; undefined if none. */
export function firstFindingMs(uploadedAt: number, checkpoints: readonly Checkpoint[]): number | undefined {
  const ends = checkpoints
    .filter((cp) => cp.stage === 'consolidate' && cp.status === 'done')
    .map((cp) => ms(cp.finishedAt))
    .filter(Number.isFinite);
  return ends.length ? Math.min(...ends) - uploadedAt : undefined;
}

/** How many violations a run's figures are allowed to name; the count covers them all. */
export const VIOLATIONS_NAMED = 50;

/**
 * A run's violations: every job's (accounting, ceilings, uploads), calls billed twice, and the
 * stand-in's bill over what the jobs recorded. `count` is all of them; `named` the first
 * {@link VIOLATIONS_NAMED}, for the report.
 */
export function runViolations(
  jobs: readonly Violation[],
  successes: Parameters<typeof checkRepeats>[0],
  billedMicros: number,
  recordedMicros: number,
): { readonly count: number; readonly named: Violation[]; readonly billedTwice: number } {
  const repeats = checkRepeats(successes, 0);
  const all = [...jobs, ...repeats.violations, ...checkSpend(billedMicros, recordedMicros)];
  return { count: all.length, named: all.slice(0, VIOLATIONS_NAMED), billedTwice: repeats.repeated };
}
