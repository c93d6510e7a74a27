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
import { type Job, TERMINAL_STATUSES } from '../../lambdas/core/state/job.js';
import { repeatedAnswers } from '../../localstack/bedrock/accounting.js';

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

/** The statuses a job ends in. */
export const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

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
 * never reached the ledger (a worker that died before recording it, an answer after the model
 * timeout) is made again; `bound` is how many such attempts the run can explain (the soak: its
 * ledgers' `unanswered` attempts).
 */
export function checkRepeats(
  successes: Readonly<Record<string, { readonly count: number }>>,
  bound: number,
): { repeated: number; violations: Violation[] } {
  const repeated = repeatedAnswers({ successes });
  return {
    repeated,
    violations:
      repeated > bound
        ? [
            {
              jobId: '*',
              check: 'billed-once',
              detail: `${repeated} repeated answers, more than the ${bound} the run can explain`,
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

/** Calls of many jobs by where they ended, as their reports' coverage counts them. */
export interface CallTally {
  planned: number;
  done: number;
  failed: number;
  skipped: number;
  cancelled: number;
  screened: number;
  notRun: number;
}

/** A tally with nothing counted yet. */
export const emptyCallTally = (): CallTally => ({
  planned: 0,
  done: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
  screened: 0,
  notRun: 0,
});

/** Adds one report's coverage to `tally`. */
export function addCoverage(tally: CallTally, c: Report['coverage']): void {
  tally.planned += c.callsPlanned;
  tally.done += c.callsDone;
  tally.failed += c.callsFailed;
  tally.skipped += c.callsSkippedBudget;
  tally.cancelled += c.callsCancelled;
  tally.screened += c.callsScreened;
  tally.notRun += c.callsNotRun;
}

/** The 99th percentile (nearest rank) of some durations. */
export function p99(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] ?? Number.NaN;
}
