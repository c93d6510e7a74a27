/**
 * The add-in deciding the other side's changes in the open document, against office-addin-mock
 * (test/helpers/word-mock.ts): a replacement of theirs is its tracked insertion and deletion,
 * found by author and text (Word's smart quotes and spaces folded) and accepted or rejected
 * together; a piece Word does not hold once, a change found by comparison, or a Word without
 * WordApi 1.6 decides nothing and says why.
 */
import { describe, expect, it } from 'vitest';
import { type DecidedChange, TheirChangesInWord } from '../../../lambdas/app/addin/their-changes.js';
import { wordMock } from '../../helpers/word-mock.js';

const OTHER = 'Opposing Counsel';
const WITH_16 = ['WordApi 1.1', 'WordApi 1.4', 'WordApi 1.6'];
const cap: DecidedChange = {
  id: 'n1',
  author: OTHER,
  kind: 'replacement',
  source: 'tracked',
  inserted: "one (1) month's fees",
  deleted: 'twenty-four (24) months',
};

describe('TheirChangesInWord.decide', () => {
  it('accepts or rejects both tracked pieces of a replacement, found by author and text', async () => {
    for (const decision of ['accept', 'reject'] as const) {
      const word = wordMock(['2. Liability.'], {
        sets: WITH_16,
        tracked: [
          { author: OTHER, type: 'Deleted', text: 'twenty-four (24) months' },
          { author: OTHER, type: 'Added', text: 'one (1) month\u2019s fees' },
          { author: 'Someone Else', type: 'Added', text: "one (1) month's fees" },
        ],
      });
      const theirs = new TheirChangesInWord(word.run, word.requirements);
      expect(await theirs.decide(cap, decision)).toEqual({ id: 'n1', done: true, pieces: 2 });
      const done = decision === 'accept' ? 'accepted' : 'rejected';
      expect(word.tracked.map((t) => t.decided)).toEqual([done, done, undefined]);
    }
  });

  it('decides nothing when a piece is not there once, and says which', async () => {
    const word = wordMock(['x'], {
      sets: WITH_16,
      tracked: [
        { author: OTHER, type: 'Added', text: "one (1) month's fees" },
        { author: OTHER, type: 'Added', text: "one (1) month's fees" },
        { author: OTHER, type: 'Deleted', text: 'twenty-four (24) months' },
      ],
    });
    const theirs = new TheirChangesInWord(word.run, word.requirements);
    expect(await theirs.decide(cap, 'accept')).toEqual({
      id: 'n1',
      done: false,
      why: `Word holds 2 tracked changes that are an insertion of “one (1) month's fees” by ${OTHER}`,
    });
    expect(await theirs.decide({ ...cap, deleted: 'twelve (12) months' }, 'reject')).toMatchObject({
      done: false,
      why: expect.stringMatching(/^Word holds no tracked insertion|^Word holds 2/),
    });
    expect(word.tracked.every((t) => t.decided === undefined)).toBe(true);
  });

  it('leaves a change found by comparison, and a Word without WordApi 1.6, to the Review tab', async () => {
    const word = wordMock(['x'], { sets: WITH_16, tracked: [{ author: OTHER, type: 'Added', text: 'x' }] });
    const theirs = new TheirChangesInWord(word.run, word.requirements);
    expect(await theirs.decide({ ...cap, source: 'compared' }, 'accept')).toMatchObject({
      done: false,
      why: expect.stringContaining('not tracked in this document'),
    });
    const old = wordMock(['x']);
    const without = new TheirChangesInWord(old.run, old.requirements);
    expect(without.support()).toEqual({ ok: false, why: expect.stringContaining('WordApi 1.6') });
    expect(await without.decide(cap, 'accept')).toMatchObject({
      done: false,
      why: expect.stringContaining('Review tab'),
    });
  });
});
