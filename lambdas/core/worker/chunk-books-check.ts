import type { PipelineMetrics } from '../metrics/index.js';
import type { CallLedger, LedgerEntry } from '../state/call-ledger.js';
import { type BooksBreach, chunkBooks } from '../state/chunk-books.js';
import type { Claims } from '../state/claims.js';

/** Where a breach of a chunk's money books goes. */
export interface BreachSink {
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
  readonly metrics?: PipelineMetrics;
}

/**
 * Logs each breach at its own event and counts it (`BooksBreaches`, whose alarm fires on the
 * first): a breach is a defect of the money's bookkeeping, never an expected outcome.
 */
export function reportBreaches(sink: BreachSink, breaches: readonly BooksBreach[]): void {
  for (const b of breaches) {
    sink.log?.('books-breach', { ...b });
    sink.metrics?.books({ kind: b.kind });
  }
}

/**
 * Checks the books of a chunk whose analyze stage has ended (`chunkBooks`), from its analyze
 * checkpoint and its ledger (`entries` when the caller has read it already), and reports what
 * breaks. Returns the breaches.
 */
export async function checkChunkBooks(
  tables: { readonly claims: Pick<Claims, 'get'>; readonly ledger: Pick<CallLedger, 'forChunk'> },
  sink: BreachSink,
  at: { readonly jobId: string; readonly chunk: number },
  entries?: ReadonlyMap<string, LedgerEntry>,
): Promise<BooksBreach[]> {
  const [analyze, ledger] = await Promise.all([
    tables.claims.get(at.jobId, at.chunk, 'analyze'),
    entries ?? tables.ledger.forChunk(at.jobId, at.chunk),
  ]);
  const breaches = analyze ? chunkBooks(analyze, ledger.values()) : [];
  reportBreaches(sink, breaches);
  return breaches;
}
