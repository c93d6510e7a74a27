import type { AbandonedSpend } from './abandoned.js';
import type { Allotments } from './allotments.js';
import type { CallLedger, LedgerEntry } from './call-ledger.js';
import { type Checkpoint, type Lease, leaseOwner } from './claims.js';

/** Why a fenced-off holder's intent was ended, as its ledger entry says. */
export const FENCED_OFF =
  'its holder lost the lease before recording an outcome; counted at its reservation, called again by the next holder';

/** What a takeover leaves: the chunk's ledger as the new holder plans from it, and what it counted. */
export interface Takeover {
  readonly entries: Map<string, LedgerEntry>;
  readonly counted: AbandonedSpend;
}

/**
 * What a new holder of a chunk-stage does first with the ledger it read: it ends every intent an
 * earlier holder left in flight, so that holder can record no outcome the takeover does not count
 * (an intent it settled just before is counted at its cost instead; one it moved on to a repair
 * attempt, with that attempt's cost and reservation), then settles the allotment
 * the last holder left (`Allotments.recover`), counting the ended intents at their reservations.
 * Returns the ledger with those intents as they now stand. Throws LeaseLostError when the lease
 * is gone.
 */
export async function takeOver(
  ledger: Pick<CallLedger, 'retire'>,
  allotments: Pick<Allotments, 'recover'>,
  lease: Lease,
  checkpoint: Pick<Checkpoint, 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
  read: ReadonlyMap<string, LedgerEntry>,
): Promise<Takeover> {
  const me = leaseOwner(lease);
  const gone = [...read.values()].filter((e) => e.status === 'in-flight' && e.ownerFence !== me);
  const stand =
    gone.length > 0 ? await ledger.retire(gone, me, FENCED_OFF, { keepReservation: true }) : new Map();
  const entries = new Map(read);
  for (const [sk, e] of stand) entries.set(sk, e);
  const counted = await allotments.recover(lease, checkpoint, entries.values());
  return { entries, counted };
}
