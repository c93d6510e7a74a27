import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { type AnalystDefinition, buildConverseInput } from '../../analysts/index.js';
import type { DocumentContext } from '../../documents/document-context.js';
import type { Clause, Lane } from '../../model.js';
import type { Allotments } from '../../state/allotments.js';
import { type CallRef, type Intent, isFinalFor, type LedgerEntry } from '../../state/call-ledger.js';
import type { BooksBreach } from '../../state/chunk-books.js';
import {
  type CallCounts,
  type Checkpoint,
  type Lease,
  leaseOwner,
  type UnstartedCall,
} from '../../state/claims.js';
import { isAllotmentOverdrawnError, isLeaseLostError } from '../../state/errors.js';
import type { Job } from '../../state/job.js';
import type { Jobs } from '../../state/jobs.js';
import { callSk } from '../../state/keys.js';
import { takeOver } from '../../state/takeover.js';
import {
  type CallDeps,
  type CallResult,
  type ChunkCalls,
  firstInput,
  idempotencyKeyOf,
  makeCall,
} from '../call.js';
import { ChunkBudget } from '../chunk-budget.js';
import { type ChunkStop, type StopReason, unstartedReason } from '../chunk-stop.js';
import { IntentWindow } from '../intent-window.js';
import type { JobGate } from '../job-gate.js';
import type { Semaphore } from '../semaphore.js';
import { worstCaseCost } from '../worst-case.js';

/** What the analyze stage needs beyond a call's dependencies. */
export interface AnalyzeDeps extends CallDeps {
  readonly jobs: Jobs;
  readonly allotments: Allotments;
  /** Bounds the calls of this chunk in flight at once. */
  readonly semaphore: Semaphore;
  readonly lane: Lane;
  /** This job's call-start gate, shared with the process's other chunks of the job. */
  readonly gate: JobGate;
  /**
   * A call starts only while the lease has at least this long left: a margin for clock skew
   * between workers. @default a tenth of the lease, at most 1 s
   */
  readonly leaseMarginMs?: number;
  /** Called once every call of the chunk has started (or been given up). */
  readonly onDraining?: () => void;
  /** The relevance screen: per clause id, the analysts not asked about it (the chunk message's). */
  readonly screened?: Readonly<Record<string, readonly string[]>>;
  /** Given the stage's call counts, which change as calls end. */
  readonly onCounts?: (counts: CallCounts) => void;
  /** Told of a breach of the chunk's money books (an overdraw), to be logged and counted. */
  readonly onBreach?: (breach: BooksBreach) => void;
}

/** One (clause × analyst) call of a chunk. */
export interface PlannedCall {
  readonly ref: CallRef;
  readonly clause: Clause;
  readonly analyst: AnalystDefinition;
  /** The first attempt's request, built once for the key, the intent's worst case and the call. */
  readonly input: ConverseCommandInput;
  readonly prior: LedgerEntry | undefined;
}

/** How the analyze stage ended. A stage never throws to stop: it returns why it stopped. */
export type AnalyzeResult =
  | {
      readonly kind: 'done';
      readonly counts: CallCounts;
      readonly unstarted?: { reason: 'budget'; calls: UnstartedCall[] };
    }
  | {
      readonly kind: 'cancelled';
      readonly counts: CallCounts;
      readonly unstarted: { reason: 'cancelled'; calls: UnstartedCall[] };
    }
  /** The job was cancelled before the lease was won: no call was planned. */
  | { readonly kind: 'cancelled-before-start' }
  /** The job was paused: the calls not started wait for its resume, and the lease is given up. */
  | { readonly kind: 'paused'; readonly counts: CallCounts }
  | { readonly kind: 'retry'; readonly reason: string }
  | { readonly kind: 'lease-lost' };

/**
 * Runs every (clause × analyst) call of a chunk that the ledger does not already hold and the
 * relevance screen did not leave out. One
 * Query reads the chunk's ledger; a dead holder's allotment is returned; then the calls run
 * with bounded concurrency against the chunk's allotment, and the money left returns to the
 * job when the stage ends. When the job is cancelled or its ceiling reached, the calls not
 * started are returned as one list, for one write.
 *
 * The takeover comes first whatever the job's status: a lease won on a job cancelled since
 * still returns what a dead holder left, then ends without planning a call.
 */
