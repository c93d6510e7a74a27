/** Finding a clause in Word's paragraphs by its text (lambdas/app/addin/clause-text.ts). */
import { describe, expect, it } from 'vitest';
import { DocumentText, fold, occurrences, sameText } from '../../../lambdas/app/addin/clause-text.js';
import { commentedClause, commentText } from '../../../lambdas/app/addin/finding-comments.js';
import type { ReportClause } from '../../../lambdas/core/report-types.js';

describe('fold', () => {
  it("folds Word's characters to the plain ones and keeps where each came from", () => {
    const f = fold('  \u201cFees\u201d\u00a0due\u2014now\u2026\u00adok\u001f \t\r\n');
    expect(f.text).toBe('"fees" due-now...ok');
    expect(f.from).toHaveLength(f.text.length);
    // The ellipsis is three folded characters from one source character.
    expect(f.from.slice(14, 17)).toEqual([16, 16, 16]);
    expect(f.to.slice(14, 17)).toEqual([17, 17, 17]);
    expect(sameText('It\u2019s  due.', "it's due.")).toBe(true);
    expect(sameText('due in 30 days', 'due in 60 days')).toBe(false);
  });

  it('counts occurrences without overlap', () => {
    expect(occurrences('aaaa', 'aa')).toEqual([0, 2]);
    expect(occurrences('abc', '')).toEqual([]);
  });
});

describe('DocumentText.locate', () => {
  const doc = new DocumentText([
    'Title',
    '1.\tThe \u201cServices\u201d start now. (a) Pay in 30 days.',
    'Next.',
  ]);

  it('maps a clause and spans of it back to paragraphs and offsets of their text', () => {
    const clause = 'The "Services" start now.';
    const found = doc.locate(clause);
    if (found.kind !== 'placed') throw new Error(found.kind);
    expect(found.span).toEqual({ from: { paragraph: 1, offset: 3 }, to: { paragraph: 1, offset: 28 } });
    const at = clause.indexOf('"Services"');
    expect(found.spanOf(at, at + 10)).toEqual({
      from: { paragraph: 1, offset: 7 },
      to: { paragraph: 1, offset: 17 },
    });
    // A span's own whitespace is placed with it (Word's tab as the clause's space).
    expect(found.spanOf(3, 5)).toEqual({
      from: { paragraph: 1, offset: 6 },
      to: { paragraph: 1, offset: 8 },
    });
    const tab = new DocumentText(['1.\tFees   due.']).locate('1. Fees due.');
    if (tab.kind !== 'placed') throw new Error(tab.kind);
    expect(tab.spanOf(2, 3)).toEqual({ from: { paragraph: 0, offset: 2 }, to: { paragraph: 0, offset: 3 } });
    // Characters that fold to nothing have no place.
    const soft = new DocumentText(['co\u00adoperate']).locate('co\u00adoperate');
    if (soft.kind !== 'placed') throw new Error(soft.kind);
    expect(soft.spanOf(2, 3)).toBeUndefined();
  });

  it('reports text that is not there, repeats, or is empty', () => {
    expect(doc.locate('Pay in 60 days.').kind).toBe('missing');
    expect(new DocumentText(['Reserved.', 'Reserved.']).locate('Reserved.')).toEqual({
      kind: 'repeated',
      count: 2,
    });
    expect(doc.locate(' \u200b ').kind).toBe('empty');
    expect(doc.timesInParagraph(1, 3, 6)).toBe(1);
  });
});

describe('the comments the add-in writes', () => {
  it('name the job and clause on their first line, and only theirs are read back as the add-in’s', () => {
    const clause = {
      id: 'c-4',
      risk: 'high',
      findings: [
        { category: 'liability-cap', score: 2, rationale: 'capped low' },
        { category: 'indemnity', score: 3, rationale: 'one-sided' },
      ],
    } as unknown as ReportClause;
    const text = commentText('j-0123', clause);
    expect(text).toBe(
      'clause-review · job j-0123 · clause c-4 · high risk\nindemnity (score 3): one-sided\nliability cap (score 2): capped low',
    );
    expect(commentedClause(text)).toEqual({ jobId: 'j-0123', clauseId: 'c-4' });
    expect(commentedClause('Looks fine · clause-review · job j-1')).toBeUndefined();
  });
});
