/**
 * The clauses the other side changed, as they read before: from a Word document's own tracked
 * changes (its restore edits), and from the differences a comparison with our version finds;
 * chunked after the contract's; and screened alike before and after.
 */
import { describe, expect, it } from 'vitest';
import { normaliseText, parseDocument, splitClauses } from '../../../lambdas/core/documents/index.js';
import { storedClauses, withComparison } from '../../../lambdas/core/intake/intake.js';
import { quoteDocument } from '../../../lambdas/core/intake/quote.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';
import {
  afterClauseId,
  beforeChunks,
  beforeClauseId,
  beforeClauses,
  contractClauses,
  isBeforeClause,
  pairedScreen,
} from '../../../lambdas/core/negotiation/index.js';
import { chunkMessageSchema } from '../../../lambdas/core/worker/chunk-message.js';
import { del, ins, para, revisedDocx, run } from '../../helpers/docx-revisions.js';

const OURS = [
  '1. Fees. The Customer shall pay each invoice within thirty (30) days of receiving it.',
  '2. Term. This agreement lasts one year and renews only if both parties agree in writing.',
  '3. Law. The laws of England govern this agreement.',
];

async function parsed(bytes: Uint8Array) {
  return parseDocument(bytes, { key: 'answer.docx', maxBytes: 10 * 1024 * 1024 });
}

describe('clauses as they read before the other side’s changes', () => {
  it('names them after the clause they stand for', () => {
    expect([
      beforeClauseId('c0007'),
      afterClauseId('b0007'),
      isBeforeClause('b0007'),
      isBeforeClause('c0007'),
    ]).toEqual(['b0007', 'c0007', true, false]);
  });

  it('reads a tracked clause’s text before from the document’s restore edits', async () => {
    const doc = await parsed(
      revisedDocx(
        para(
          run('1. Fees. The Customer shall pay each invoice within '),
          del('thirty (30)'),
          ins('ninety (90)'),
          run(' days of receiving it.'),
        ) +
          para(run(OURS[1] as string)) +
          para(run('3. Law. The laws of '), del('England'), ins('Delaware'), run(' govern this agreement.')),
      ),
    );
    const before = beforeClauses(doc.text, doc.clauses, doc.revisions ?? { changes: [] });
    expect(before.map((b) => [b.id, b.text])).toEqual([
      ['b0001', OURS[0]],
      ['b0003', OURS[2]],
    ]);
    // Offsets and label are the clause's own as it reads now.
    expect([before[0]?.start, before[0]?.end]).toEqual([doc.clauses[0]?.start, doc.clauses[0]?.end]);
  });

  it('reads a compared clause’s text before from the differences found', async () => {
    const theirs = [
      '1. Fees. The Customer shall pay each invoice within ninety (90) days of receiving it.',
      '2. Term. This agreement lasts one year and renews automatically.',
      '3. Law. The laws of England govern this agreement. Courts of London decide disputes.',
    ];
    const doc = await parsed(revisedDocx(theirs.map((t) => para(run(t))).join('')));
    const stored = { jobId: 'j', format: doc.format, sha256: doc.sha256, text: doc.text, chunks: doc.chunks };
    const compared = withComparison(
      stored,
      { clauses: splitClauses(normaliseText(OURS.join('\n\n'))), version: { jobId: 'j-ours' } },
      { author: 'the other side (untracked)' },
    );
    const before = beforeClauses(doc.text, storedClauses(compared), compared.revisions ?? { changes: [] });
    expect(before.map((b) => [b.id, b.text])).toEqual([
      ['b0001', OURS[0]],
      ['b0002', OURS[1]],
      ['b0003', OURS[2]],
    ]);
  });

  it('are priced by a quote of the document alone as intake prices them', async () => {
    const doc = await parsed(
      revisedDocx(
        para(
          run('1. Fees. The Customer shall pay each invoice within '),
          del('thirty (30)'),
          ins('ninety (90)'),
          run(' days of receiving it.'),
        ) + para(run(OURS[1] as string)),
      ),
    );
    const options = {
      analysts: ['liability-counsel', 'term-lifecycle'],
      models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID },
    };
    const before = beforeClauses(doc.text, doc.clauses, doc.revisions ?? { changes: [] });
    const planned = {
      ...doc,
      clauses: [...doc.clauses, ...before],
      chunks: [...doc.chunks, ...beforeChunks(before, doc.chunks.length, {})],
    };
    const alone = quoteDocument(doc, options);
    expect(alone.quote).toEqual(quoteDocument(planned, options).quote);
    const { revisions: _r, ...untracked } = doc;
    expect(alone.quote.expectedMicros).toBeGreaterThan(
      quoteDocument(untracked, options).quote.expectedMicros,
    );
  });

  it('are chunked after the contract’s chunks, and travel in chunk messages', () => {
    const clauses = splitClauses(normaliseText(OURS.join('\n\n')));
    const before = clauses.map((c) => ({ ...c, id: beforeClauseId(c.id), text: `${c.text} (before)` }));
    const chunks = beforeChunks(before, 4, { maxClauses: 2 });
    expect(chunks.map((c) => [c.index, c.clauses.map((x) => x.id)])).toEqual([
      [4, ['b0001', 'b0002']],
      [5, ['b0003']],
    ]);
    expect(contractClauses([...clauses, ...before]).map((c) => c.id)).toEqual(['c0001', 'c0002', 'c0003']);
    const message = { v: 1, jobId: 'j-1', chunk: 4, lane: 'realtime', clauses: chunks[0]?.clauses };
    expect(chunkMessageSchema.safeParse(message).success).toBe(true);
    expect(
      chunkMessageSchema.safeParse({ ...message, clauses: [{ ...before[0], id: 'x0001' }] }).success,
    ).toBe(false);
  });

  it('screens a changed clause and its text before alike: an analyst left out of one only is asked about both', () => {
    const a = { analystId: 'a', probability: 0.01 };
    const b = { analystId: 'b', probability: 0.02 };
    expect(pairedScreen({ c0003: [a, b], b0003: [a], c0004: [b] }, ['c0003', 'c0004', 'b0003'])).toEqual({
      screened: { c0003: [a], b0003: [a], c0004: [b] },
      calls: 3,
    });
  });
});
