import { describe, expect, it, vi } from 'vitest';
import type { LedgerEntry } from '../../../lambdas/core/state/call-ledger.js';
import { chunkBooks } from '../../../lambdas/core/state/chunk-books.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';
import { checkChunkBooks, reportBreaches } from '../../../lambdas/core/worker/chunk-books-check.js';

const entry = (e: Partial<LedgerEntry>) => ({ jobId: 'j-1', chunk: 4, ...e }) as LedgerEntry;
const stage = (cp: Partial<Checkpoint>) =>
  ({ jobId: 'j-1', chunk: 4, stage: 'analyze', ...cp }) as Checkpoint;

describe('chunkBooks', () => {
  const ledger = [
    entry({ status: 'done', cost: 300 }),
    entry({ status: 'failed', cost: 18 }),
    entry({ status: 'retryable', cost: 0, reservation: 9_000, retiredFrom: 'w:1' }),
  ];

  it('holds for a stage that returned its allotment, left no intent and accounted its ledger', () => {
    expect(chunkBooks(stage({ allotment: 0, spentAccounted: 318 }), ledger)).toEqual([]);
    // A stage that never took money has no allotment at all.
    expect(chunkBooks(stage({}), [])).toEqual([]);
  });

  it('names an allotment left, above or below zero, with its holder', () => {
    const owner = 'worker:28931:a3aad335:2';
    expect(chunkBooks(stage({ allotment: -90, allotmentOwner: owner, spentAccounted: 318 }), ledger)).toEqual(
      [
        {
          kind: 'allotment-left',
          jobId: 'j-1',
          chunk: 4,
          detail: `the analyze stage still holds -90 µ$ for ${owner}`,
        },
      ],
    );
    expect(chunkBooks(stage({ allotment: 5, spentAccounted: 318 }), ledger).map((b) => b.kind)).toEqual([
      'allotment-left',
    ]);
  });

  it('names intents still in flight, by holder', () => {
    const inFlight = [
      ...ledger,
      entry({ status: 'in-flight', ownerFence: 'w:2', reservation: 70_000 }),
      entry({ status: 'in-flight', ownerFence: 'w:2', reservation: 70_000 }),
    ];
    expect(chunkBooks(stage({ allotment: 0, spentAccounted: 318 }), inFlight)).toEqual([
      { kind: 'intent-in-flight', jobId: 'j-1', chunk: 4, detail: '2 intent(s) still in flight, of w:2' },
    ]);
  });

  it('names a ledger whose settled cost the job was not told, either way', () => {
    expect(chunkBooks(stage({ allotment: 0, spentAccounted: 228 }), ledger)).toEqual([
      {
        kind: 'spend-unaccounted',
        jobId: 'j-1',
        chunk: 4,
        detail: 'the ledger holds 318 µ$ settled, the job was told 228 µ$',
      },
    ]);
    expect(chunkBooks(stage({ allotment: 0, spentAccounted: 400 }), ledger)).toHaveLength(1);
  });
});

describe('reportBreaches and checkChunkBooks', () => {
  it('logs each breach and counts it, reading the analyze checkpoint and the ledger when not given', async () => {
    const log = vi.fn();
    const books = vi.fn();
    const sink = { log, metrics: { books } as never };
    const claims = {
      get: vi.fn(async () => stage({ allotment: -90, allotmentOwner: 'w:2', spentAccounted: 318 })),
    };
    const forChunk = vi.fn(async () => new Map(ledger().map((e, i) => [`c${i}`, e])));
    const breaches = await checkChunkBooks({ claims, ledger: { forChunk } }, sink, {
      jobId: 'j-1',
      chunk: 4,
    });
    expect(claims.get).toHaveBeenCalledWith('j-1', 4, 'analyze');
    expect(forChunk).toHaveBeenCalledWith('j-1', 4);
    expect(breaches.map((b) => b.kind)).toEqual(['allotment-left', 'intent-in-flight']);
    expect(books.mock.calls).toEqual([[{ kind: 'allotment-left' }], [{ kind: 'intent-in-flight' }]]);
    expect(log).toHaveBeenCalledWith(
      'books-breach',
      expect.objectContaining({ kind: 'allotment-left', chunk: 4 }),
    );
    // Entries already read are used as they are.
    await checkChunkBooks({ claims, ledger: { forChunk } }, sink, { jobId: 'j-1', chunk: 4 }, new Map());
    expect(forChunk).toHaveBeenCalledOnce();
  });

  it('reports nothing for books that hold', () => {
    const log = vi.fn();
    reportBreaches({ log }, []);
    expect(log).not.toHaveBeenCalled();
  });
});

function ledger(): LedgerEntry[] {
  return [
    entry({ status: 'done', cost: 318 }),
    entry({ status: 'in-flight', ownerFence: 'w:2', reservation: 70_000 }),
  ];
}
