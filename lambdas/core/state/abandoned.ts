import type { LedgerEntry } from './call-ledger.js';
import type { Checkpoint } from './checkpoint.js';

/** Sum of the settled cost the ledger holds for a chunk. */
export function totalCost(entries: Iterable<LedgerEntry>): number {
  let sum = 0;
  for (const e of entries) sum += e.cost ?? 0;
  return sum;
}

/**
 * What a gone holder may have spent of its allotment: settled cost not yet accounted, plus the
 * reservation of every intent it left in flight (the call's outcome is unknown, so it counts
 * at its worst case), never more than the allotment.
 */
export function abandonedSpend(
  checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
  entries: Iterable<LedgerEntry>,
): number {
  const held = checkpoint.allotment ?? 0;
  let unknown = 0;
  for (const e of entries) {
    if (e.status === 'in-flight' && e.ownerFence === checkpoint.allotmentOwner) unknown += e.reservation ?? 0;
  }
  const settled = Math.max(0, totalCost(entries) - (checkpoint.spentAccounted ?? 0));
  return Math.min(held, settled + unknown);
}

/** Expression parts that return a gone holder's allotment (see {@link abandonedReturn}). */
export interface AbandonedReturn {
  /** The amount counted as spent. */
  readonly spent: number;
  readonly checkpointSet: string;
  readonly checkpointRemove: string;
  readonly checkpointCondition: string;
  readonly jobSet: string;
  /** Values of the checkpoint's and the job's expressions, apart: DynamoDB refuses unused ones. */
  readonly checkpointValues: Record<string, unknown>;
  readonly jobValues: Record<string, unknown>;
}

/**
 * The parts of one transaction that hand a gone holder's allotment back to the job: on the
 * checkpoint, the allotment goes to 0 and the ledger's cost is marked accounted, on condition
 * that the allotment and its holder are still the ones read; on the job, the allotment leaves
 * `costReserved` and what the holder may have spent joins `costSpent`. Used when a new holder
 * takes the lease over, and when a chunk is marked dead without one. Undefined when the
 * checkpoint holds no allotment.
 */
export function abandonedReturn(
  checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
  entries: Iterable<LedgerEntry>,
): AbandonedReturn | undefined {
  const held = checkpoint.allotment ?? 0;
  const owner = checkpoint.allotmentOwner;
  if (held <= 0 || !owner) return undefined;
  const list = [...entries];
  const spent = abandonedSpend(checkpoint, list);
  return {
    spent,
    checkpointSet: 'allotment = :zero, spentAccounted = :ledger',
    checkpointRemove: 'allotmentOwner',
    checkpointCondition: 'allotment = :held AND allotmentOwner = :goneOwner',
    jobSet:
      'costCommitted = costCommitted + :committed, costReserved = costReserved - :held, costSpent = costSpent + :spent',
    checkpointValues: { ':zero': 0, ':ledger': totalCost(list), ':held': held, ':goneOwner': owner },
    jobValues: { ':committed': spent - held, ':held': held, ':spent': spent },
  };
}
