/**
 * A stored document compared with the version it answers: the differences join its revisions as
 * changes of the other side's, after the tracked ones, with the version compared against; a
 * second comparison replaces the first's; one that finds nothing is recorded all the same.
 */
import { describe, expect, it } from 'vitest';
import {
  chunkClauses,
  normaliseText,
  parseDocument,
  splitClauses,
} from '../../../lambdas/core/documents/index.js';
import { type StoredDocument, storedClauses, withComparison } from '../../../lambdas/core/intake/intake.js';
import { del, ins, para, revisedDocx, run } from '../../helpers/docx-revisions.js';

const AUTHOR = 'the other side (untracked)';
const OURS = [
  '1. Fees. The Customer shall pay each invoice within thirty (30) days of receiving it.',
  '2. Term. This agreement lasts one year and renews only if both parties agree in writing.',
];

/** A stored document as intake writes it, from a parsed upload. */
async function stored(bytes: Uint8Array): Promise<StoredDocument> {
  const parsed = await parseDocument(bytes, { key: 'answer.docx', maxBytes: 10 * 1024 * 1024 });
  return {
    jobId: 'j-answer',
    format: parsed.format,
    sha256: parsed.sha256,
    text: parsed.text,
    chunks: parsed.chunks,
    ...(parsed.revisions ? { revisions: parsed.revisions } : {}),
  };
}

const earlier = { clauses: splitClauses(normaliseText(OURS.join('\n\n'))), version: { jobId: 'j-ours' } };

describe('a stored document compared with the version it answers', () => {
  it('reads its clauses back from its chunks, in order', () => {
    const clauses = splitClauses(normaliseText(OURS.join('\n\n')));
    expect(storedClauses({ chunks: chunkClauses(clauses, { maxClauses: 1 }) })).toEqual(clauses);
  });

  it('records their untracked edits after their tracked ones, and what it compared with', async () => {
    // Their copy: the fee period edited with tracking on, the term edited with it off.
    const doc = await stored(
      revisedDocx(
        para(
          run('1. Fees. The Customer shall pay each invoice within '),
          del('thirty (30)'),
          ins('sixty (60)'),
          run(' days of receiving it.'),
        ) +
          para(
            run('2. Term. This agreement lasts five years and renews only if both parties agree in writing.'),
          ),
      ),
    );
    const compared = withComparison(doc, earlier, { author: AUTHOR, date: '2026-02-04T09:00:00Z' });
    expect(compared.revisions?.changes.map((c) => [c.id, c.source, c.kind, c.text, c.author])).toEqual([
      ['t1', 'tracked', 'deletion', 'thirty (30)', 'Opposing Counsel'],
      ['t2', 'tracked', 'insertion', 'sixty (60)', 'Opposing Counsel'],
      // Compared with our version, their tracked edit is a difference too.
      ['v1', 'compared', 'deletion', 'thirty (30)', AUTHOR],
      ['v2', 'compared', 'insertion', 'sixty (60)', AUTHOR],
      ['v3', 'compared', 'deletion', 'one year', AUTHOR],
      ['v4', 'compared', 'insertion', 'five years', AUTHOR],
    ]);
    const fiveYears = compared.revisions?.changes[5];
    expect(doc.text.slice(fiveYears?.start, fiveYears?.end)).toBe('five years');
    expect(fiveYears?.date).toBe('2026-02-04T09:00:00Z');
    expect(compared.revisions?.comparison).toEqual({ against: { jobId: 'j-ours' }, omitted: 0 });
    expect(compared.revisions?.restore).toEqual(doc.revisions?.restore);

    const again = withComparison(
      compared,
      { ...earlier, version: { sha256: 'ab'.repeat(32) } },
      { author: AUTHOR },
    );
    expect(again.revisions?.changes.filter((c) => c.source === 'compared')).toHaveLength(4);
    expect(again.revisions?.comparison?.against).toEqual({ sha256: 'ab'.repeat(32) });
  });

  it('records a comparison that finds nothing, and leaves the document as it was otherwise', async () => {
    const doc = await stored(revisedDocx(OURS.map((p) => para(run(p))).join('')));
    expect(doc.revisions).toBeUndefined();
    const compared = withComparison(doc, earlier, { author: AUTHOR });
    expect(compared.revisions).toEqual({
      changes: [],
      comments: [],
      comparison: { against: { jobId: 'j-ours' }, omitted: 0 },
    });
    expect({ ...compared, revisions: undefined }).toEqual({ ...doc, revisions: undefined });
  });
});
