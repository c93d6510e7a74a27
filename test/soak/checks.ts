/**
 * What the soak holds every job to once the run is over, as pure functions of what the table,
 * the report and the stand-in's books say, so each check can be tested on its own.
 */

import { classifyCalls } from '../../lambdas/core/finalize/build-report.js';
import type { StoredDocument } from '../../lambdas/core/intake/stored-document.js';
import type { Report } from '../../lambdas/core/report-types.js';
import type { LedgerEntry } from '../../lambdas/core/state/call-ledger.js';
import { chunkBooks } from '../../lambdas/core/state/chunk-books.js';
import type { Checkpoint } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/job.js';
import type { TrailEntry } from './slot-trail.js';

/** One broken promise, with where it broke. */
export interface Violation {
  readonly jobId: string;
  readonly chunk?: number;
  readonly check: string;
  readonly detail: string;
  /** What the table said about the broken piece, for tracing it after the stack is gone. */
  readonly evidence?: string;
}

/** Everything the soak read about one job at the end. */
export interface JobFacts {
  readonly jobId: string;
  readonly job: Job | undefined;
  readonly report?: Report;
  readonly doc?: Pick<StoredDocument, 'chunks' | 'screened'>;
  readonly checkpoints: readonly Checkpoint[];
  readonly ledger: readonly LedgerEntry[];
  /** What the soak did to the job (for the checks that depend on it). */
  readonly cancelled: boolean;
}

/**
 * Where an unfinished job's chunk-stages stand, so a job left running at the bound says
 * whether it was slow or stuck: the stages by status, and each unfinished one with its
 * holder, lease and last change.
 */
export function standing(checkpoints: readonly Checkpoint[], now = Date.now()): string {
  const byStatus: Record<string, number> = {};
  for (const cp of checkpoints) byStatus[cp.status] = (byStatus[cp.status] ?? 0) + 1;
  const open = checkpoints
    .filter((cp) => cp.status !== 'done' && cp.status !== 'cancelled' && cp.status !== 'dead')
    .slice(0, 6)
    .map((cp) => {
      const lease =
        cp.claimExpiresAt !== undefined
          ? `lease ${cp.claimExpiresAt > now ? 'held' : 'expired'} ${Math.round(Math.abs(cp.claimExpiresAt - now) / 1000)} s`
          : 'no lease';
      const last = [cp.startedAt, cp.failedAt, cp.sweptAt, cp.redrivenAt, cp.resumedAt, cp.pausedAt]
        .filter((t): t is string => t !== undefined)
        .sort()
        .at(-1);
      const since = last ? `, last change ${Math.round((now - Date.parse(last)) / 1000)} s ago` : '';
      return `${cp.stage} ${cp.chunk} ${cp.status} (attempts ${cp.attempts}, ${lease}${since})`;
    });
  const counts = Object.entries(byStatus)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `stages ${counts || 'none'}${open.length ? `; open: ${open.join('; ')}` : ''}`;
}

/**
 * A chunk-stage left holding money, as the table has it: the checkpoint's claim, fence and
 * money fields, and its chunk's ledger by status and holder, with what each holder still has
 * reserved.
 */
export function held(cp: Checkpoint, ledger: readonly LedgerEntry[]): string {
  const fields = (
    [
      'status',
      'claimedBy',
      'fence',
      'attempts',
      'allotment',
      'allotmentOwner',
      'spentAccounted',
      'startedAt',
      'finishedAt',
      'failedAt',
      'sweeps',
      'sweptAt',
      'redrives',
      'redrivenAt',
      'errorClass',
      'lastError',
      'stoppedAt',
    ] as const
  )
    .filter((k) => cp[k] !== undefined)
    .map((k) => `${k}=${String(cp[k])}`);
  const rows: Record<string, { n: number; cost: number; reserved: number }> = {};
  for (const e of ledger) {
    if (e.chunk !== cp.chunk) continue;
    const key = `${e.status}@${e.ownerFence ?? '-'}`;
    const row = rows[key] ?? { n: 0, cost: 0, reserved: 0 };
    rows[key] = row;
    row.n++;
    row.cost += e.cost ?? 0;
    row.reserved += e.reservation ?? 0;
  }
  const ledgerRows = Object.entries(rows).map(
    ([k, r]) => `${k} ×${r.n} cost ${r.cost} reserved ${r.reserved}`,
  );
  return `${fields.join(' ')}; ledger: ${ledgerRows.join('; ') || 'none'}`;
}

