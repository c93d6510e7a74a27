/**
 * What the soak holds the owners to: each sees only its own jobs, and admission control keeps
 * every owner within its cap, by the samples taken during the run and by the slot trail.
 */

import type { Job } from '../../lambdas/core/state/job.js';
import { TERMINAL, type Violation } from './checks.js';
import type { TrailEntry } from './slot-trail.js';

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
