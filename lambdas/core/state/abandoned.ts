import type { LedgerEntry } from './call-ledger.js';
import type { Checkpoint } from './checkpoint.js';

/** Sum of the settled cost the ledger holds for a chunk. */
export function totalCost(entries: Iterable<LedgerEntry>): number {
  let sum = 0;
  for (const e of entries) sum += e.cost ?? 0;
  return sum;
}

/**
 * True for an attempt of `owner` whose outcome is unknown: its intent still in flight, or ended
 * by a takeover that has not yet settled `owner`'s allotment (it keeps the reservation).
 */
function isUnknownOf(e: LedgerEntry, owner: string | undefined): boolean {
  if (owner === undefined) return false;
  if (e.status === 'in-flight') return e.ownerFence === owner;
  return e.status === 'retryable' && e.retiredFrom === owner;
}

/** What a gone holder may have spent, in its two parts. */
export interface AbandonedSpend {
  /** Everything counted as spent. */
  readonly spent: number;
  /** Of it, reservations of intents whose outcome is unknown, counted at their worst case. */
  readonly unknown: number;
}

/**
 * What a gone holder may have spent of its allotment: the ledger's settled cost not yet
 * accounted, in full (it was billed, even if the holder's books let it spend beyond what it
 * held), plus the reservation of every intent it left in flight (the call's outcome is unknown,
 * so it counts at its worst case; also one a takeover ended, see `CallLedger.retire`) up to what
 * the allotment has left after the settled cost.
 */
export function abandonedSpend(
  checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
  entries: Iterable<LedgerEntry>,
): AbandonedSpend {
  const list = [...entries];
  const held = checkpoint.allotment ?? 0;
  let inFlight = 0;
  for (const e of list) if (isUnknownOf(e, checkpoint.allotmentOwner)) inFlight += e.reservation ?? 0;
  const settled = Math.max(0, totalCost(list) - (checkpoint.spentAccounted ?? 0));
  const unknown = Math.min(inFlight, Math.max(0, held - settled));
  return { spent: settled + unknown, unknown };
}

/** Expression parts that return a gone holder's allotment (see {@link abandonedReturn}). */
export interface AbandonedReturn extends AbandonedSpend {
  readonly checkpointSet: string;
  readonly checkpointRemove: string;
  readonly checkpointCondition: string;
  readonly jobSet: string;
  /** Values of the checkpoint's and the job's expressions, apart: DynamoDB refuses unused ones. */
  readonly checkpointValues: Record<string, unknown>;
  readonly jobValues: Record<string, unknown>;
}

/**
 * The parts of one transaction that settle a gone holder's allotment with the job: on the
 * checkpoint, the allotment goes to 0, the ledger's cost is marked accounted and the
 * reservations counted without an outcome are added to `spentUnknown`, on condition that the
 * allotment and its holder are still the ones read; on the job, the allotment leaves
 * `costReserved` and what the holder may have spent joins `costSpent`. An allotment below zero
 * (a holder that spent more than it held) is brought back to zero the same way, the excess
 * committed on the job. Used when a new holder takes the lease over, and when a chunk is marked
 * dead without one. Undefined when there is nothing to settle.
 */
export function abandonedReturn(
  checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
  entries: Iterable<LedgerEntry>,
): AbandonedReturn | undefined {
  const list = [...entries];
  const held = checkpoint.allotment ?? 0;
  const owner = checkpoint.allotmentOwner;
  const { spent, unknown } = abandonedSpend(checkpoint, list);
  if (held === 0 && spent === 0) return undefined;
  return {
    spent,
    unknown,
    checkpointSet:
      'allotment = :zero, spentAccounted = :ledger, spentUnknown = if_not_exists(spentUnknown, :zero) + :unknown',
    checkpointRemove: 'allotmentOwner',
    checkpointCondition: [
      held === 0 ? '(attribute_not_exists(allotment) OR allotment = :held)' : 'allotment = :held',
      owner ? 'allotmentOwner = :goneOwner' : 'attribute_not_exists(allotmentOwner)',
    ].join(' AND '),
    jobSet:
      'costCommitted = costCommitted + :committed, costReserved = costReserved - :held, costSpent = costSpent + :spent',
    checkpointValues: {
      ':zero': 0,
      ':ledger': totalCost(list),
      ':unknown': unknown,
      ':held': held,
      ...(owner ? { ':goneOwner': owner } : {}),
    },
    jobValues: { ':committed': spent - held, ':held': held, ':spent': spent },
  };
}