const TERMINAL = new Set(['completed', 'incomplete', 'cancelled', 'budget_exceeded', 'rejected']);

/**
 * The promises one job must keep: it ended; its report accounts for every planned call, per
 * chunk and in total; what is missing is named with why; spend stayed under the ceiling; no
 * allotment was left open.
 */
export function checkJob(f: JobFacts): Violation[] {
  const out: Violation[] = [];
  const v = (check: string, detail: string, chunk?: number) =>
    out.push({ jobId: f.jobId, check, detail, ...(chunk !== undefined ? { chunk } : {}) });
  const { job } = f;
  if (!job) {
    v('terminal', 'no job item');
    return out;
  }
  if (!TERMINAL.has(job.status) || (job.status !== 'rejected' && !job.finalizedAt)) {
    v(
      'terminal',
      `status ${job.status}, finalized ${job.finalizedAt ?? 'never'}; ${standing(f.checkpoints)}`,
    );
    return out;
  }
  // Refused in intake, or cancelled while intake read a document it then refused: no plan, no
  // chunk, no report; the reason is the whole account.
  if (job.status === 'rejected' || (job.status === 'cancelled' && job.rejection && job.chunkCount === 0)) {
    if (!job.reason) v('named', `${job.status} in intake without a reason`);
    return out;
  }
  if (job.costSpent > job.ceilingMicros)
    v('ceiling', `spent ${job.costSpent} µ$ over the ceiling ${job.ceilingMicros} µ$`);
  if (job.costReserved !== 0) v('allotments', `job still holds ${job.costReserved} µ$ of allotments`);
  for (const cp of f.checkpoints) {
    if ((cp.allotment ?? 0) !== 0)
      out.push({
        jobId: f.jobId,
        chunk: cp.chunk,
        check: 'allotments',
        detail: `${cp.stage} still holds an allotment of ${cp.allotment} µ$`,
        evidence: held(cp, f.ledger),
      });
    out.push(...endedBooks(f, cp));
  }
  const report = f.report;
  if (!report) {
    out.push({
      jobId: f.jobId,
      check: 'report',
      detail: 'finalized without a readable report.json',
      evidence: `status ${job.status}, ${job.chunkCount} chunk(s), rejection ${job.rejection ?? 'none'}, reason ${job.reason ?? 'none'}`,
    });
    return out;
  }
  const c = report.coverage;
  const accounted =
    c.callsDone + c.callsFailed + c.callsSkippedBudget + c.callsCancelled + c.callsScreened + c.callsNotRun;
  if (accounted !== c.callsPlanned) {
    v(
      'accounted',
      `done ${c.callsDone} + failed ${c.callsFailed} + skipped ${c.callsSkippedBudget} + cancelled ${c.callsCancelled} + screened ${c.callsScreened} + not run ${c.callsNotRun} ≠ planned ${c.callsPlanned}`,
    );
  }
  if (c.callsNotRun > 0 && c.unfinishedChunks.length === 0) {
    v('named', `${c.callsNotRun} call(s) not run, but no unfinished chunk is named`);
  }
  for (const u of c.unfinishedChunks) {
    if (!u.detail && u.status !== 'cancelled')
      v('named', `unfinished (${u.stage} ${u.status}) with no reason`, u.chunk);
  }
  for (const failed of c.failedCalls) {
    if (!failed.lastError)
      v('named', `call ${failed.clauseId}/${failed.analystId} failed with no error`, failed.chunk);
  }
  if (report.job.status !== 'completed' && !report.job.reason)
    v('named', `${report.job.status} with no reason`);
  if (f.cancelled && report.job.status === 'completed' && !job.cancelledAt) {
    // A cancel that came after the end is refused; one recorded before it must show.
  } else if (job.cancelledAt && report.job.status !== 'cancelled') {
    v('cancel', `cancelled at ${job.cancelledAt} but reported ${report.job.status}`);
  }
  if (f.doc) out.push(...checkChunks(f, f.doc, report));
  return out;
}