export async function analyzeStage(
  job: Job,
  lease: Lease,
  checkpoint: Checkpoint,
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  deps: AnalyzeDeps,
  stop: ChunkStop,
): Promise<AnalyzeResult> {
  // Only a lease holder writes a chunk's ledger entries, and every claim counts an attempt: on
  // the first claim there is nothing to read, and most chunks skip the partition query. A later
  // claim, whatever the job's status, ends what earlier holders left in flight and settles the
  // allotment the last one left, before anything else.
  let entries: ReadonlyMap<string, LedgerEntry> = new Map();
  try {
    if (lease.attempts > 1) {
      const read = await deps.ledger.forChunk(job.jobId, lease.chunk);
      entries = (await takeOver(deps.ledger, deps.allotments, lease, checkpoint, read)).entries;
    } else await deps.allotments.recover(lease, checkpoint, []);
  } catch (error) {
    if (isLeaseLostError(error)) return { kind: 'lease-lost' };
    throw error;
  }
  if (job.status === 'cancelled') return { kind: 'cancelled-before-start' };
  const tally = new Tally(deps);
  deps.onCounts?.(tally.counts);
  const planned = planCalls(job, lease, clauses, analysts, entries, tally, deps);
  const chunk = chunkCalls(job, lease, planned, deps, stop);
  await runCalls(planned, chunk, tally, deps);
  if (stop.endsRequests) return { kind: 'lease-lost' };
  try {
    // Every call has settled: what the lease holds goes back to the job, and the intents
    // written ahead for calls that never started are ended, so none outlives the stage.
    await deps.allotments.move(lease, chunk.budget.closing(), job);
    chunk.budget.closed();
    await retireUnstarted(planned, chunk, tally, lease, deps);
  } catch (error) {
    if (isAllotmentOverdrawnError(error)) deps.onBreach?.(overdrawBreach(lease, error.message));
    if (isLeaseLostError(error)) return { kind: 'lease-lost' };
    throw error;
  }
  return tally.result(stop.reason);
}

/** An overdraw, as a breach of the chunk's books. */
function overdrawBreach(lease: Lease, detail: string): BooksBreach {
  return { kind: 'overdraw', jobId: lease.jobId, chunk: lease.chunk, detail };
}

/**
 * Ends this holder's intents for calls that never started (the ceiling, a cancel or a pause
 * stopped them after their window was written). A call stopped after an attempt already wrote
 * its entry `retryable`; the write's condition leaves it as it is.
 */
async function retireUnstarted(
  planned: readonly PlannedCall[],
  chunk: ReturnType<typeof chunkCalls>,
  tally: Tally,
  lease: Lease,
  deps: Pick<AnalyzeDeps, 'ledger'>,
): Promise<void> {
  const owner = leaseOwner(lease);
  const refs = tally.unstartedAt
    .filter((index) => chunk.intentWritten(index))
    .map((index) => ({ ...(planned[index] as PlannedCall).ref, ownerFence: owner }));
  if (refs.length === 0) return;
  await deps.ledger.retire(refs, owner, 'not started: the stage stopped before this call');
}

/** What the stage's calls came to: counts, calls not started, calls out of retries. */
class Tally {
  readonly counts = { done: 0, reused: 0, failed: 0, skipped: 0, cancelled: 0, retries: 0 };
  readonly unstarted: UnstartedCall[] = [];
  /** Positions of the calls that never started, for any reason (a pause included). */
  readonly unstartedAt: number[] = [];
  readonly exhausted: { call: CallRef; error: string }[] = [];

  constructor(private readonly deps: Pick<AnalyzeDeps, 'metrics'>) {}

  reused(modelId: string): void {
    this.counts.reused++;
    this.deps.metrics?.call({ model: modelId, outcome: 'reused' });
  }

