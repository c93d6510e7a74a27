import { totalCost } from './abandoned.js';
import type { LedgerEntry } from './call-ledger.js';
import type { Checkpoint } from './checkpoint.js';

/**
 * A broken promise of a chunk's money, found where it happens:
 * - `allotment-left`: a stage ended with an allotment that no holder will return;
 * - `intent-in-flight`: a call's intent outlived its chunk, money the job's books may still count;
 * - `spend-unaccounted`: the ledger's settled cost and what the job was told it spent differ;
 * - `overdraw`: a move would have taken an allotment below zero (the chunk spent more than it
 *   held, or its books and the table's disagreed).
 */
export type BooksBreachKind = 'allotment-left' | 'intent-in-flight' | 'spend-unaccounted' | 'overdraw';

/** One breach, with what a person needs to find it. */
export interface BooksBreach {
  readonly kind: BooksBreachKind;
  readonly jobId: string;
  readonly chunk: number;
  readonly detail: string;
}

/**
 * The books of a chunk whose analyze stage has ended, checked when the chunk is consolidated (its
 * ledger is read then anyway): the stage holds no allotment, no intent is in flight, and the
 * ledger's settled cost is what the stage accounted to the job. An empty list when they hold.
 */
export function chunkBooks(
  analyze: Pick<Checkpoint, 'jobId' | 'chunk' | 'allotment' | 'allotmentOwner' | 'spentAccounted'>,
  entries: Iterable<LedgerEntry>,
): BooksBreach[] {
  const list = [...entries];
  const breach = (kind: BooksBreachKind, detail: string): BooksBreach => ({
    kind,
    jobId: analyze.jobId,
    chunk: analyze.chunk,
    detail,
  });
  const out: BooksBreach[] = [];
  const held = analyze.allotment ?? 0;
  if (held !== 0) {
    out.push(
      breach('allotment-left', `the analyze stage still holds ${held} µ$ for ${analyze.allotmentOwner}`),
    );
  }
  const inFlight = list.filter((e) => e.status === 'in-flight');
  if (inFlight.length > 0) {
    const owners = [...new Set(inFlight.map((e) => e.ownerFence ?? '?'))].join(', ');
    out.push(breach('intent-in-flight', `${inFlight.length} intent(s) still in flight, of ${owners}`));
  }
  const ledger = totalCost(list);
  const accounted = analyze.spentAccounted ?? 0;
  if (ledger !== accounted) {
    out.push(
      breach('spend-unaccounted', `the ledger holds ${ledger} µ$ settled, the job was told ${accounted} µ$`),
    );
  }
  return out;
}