/**
 * The books of a chunk a holder ended (analyze `done` or `cancelled`), as the workers check them
 * (`chunkBooks`): no intent in flight, the ledger's cost what the job was told. A chunk marked
 * dead without a holder may keep its last holder's intents; its allotment is checked above.
 */
function endedBooks(f: JobFacts, cp: Checkpoint): Violation[] {
  if (cp.stage !== 'analyze' || (cp.status !== 'done' && cp.status !== 'cancelled')) return [];
  const ledger = f.ledger.filter((e) => e.chunk === cp.chunk);
  return chunkBooks(cp, ledger)
    .filter((b) => b.kind !== 'allotment-left')
    .map((b) => ({
      jobId: f.jobId,
      chunk: cp.chunk,
      check: 'books',
      detail: b.detail,
      evidence: held(cp, ledger),
    }));
}

/** Per chunk: a chunk consolidated accounts for each of its calls; any other is named unfinished. */
function checkChunks(
  f: JobFacts,
  doc: Pick<StoredDocument, 'chunks' | 'screened'>,
  report: Report,
): Violation[] {
  const out: Violation[] = [];
  const unfinished = new Set(report.coverage.unfinishedChunks.map((u) => u.chunk));
  const analysts = report.job.analysts;
  for (const chunk of doc.chunks) {
    const planned = chunk.clauses.length * analysts.length;
    const stages = report.chunks.find((c) => c.chunk === chunk.index)?.stages;
    const ended = stages?.consolidate?.status === 'done';
    if (!ended && !unfinished.has(chunk.index)) {
      out.push({
        jobId: f.jobId,
        chunk: chunk.index,
        check: 'named',
        detail: 'not consolidated and not named unfinished',
      });
      continue;
    }
    if (!ended) continue;
    const calls = classifyCalls(
      { chunks: [chunk], ...(doc.screened ? { screened: doc.screened } : {}) },
      analysts,
      f.checkpoints,
      f.ledger,
    );
    const sum = calls.done + calls.skipped + calls.cancelled + calls.screened + calls.failed.length;
    if (sum !== planned) {
      out.push({
        jobId: f.jobId,
        chunk: chunk.index,
        check: 'accounted',
        detail: `done ${calls.done} + failed ${calls.failed.length} + skipped ${calls.skipped} + cancelled ${calls.cancelled} + screened ${calls.screened} ≠ planned ${planned}`,
      });
    }
  }
  return out;
}

/**
 * Calls answered (billed) more than once for the same question, from the stand-in's books. The
 * soak gives every job its own title, so equal questions belong to one job. A call whose answer
 * arrived in a worker that died before recording it is made again; `bound` is how many calls
 * the deaths of the run could have had in flight.
 */
export function checkRepeats(
  successes: Readonly<Record<string, { readonly count: number }>>,
  bound: number,
): { repeated: number; violations: Violation[] } {
  let repeated = 0;
  for (const e of Object.values(successes)) repeated += Math.max(0, e.count - 1);
  return {
    repeated,
    violations:
      repeated > bound
        ? [
            {
              jobId: '*',
              check: 'billed-once',
              detail: `${repeated} repeated answers; worker deaths allow at most ${bound}`,
            },
          ]
        : [],
  };
}

/** The money the stand-in billed, priced independently, never above what the jobs recorded. */
export function checkSpend(billedMicros: number, recordedMicros: number): Violation[] {
  // A micro-dollar per thousand calls of rounding, as each call is rounded to whole micro-dollars.
  return billedMicros > recordedMicros + 1
    ? [
        {
          jobId: '*',
          check: 'spend',
          detail: `the stand-in billed ${billedMicros} µ$, the jobs recorded ${recordedMicros} µ$`,
        },
      ]
    : [];
}

/** The 99th percentile (nearest rank) of some durations. */
export function p99(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] ?? Number.NaN;
}

/** What the status API answered one caller about one job, as the soak's owner probe asked it. */
export interface OwnerAnswer {
  /** The request, e.g. `GET /jobs/{id}/findings?after=`. */
  readonly route: string;
  /** `stranger`: neither owner nor administrator; `administrator`: may see every job. */
  readonly as: 'stranger' | 'administrator';
  readonly status: number;
  /** For the administrator's findings read: the clauses read over every page. */
  readonly clauses?: number;
}