  record(p: PlannedCall, r: CallResult, index: number): void {
    const counts = this.counts;
    if (r.kind === 'unstarted') this.unstartedAt.push(index);
    counts.retries += r.retries;
    if (r.kind === 'done') counts.done++;
    else if (r.kind === 'failed') counts.failed++;
    else if (r.kind === 'exhausted') this.exhausted.push({ call: p.ref, error: r.error });
    else if (r.kind === 'unstarted' && r.reason !== 'paused') {
      this.unstarted.push({ clauseId: p.clause.id, analystId: p.analyst.id });
      counts[r.reason === 'budget' ? 'skipped' : 'cancelled']++;
    }
    if (r.kind === 'done' || r.kind === 'failed') {
      this.deps.metrics?.call({
        model: r.modelId,
        outcome: r.kind === 'done' ? 'succeeded' : 'failed',
        retries: r.retries,
      });
    }
  }

  /** The stage's result once every call has ended and the lease's money is back. */
  result(stopped: StopReason | undefined): AnalyzeResult {
    const { counts, unstarted, exhausted } = this;
    if (stopped === 'cancelled')
      return { kind: 'cancelled', counts, unstarted: { reason: 'cancelled', calls: unstarted } };
    if (stopped === 'paused') return { kind: 'paused', counts };
    if (exhausted.length > 0) {
      const first = exhausted[0];
      return {
        kind: 'retry',
        reason: `${exhausted.length} call(s) out of tier-1 retries; first: ${first?.call.clauseId}/${first?.call.analystId}: ${first?.error}`,
      };
    }
    return {
      kind: 'done',
      counts,
      ...(unstarted.length > 0 ? { unstarted: { reason: 'budget' as const, calls: unstarted } } : {}),
    };
  }
}

/**
 * Every (clause × analyst) call the screen asks and the ledger does not hold final yet; those the
 * ledger holds count as reused, those screened are not calls at all.
 * A call's request and key are built when first needed ({@link LazyCall}): for a call with an
 * entry, to compare keys now; for the others, when their intents' window is written, so twenty
 * chunks claimed at once do not each price all their calls before the first is sent.
 */
function planCalls(
  job: Job,
  lease: Lease,
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  entries: ReadonlyMap<string, LedgerEntry>,
  tally: Tally,
  { context, screened }: Pick<AnalyzeDeps, 'context' | 'screened'>,
): PlannedCall[] {
  const planned: PlannedCall[] = [];
  for (const clause of clauses) {
    const left = screened?.[clause.id];
    for (const analyst of analysts) {
      if (left?.includes(analyst.id)) continue;
      const prior = entries.get(callSk(lease.chunk, clause.id, analyst.id));
      const call = new LazyCall(job.jobId, lease.chunk, clause, analyst, prior, context);
      if (prior && isFinalFor(prior, call.ref)) tally.reused(prior.modelId ?? analyst.modelId);
      else planned.push(call);
    }
  }
  return planned;
}

/** A planned call whose first request and idempotency key are built on first use, once. */
class LazyCall implements PlannedCall {
  private built: { input: ConverseCommandInput; ref: CallRef } | undefined;

  constructor(
    private readonly jobId: string,
    private readonly chunk: number,
    readonly clause: Clause,
    readonly analyst: AnalystDefinition,
    readonly prior: LedgerEntry | undefined,
    private readonly context: DocumentContext | undefined,
  ) {}

  get input(): ConverseCommandInput {
    return this.build().input;
  }

  get ref(): CallRef {
    return this.build().ref;
  }

  private build(): { input: ConverseCommandInput; ref: CallRef } {
    if (!this.built) {
      const input = firstInput(this.analyst, this.clause, this.context);
      const ref: CallRef = {
        jobId: this.jobId,
        chunk: this.chunk,
        clauseId: this.clause.id,
        analystId: this.analyst.id,
        idempotencyKey: idempotencyKeyOf(this.analyst, input),
      };
      this.built = { input, ref };
    }
    return this.built;
  }
}

