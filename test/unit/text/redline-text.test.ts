/**
 * A redline's edits as text (lambdas/text/redline-text.ts): what they make of a clause, the
 * clause as kept, struck and inserted runs, the edits a rewording amounts to, and the check a
 * reviewer's edits pass.
 */
import { describe, expect, it } from 'vitest';
import { applyEdits } from '../../../lambdas/text/redline-edits.js';
import {
  checkRedlineEdits,
  editSegments,
  editsBetween,
  MAX_REDLINE_EDITS,
} from '../../../lambdas/text/redline-text.js';
import { seededRandom } from '../../helpers/random.js';

const CLAUSE =
  'The Customer may terminate this Agreement for convenience on ninety (90) days written notice, and shall pay for work performed.';

describe('applyEdits and editSegments', () => {
  it('makes every edit, in whatever order they come, and shows what was kept, struck and inserted', () => {
    const edits = [
      { start: 112, end: 126, insert: 'services delivered' },
      { start: 61, end: 72, insert: 'thirty (30)' },
    ];
    expect(applyEdits(CLAUSE, edits)).toBe(
      'The Customer may terminate this Agreement for convenience on thirty (30) days written notice, and shall pay for services delivered.',
    );
    expect(editSegments(CLAUSE, edits)).toEqual([
      { kind: 'kept', text: 'The Customer may terminate this Agreement for convenience on ' },
      { kind: 'deleted', text: 'ninety (90)' },
      { kind: 'inserted', text: 'thirty (30)' },
      { kind: 'kept', text: ' days written notice, and shall pay for ' },
      { kind: 'deleted', text: 'work performed' },
      { kind: 'inserted', text: 'services delivered' },
      { kind: 'kept', text: '.' },
    ]);
    // An insertion strikes nothing; a deletion inserts nothing.
    expect(editSegments('ten days', [{ start: 8, end: 8, insert: ' net' }])).toEqual([
      { kind: 'kept', text: 'ten days' },
      { kind: 'inserted', text: ' net' },
    ]);
    expect(editSegments('ten days', [{ start: 0, end: 4, insert: '' }])).toEqual([
      { kind: 'deleted', text: 'ten ' },
      { kind: 'kept', text: 'days' },
    ]);
  });
});

describe('editsBetween', () => {
  it('finds the words a rewording changed, as edits of the first text', () => {
    const to = CLAUSE.replace('ninety (90)', 'thirty (30)').replace(' written', '');
    const edits = editsBetween(CLAUSE, to);
    expect(edits).toEqual([
      { start: 61, end: 67, insert: 'thirty' },
      { start: 69, end: 71, insert: '30' },
      { start: 77, end: 85, insert: '' },
    ]);
    expect(applyEdits(CLAUSE, edits)).toBe(to);
    expect(editsBetween(CLAUSE, CLAUSE)).toEqual([]);
    expect(editsBetween('', 'all new')).toEqual([{ start: 0, end: 0, insert: 'all new' }]);
  });

  it('gives edits that turn one text into the other and pass the check, for seeded random rewordings', () => {
    const random = seededRandom(35);
    const words = [
      'the',
      'Supplier',
      'shall',
      'not',
      'be',
      'liable',
      '(a)',
      'thirty',
      'days',
      ',',
      '.',
      'fees',
    ];
    const text = (n: number) =>
      Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
    for (let i = 0; i < 200; i++) {
      const from = text(1 + Math.floor(random() * 30));
      const to = random() < 0.2 ? from : text(1 + Math.floor(random() * 30));
      const edits = editsBetween(from, to);
      expect(applyEdits(from, edits)).toBe(to);
      if (from !== to) expect(checkRedlineEdits(from, edits)).toEqual({ edits });
    }
  });
});

describe('checkRedlineEdits', () => {
  it('answers the edits in order, leaving out those that change nothing', () => {
    expect(
      checkRedlineEdits('ten days net', [
        { start: 9, end: 12, insert: 'gross' },
        { start: 4, end: 8, insert: 'days' },
        { start: 0, end: 3, insert: 'thirty' },
      ]),
    ).toEqual({
      edits: [
        { start: 0, end: 3, insert: 'thirty' },
        { start: 9, end: 12, insert: 'gross' },
      ],
    });
  });

  it('names every problem: bad offsets, past the clause, inside a word, overlaps, nothing changed, too many', () => {
    expect(
      checkRedlineEdits('ten days', [
        { start: 2, end: 1, insert: 'x' },
        { start: 0, end: 9, insert: 'x' },
        { start: 1, end: 1, insert: 'x' },
        { start: 0.5, end: 2, insert: 'x' },
      ]).problems,
    ).toEqual([
      'edit 0: start and end must be whole numbers with 0 ≤ start ≤ end; got [2, 1)',
      "edit 1: [0, 9) runs past the clause's 8 characters",
      'edit 2: insertion point 1 falls inside the word "ten"',
      'edit 3: start and end must be whole numbers with 0 ≤ start ≤ end; got [0.5, 2)',
    ]);
    expect(
      checkRedlineEdits('ten days', [
        { start: 0, end: 4, insert: 'x' },
        { start: 3, end: 8, insert: 'y' },
      ]).problems,
    ).toEqual(['edits at [0, 4) and [3, 8) overlap']);
    // An insertion inside another edit's deletion has no place; one at its edge goes in place order.
    expect(
      checkRedlineEdits('ten days', [
        { start: 0, end: 8, insert: 'x' },
        { start: 4, end: 4, insert: 'y' },
      ]).problems,
    ).toEqual(['edits at [0, 8) and [4, 4) overlap']);
    expect(
      checkRedlineEdits('ten days', [
        { start: 3, end: 3, insert: ' full' },
        { start: 0, end: 3, insert: 'thirty' },
      ]),
    ).toEqual({
      edits: [
        { start: 0, end: 3, insert: 'thirty' },
        { start: 3, end: 3, insert: ' full' },
      ],
    });
    expect(checkRedlineEdits('ten days', [{ start: 0, end: 3, insert: 'ten' }]).problems).toEqual([
      'the edits change nothing in the clause',
    ]);
    const many = Array.from({ length: MAX_REDLINE_EDITS + 1 }, (_, i) => ({ start: i, end: i, insert: '' }));
    expect(checkRedlineEdits(' '.repeat(300), many).problems?.[0]).toBe(
      `at most ${MAX_REDLINE_EDITS} edits; got ${MAX_REDLINE_EDITS + 1}`,
    );
  });
});
