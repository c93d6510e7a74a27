import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { AnalystDefinition } from '../../analysts/index.js';
import type { Clause } from '../../clause.js';
import type { DocumentContext } from '../../documents/document-context.js';
import { type CallRef, isFinalFor, type LedgerEntry } from '../../state/call-ledger.js';
import {
  type CallCounts,
  type Checkpoint,
  type Lease,
  leaseOwner,
  type UnstartedCall,
} from '../../state/claims.js';
import { isAllotmentOverdrawnError, isLeaseLostError } from '../../state/errors.js';
import type { Job } from '../../state/job.js';
import { callSk } from '../../state/keys.js';
import { takeOver } from '../../state/takeover.js';
import { makeCall } from '../call.js';
import { firstInput, idempotencyKeyOf } from '../call-key.js';
import type { CallResult } from '../call-types.js';
import { type ChunkStop, type StopReason, unstartedReason } from '../chunk-stop.js';
import { type AnalyzeDeps, chunkCalls, overdrawBreach, type PlannedCall } from './chunk-calls.js';

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
