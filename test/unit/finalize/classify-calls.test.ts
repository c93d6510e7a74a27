import { describe, expect, it } from 'vitest';
import { classifyCalls } from '../../../lambdas/core/finalize/classify-calls.js';
import type { StoredDocument } from '../../../lambdas/core/intake/intake.js';
import type { CallOutcome } from '../../../lambdas/core/state/call-ledger.js';
import type { Checkpoint } from '../../../lambdas/core/state/claims.js';

const doc = {
  chunks: [
    { index: 0, clauses: [{ id: 'c1' }] },
    { index: 1, clauses: [{ id: 'c2' }] },
  ],
} as unknown as Pick<StoredDocument, 'chunks' | 'screened'>;

const checkpoint = (chunk: number, over: Partial<Checkpoint>) =>
  ({ jobId: 'j', chunk, stage: 'analyze', fence: 1, attempts: 1, ...over }) as Checkpoint;

describe('classifyCalls', () => {
  it('names why a call left open never ended: its chunk’s last error, else the state the chunk ended in', () => {
    const ledger = [
      { chunk: 0, clauseId: 'c1', analystId: 'ip-counsel', status: 'in-flight', attempts: 1 },
      { chunk: 1, clauseId: 'c2', analystId: 'ip-counsel', status: 'in-flight', attempts: 1 },
    ] as unknown as CallOutcome[];
    const counts = classifyCalls(
      doc,
      ['ip-counsel'],
      [
        checkpoint(0, {
          status: 'dead',
          lastError: 'ThrottlingException after 3 receives',
          errorClass: 'transient',
        }),
        checkpoint(1, { status: 'done' }),
      ],
      ledger,
    );
    expect(counts.failed).toEqual([
      expect.objectContaining({
        chunk: 0,
        failureKind: 'not-finished',
        errorClass: 'transient',
        lastError: 'its chunk stopped: ThrottlingException after 3 receives',
      }),
      expect.objectContaining({
        chunk: 1,
        failureKind: 'not-finished',
        lastError: 'its chunk ended done with this call still open',
      }),
    ]);
    // A call's own last error wins over its chunk's.
    const own = classifyCalls(
      doc,
      ['ip-counsel'],
      [checkpoint(0, { status: 'dead', lastError: 'chunk error' })],
      [{ ...ledger[0], status: 'retryable', lastError: 'ServiceUnavailableException' } as CallOutcome],
    );
    expect(own.failed[0]?.lastError).toBe('ServiceUnavailableException');
  });
});