/** What the chunk's calls share: its budget, gate, intents and stop signal. */
export function chunkCalls(
  job: Job,
  lease: Lease,
  planned: readonly PlannedCall[],
  deps: AnalyzeDeps,
  stop: ChunkStop,
): ChunkCalls & { callEnded(): void; intentWritten(index: number): boolean } {
  const owner = leaseOwner(lease);
  const window = new IntentWindow(deps.ledger, planned.length, (index): Intent => {
    const p = planned[index] as PlannedCall;
    return {
      call: p.ref,
      owner,
      reservation: intentReservation(p, deps),
      ...(p.prior ? { prior: p.prior } : {}),
    };
  });
  let callsLeft = planned.length;
  return {
    owner,
    lane: deps.lane,
    tenant: { owner: job.owner ?? '', job: job.jobId },
    budget: new ChunkBudget({
      allotments: deps.allotments,
      lease,
      job,
      markBudgetExceeded: () => deps.jobs.markBudgetExceeded(job.jobId),
      callsLeft: () => callsLeft,
      // What the chunk's calls in flight need, twice over: answered calls free their
      // reservations for the next ones, so a chunk rarely needs a second take.
      callsPerAllotment: 2 * deps.semaphore.limit,
      contendedWaitMs: deps.backoff.totalCapMs,
      onOverdraw: (overdrawn, move) =>
        deps.onBreach?.(
          overdrawBreach(
            lease,
            `spent ${move.spent} µ$ with ${overdrawn} µ$ more than the allotment held; the excess was committed on the job`,
          ),
        ),
      now: deps.now,
      sleep: deps.sleep,
      random: deps.random,
    }),
    gate: deps.gate,
    // The lease must outlast a call's start by a margin, or a new holder could take over
    // before this holder's intent is visible to it.
    leaseHeld: () => lease.expiresAt - deps.now() >= (deps.leaseMarginMs ?? 1000),
    intentOf: (index) => window.ensure(index),
    stop,
    callEnded() {
      callsLeft--;
    },
    intentWritten: (index) => window.asked(index),
  };
}

/** Runs the planned calls with bounded concurrency; a failure that is not a lost lease is thrown. */
async function runCalls(
  planned: readonly PlannedCall[],
  chunk: ReturnType<typeof chunkCalls>,
  tally: Tally,
  deps: AnalyzeDeps,
): Promise<void> {
  let notStarted = planned.length;
  if (notStarted === 0) deps.onDraining?.();
  const results = await Promise.allSettled(
    planned.map((p, index) =>
      deps.semaphore.run(async () => {
        if (--notStarted === 0) deps.onDraining?.();
        const stopped = chunk.stop.reason;
        if (stopped) {
          const reason =
            stopped === 'lease-lost' || stopped === 'deadline' ? 'cancelled' : unstartedReason(stopped);
          tally.record(p, { kind: 'unstarted', reason, modelId: p.analyst.modelId, retries: 0 }, index);
          return;
        }
        const r = await makeCall({
          call: p.ref,
          index,
          clause: p.clause,
          analyst: p.analyst,
          input: p.input,
          prior: p.prior,
          chunk,
          deps,
        });
        chunk.callEnded();
        if (r.kind === 'lease-lost') chunk.stop.stop('lease-lost');
        tally.record(p, r, index);
      }),
    ),
  );
  const crashed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (crashed && !chunk.stop.endsRequests) throw crashed.reason;
}

/**
 * The worst case an intent records: the first attempt on the pricier of the analyst's two
 * models, since throttles may move the call to its fallback without another write.
 */
function intentReservation(p: PlannedCall, deps: CallDeps): number {
  let worst = 0;
  for (const modelId of new Set([p.analyst.modelId, p.analyst.fallbackModelId])) {
    try {
      const input =
        modelId === p.analyst.modelId
          ? p.input
          : buildConverseInput(p.analyst, p.clause, {
              modelId,
              ...(deps.context ? { context: deps.context } : {}),
            });
      worst = Math.max(worst, worstCaseCost(input, modelId, p.analyst.maxTokens, deps.prices));
    } catch {
      // An unpriced model fails its call before any request; it needs no reservation.
    }
  }
  return worst;
}
