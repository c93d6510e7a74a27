/**
 * The pieces a comparison of two versions is made of: the word diff (the fewest words deleted
 * and inserted, checked against a plain longest-common-subsequence count), what a word is
 * compared by (quote and dash styles, clause numbers at a line's start, references to renumbered
 * clauses), and a clause's paragraphs with their offsets.
 */
import { describe, expect, it } from 'vitest';
import { normaliseText, splitClauses } from '../../../lambdas/core/documents/index.js';
import {
  canonicalWord,
  diffWords,
  labelCore,
  passagesOf,
  renumberingOf,
  tokensOf,
} from '../../../lambdas/core/negotiation/index.js';
import { seededRandom } from '../../helpers/random.js';

/** The length of the longest common subsequence, by the textbook table. */
function lcs(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] ?? 0;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(up, row[j - 1] ?? 0);
      diagonal = up;
    }
  }
  return row[b.length] ?? 0;
}

describe('the word diff', () => {
  it('keeps as many words as the longest common subsequence, and its hunks turn one sequence into the other', () => {
    const random = seededRandom(7);
    const words = (n: number) => Array.from({ length: n }, () => 'abcdef'[Math.floor(random() * 6)] ?? 'a');
    for (let i = 0; i < 300; i++) {
      const a = words(Math.floor(random() * 30));
      const b = random() < 0.5 ? words(Math.floor(random() * 30)) : a.map((w) => (random() < 0.2 ? 'z' : w));
      const hunks = diffWords(a, b);
      const changed = hunks.reduce((n, h) => n + (h.aEnd - h.aStart), 0);
      expect(a.length - changed).toBe(lcs(a, b));
      // Applying the hunks to a gives b.
      const out: string[] = [];
      let at = 0;
      for (const h of hunks) {
        out.push(...a.slice(at, h.aStart), ...b.slice(h.bStart, h.bEnd));
        at = h.aEnd;
      }
      out.push(...a.slice(at));
      expect(out).toEqual(b);
    }
  });

  it('makes one replacement of a changed number and its words', () => {
    const a = 'within thirty (30) days of receipt'.split(' ');
    const b = 'within one hundred eighty (180) days of receipt'.split(' ');
    expect(diffWords(a, b)).toEqual([{ aStart: 1, aEnd: 3, bStart: 1, bEnd: 5 }]);
    expect(diffWords(a, a)).toEqual([]);
  });

  it('takes the middle as replaced whole past the edits it may spend', () => {
    const a = ['x', ...'abcdefghij'.split(''), 'y'];
    const b = ['x', ...'klmnopqrst'.split(''), 'y'];
    expect(diffWords(a, b, 5)).toEqual([{ aStart: 1, aEnd: 11, bStart: 1, bEnd: 11 }]);
  });
});

describe('what a word is compared by', () => {
  const keys = (text: string) => tokensOf(text).map((t) => (t.label ? '#' : t.key));

  it('folds quote, apostrophe and dash styles', () => {
    expect(canonicalWord('“Services”')).toBe('"Services"');
    expect(canonicalWord('party’s')).toBe("party's");
    expect(canonicalWord('2020–2021')).toBe('2020-2021');
    expect(canonicalWord('plain')).toBe('plain');
  });

  it('takes a number at a line’s start, or after a section word there, for a label, and one inside a sentence for a word', () => {
    expect(keys('3.2 Cap. Within thirty (30) days')).toEqual([
      '#',
      'Cap.',
      'Within',
      'thirty',
      '(30)',
      'days',
    ]);
    expect(keys('Section 4.1 Term\n(b) the Supplier\nARTICLE IV')).toEqual([
      'Section',
      '#',
      'Term',
      '#',
      'the',
      'Supplier',
      'ARTICLE',
      '#',
    ]);
    expect(keys('12A. Escrow\n30 days')).toEqual(['#', 'Escrow', '30', 'days']);
  });

  it('reads a reference to a renumbered clause as its new number: dotted ones anywhere, others after a section word', () => {
    const renumbering = renumberingOf([
      ['Section 3.2', 'Section 4.2'],
      ['7', '8'],
    ]);
    const words = (text: string) => tokensOf(text, renumbering).map((t) => t.key);
    expect(words('see Section 3.2(a), and 3.2; not 7 days, but Clause 7.')).toEqual([
      'see',
      'Section',
      '4.2(a),',
      'and',
      '4.2;',
      'not',
      '7',
      'days,',
      'but',
      'Clause',
      '8.',
    ]);
  });

  it('keeps a renumbering only where it is one, and reads a section’s from its parts’', () => {
    expect([...renumberingOf([['2.4(a)', '2.5(a)']])]).toEqual([
      ['2.4(a)', '2.5(a)'],
      ['2.4', '2.5'],
    ]);
    expect([
      ...renumberingOf([
        ['(a)', '(b)'],
        ['(a)', '(c)'],
        ['5', '5'],
        [undefined, '6'],
      ]),
    ]).toEqual([]);
    expect(labelCore('Section 4.2(a)')).toBe('4.2(a)');
    expect(labelCore('3.2),')).toBe('3.2');
    expect(labelCore('(iv)')).toBe('(iv)');
  });
});

describe('a version’s passages', () => {
  it('cuts each clause at its blank lines, with offsets into the text', () => {
    const text = normaliseText(
      'AGREEMENT\n\n1. Fees. The Customer pays each invoice on time and in full.\n\n2. Term. This agreement lasts one year, then\nmonth by month.',
    );
    const passages = passagesOf(splitClauses(text));
    expect(passages.map((p) => [p.clause, p.text])).toEqual([
      [0, 'AGREEMENT'],
      [0, '1. Fees. The Customer pays each invoice on time and in full.'],
      [1, '2. Term. This agreement lasts one year, then\nmonth by month.'],
    ]);
    for (const p of passages) expect(text.slice(p.start, p.end)).toBe(p.text);
  });
});