/**
 * Owner separation: a stranger gets the 404 of a missing job on every route of a job, its
 * findings as they happen included; an administrator gets each, and the findings read to the
 * end are the report's clauses, every one once.
 */
export function checkOwnerSeparation(
  jobId: string,
  answers: readonly OwnerAnswer[],
  reportClauses: number | undefined,
): Violation[] {
  const out: Violation[] = [];
  for (const a of answers) {
    const want = a.as === 'stranger' ? 404 : 200;
    // A job may have no report (cancelled before finalize, held for review): 409 is its answer.
    const reportPending = a.route.endsWith('/report') && reportClauses === undefined && a.status === 409;
    if (a.status !== want && !(a.as === 'administrator' && reportPending)) {
      out.push({
        jobId,
        check: 'owner',
        detail: `${a.as} got ${a.status} from ${a.route}, expected ${want}`,
      });
    }
    if (a.clauses !== undefined && reportClauses !== undefined && a.clauses !== reportClauses) {
      out.push({
        jobId,
        check: 'owner',
        detail: `${a.route} read ${a.clauses} clause(s) to the end; the report has ${reportClauses}`,
      });
    }
  }
  return out;
}

/** An owner's slot count as its item says (`OWNER#<owner>` / `SLOTS`): jobs holding a slot, and the cap. */
export interface OwnerSlotsRead {
  readonly owner: string;
  readonly held: number;
  /** The cap intake last admitted against (absent: intake never capped this owner). */
  readonly cap?: number;
}

/** One reading of admission control during the run (each part one request, so each a snapshot). */
export interface OwnerSample {
  readonly at: number;
  readonly slots: readonly OwnerSlotsRead[];
  /** The running jobs that hold a slot, with their owners. */
  readonly holders: readonly { readonly jobId: string; readonly owner: string }[];
  /** The queued jobs, with their owners. */
  readonly queued: readonly { readonly jobId: string; readonly owner: string }[];
}

/**
 * No owner over its cap, as one reading shows it: neither the owner's count nor the running
 * jobs holding its slots above `cap`, and no count below zero. `cap` 0: no cap (only the count's
 * sign is checked).
 */
export function checkOwnerSample(sample: OwnerSample, cap: number): Violation[] {
  const out: Violation[] = [];
  const at = new Date(sample.at).toISOString();
  for (const s of sample.slots) {
    if (cap > 0 && s.held > cap)
      out.push({
        jobId: '*',
        check: 'owner-cap',
        detail: `${s.owner} held ${s.held} slots over its cap ${cap} at ${at}`,
      });
    if (s.held < 0)
      out.push({
        jobId: '*',
        check: 'owner-slots',
        detail: `${s.owner}'s slot count was ${s.held} at ${at}`,
      });
  }
  if (cap > 0) {
    const byOwner = new Map<string, string[]>();
    for (const h of sample.holders) byOwner.set(h.owner, [...(byOwner.get(h.owner) ?? []), h.jobId]);
    for (const [owner, jobIds] of byOwner) {
      if (jobIds.length > cap)
        out.push({
          jobId: '*',
          check: 'owner-cap',
          detail: `${jobIds.length} running jobs of ${owner} held slots over its cap ${cap} at ${at}`,
          evidence: jobIds.join(', '),
        });
    }
  }
  return out;
}

/**
 * How long each owner's queue waited with a slot free, over consecutive readings: the longest
 * such wait (ms) per owner. A slot given back starts the owner's next job at once, and the
 * sweeper starts any it missed, so a long wait is a start nobody made.
 */
export function freeSlotWaits(samples: readonly OwnerSample[], cap: number): Map<string, number> {
  const longest = new Map<string, number>();
  const since = new Map<string, number>();
  for (const s of samples) {
    const held = new Map(s.slots.map((o) => [o.owner, o.held]));
    const waiting = new Set(s.queued.map((q) => q.owner));
    for (const owner of new Set([...since.keys(), ...waiting])) {
      const free = waiting.has(owner) && (cap === 0 || (held.get(owner) ?? 0) < cap);
      if (!free) {
        since.delete(owner);
        continue;
      }
      const from = since.get(owner) ?? s.at;
      since.set(owner, from);
      longest.set(owner, Math.max(longest.get(owner) ?? 0, s.at - from));
    }
  }
  return longest;
}

