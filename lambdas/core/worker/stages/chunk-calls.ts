/**
 * What the analyze stage's calls share and need: the stage's dependencies, a planned call, and
 * the chunk's common ground (its budget under the job's ceiling, the job's call gate, the
 * intents written ahead of the calls, the stop signal), with each intent's worst case.
 */
import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { type AnalystDefinition, buildConverseInput } from '../../analysts/index.js';
import type { Clause, Lane } from '../../clause.js';
import type { Allotments } from '../../state/allotments.js';
import type { CallRef, Intent, LedgerEntry } from '../../state/call-ledger.js';
import type { BooksBreach } from '../../state/chunk-books.js';
import { type CallCounts, type Lease, leaseOwner } from '../../state/claims.js';
import type { Job } from '../../state/job.js';
import type { Jobs } from '../../state/jobs.js';
import type { CallDeps, ChunkCalls } from '../call-types.js';
import { ChunkBudget } from '../chunk-budget.js';
import type { ChunkStop } from '../chunk-stop.js';
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

/** An overdraw, as a breach of the chunk's books. */
export function overdrawBreach(lease: Lease, detail: string): BooksBreach {
  return { kind: 'overdraw', jobId: lease.jobId, chunk: lease.chunk, detail };
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