/** The most jobs of an owner holding a slot at once, with the take that made it. */
export interface SlotPeak {
  readonly held: number;
  readonly jobId: string;
  readonly at: number;
}

/** A trail entry that took or gave back a slot. */
type SlotEntry = TrailEntry & { readonly kind: 'take' | 'release'; readonly owner: string };

const isSlotEntry = (e: TrailEntry): e is SlotEntry => e.kind === 'take' || e.kind === 'release';

/**
 * Each owner's most jobs holding a slot at once, by the trail: a take counts from its answer and
 * a give-back from its request, so the count at any point is at most what the table held then
 * (a take committed before it was answered, a give-back after it was sent).
 */
export function peakSlots(
  trail: readonly TrailEntry[],
  include: (e: SlotEntry) => boolean = () => true,
): Map<string, SlotPeak> {
  const events: { seq: number; delta: number; e: SlotEntry }[] = [];
  for (const e of trail) {
    if (e.outcome !== 'ok' || !isSlotEntry(e) || !include(e)) continue;
    events.push(e.kind === 'take' ? { seq: e.answeredSeq, delta: 1, e } : { seq: e.sentSeq, delta: -1, e });
  }
  events.sort((a, b) => a.seq - b.seq);
  const count = new Map<string, number>();
  const peaks = new Map<string, SlotPeak>();
  for (const { delta, e } of events) {
    const n = (count.get(e.owner) ?? 0) + delta;
    count.set(e.owner, n);
    if (n > (peaks.get(e.owner)?.held ?? 0)) peaks.set(e.owner, { held: n, jobId: e.jobId, at: e.at });
  }
  return peaks;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The promises of admission control, from the records once the run is over:
 * - from the trail (slot-trail.ts): no owner ever had more jobs holding a slot than its cap
 *   ({@link peakSlots}); each job took as many slots as it gave back, but for one it still
 *   holds; every job queued was started after it was queued, or ended; and none had its chunks
 *   sent (its fan-out recorded) while it waited, before it ever ran or was cancelled;
 * - from the table: each owner's count equals its jobs holding a slot, no ended job holds one,
 *   and no job is still queued.
 * An owner with a slot write of unknown outcome in the trail is left to the table's checks.
 */
export function checkAdmission(
  trail: readonly TrailEntry[],
  cap: number,
  jobs: readonly Job[],
  slots: readonly OwnerSlotsRead[],
): Violation[] {
  const byId = new Map(jobs.map((j) => [j.jobId, j]));
  const uncertain = new Set(
    trail.filter((e) => e.outcome === 'unknown' && isSlotEntry(e)).map((e) => (e as SlotEntry).owner),
  );
  const ok = trail.filter((e) => e.outcome === 'ok');
  const certain = ok.filter((e): e is SlotEntry => isSlotEntry(e) && !uncertain.has(e.owner));
  return [
    ...(cap > 0 ? capByRecords(certain, cap) : []),
    ...balanceByRecords(certain, byId),
    ...queuedByRecords(ok, byId),
    ...admissionAtEnd(jobs, slots, cap),
  ];
}

/** No owner over its cap at any point of the records. */
function capByRecords(entries: readonly SlotEntry[], cap: number): Violation[] {
  return [...peakSlots(entries)].flatMap(([owner, peak]) =>
    peak.held > cap
      ? [
          {
            jobId: peak.jobId,
            check: 'owner-cap',
            detail: `${owner} had ${peak.held} jobs holding slots over its cap ${cap} when this job took one (the records)`,
            evidence: `at ${iso(peak.at)}`,
          },
        ]
      : [],
  );
}

/** Each job took as many slots as it gave back, and one more only while it still holds one. */
function balanceByRecords(entries: readonly SlotEntry[], byId: ReadonlyMap<string, Job>): Violation[] {
  const balance = new Map<string, number>();
  for (const e of entries) balance.set(e.jobId, (balance.get(e.jobId) ?? 0) + (e.kind === 'take' ? 1 : -1));
  return [...balance].flatMap(([jobId, n]) => {
    const holds = byId.get(jobId)?.holdsSlot === true ? 1 : 0;
    if (n === holds) return [];
    return [
      {
        jobId,
        check: 'owner-slots',
        detail: `took ${n > holds ? 'more' : 'fewer'} slots than it gave back (${n} net, the job ${holds ? 'holds one' : 'holds none'}) (the records)`,
      },
    ];
  });
}

/**
 * Every job queued was started after (a take, or a move to `running` without a slot where the
 * daily spend cap alone held it, answered after the queueing was sent) or ended, and none that
 * had never run had its fan-out recorded after it was queued and before it started or was
 * cancelled.
 */
function queuedByRecords(ok: readonly TrailEntry[], byId: ReadonlyMap<string, Job>): Violation[] {
  const out: Violation[] = [];
  const takes = ok.filter((e) => e.kind === 'take' || e.kind === 'started');
  for (const q of ok) {
    if (q.kind !== 'queued') continue;
    const job = byId.get(q.jobId);
    const mine = takes.filter((t) => t.jobId === q.jobId && t.answeredSeq > q.sentSeq);
    if (mine.length === 0 && !(job && TERMINAL.has(job.status)))
      out.push({
        jobId: q.jobId,
        check: 'queued',
        detail: `queued at ${iso(q.at)} and never started or ended (now ${job?.status ?? 'missing'})`,
      });
    // Sent while it waited, before it ever ran: recorded after the queueing was answered, before
    // any start or cancel of it could have been (one sent before the fan-out was answered may
    // have come first; a cancelled job's chunks are sent for workers to end). A job that ran
    // before it was queued (a resume that found its owner full) had its chunks sent while it
    // ran, and its fan-out may be recorded after.
    const ranBefore = takes.some((t) => t.jobId === q.jobId && t.sentSeq < q.answeredSeq);
    // Started or cancelled by then: a take or cancel sent before the fan-out was answered.
    const startedBy = (f: TrailEntry) =>
      mine.some((t) => t.sentSeq < f.answeredSeq) ||
      ok.some((c) => c.kind === 'cancelled' && c.jobId === q.jobId && c.sentSeq < f.answeredSeq);
    const early = ranBefore
      ? undefined
      : ok.find(
          (f) => f.kind === 'fanned-out' && f.jobId === q.jobId && f.sentSeq > q.answeredSeq && !startedBy(f),
        );
    if (early)
      out.push({
        jobId: q.jobId,
        check: 'queued',
        detail: `its chunks were sent while it waited queued, before it ever ran (fan-out recorded at ${iso(early.at)}, queued at ${iso(q.at)})`,
        evidence: `the job's trail: ${ok
          .filter((e) => e.jobId === q.jobId)
          .sort((a, b) => a.sentSeq - b.sentSeq)
          .map((e) => `${e.kind} ${e.sentSeq}-${e.answeredSeq}`)
          .join(', ')}`,
      });
  }
  return out;
}

/** Each owner's count is its jobs holding a slot; no ended job holds one; no job is still queued. */
function admissionAtEnd(jobs: readonly Job[], slots: readonly OwnerSlotsRead[], cap: number): Violation[] {
  const out: Violation[] = [];
  const holders = new Map<string, number>();
  for (const j of jobs) {
    if (j.holdsSlot && j.owner) holders.set(j.owner, (holders.get(j.owner) ?? 0) + 1);
    if (j.holdsSlot && TERMINAL.has(j.status))
      out.push({
        jobId: j.jobId,
        check: 'slot-held',
        detail: `${j.status} and still holds a slot of ${j.owner}`,
      });
    if (j.status === 'queued')
      out.push({
        jobId: j.jobId,
        check: 'queued',
        detail: `still queued at the end (queued at ${j.queuedAt})`,
      });
  }
  for (const s of slots) {
    const n = holders.get(s.owner) ?? 0;
    if (s.held !== n)
      out.push({
        jobId: '*',
        check: 'slot-held',
        detail: `${s.owner}'s count is ${s.held} at the end, but ${n} of its jobs hold a slot`,
      });
    if (cap > 0 && s.cap !== undefined && s.cap !== cap)
      out.push({
        jobId: '*',
        check: 'owner-cap',
        detail: `${s.owner}'s item records cap ${s.cap}, not ${cap}`,
      });
  }
  return out;
}
