/**
 * The add-in's Word-facing module against office-addin-mock (test/helpers/word-mock.ts): a
 * finding becomes a comment on the range holding its clause's text, whatever Word did to its
 * quotes and spaces; an edited or repeated clause is reported, not anchored; opening the pane
 * again adds no second comment; a redline is applied with change tracking on and the mode set
 * back after, all of its edits or none; and where the WordApi 1.4 requirement set is missing, or
 * Word refuses comments (NotAllowed, AccessDenied), the document says so and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { type ClauseComment, WordDocument } from '../../../lambdas/app/addin/word-document.js';
import { wordMock } from '../../helpers/word-mock.js';

const PAYMENT = 'Fees are due within 30 days of the invoice date.';
const LIABILITY =
  "The Supplier's total liability under this Agreement shall not exceed the fees paid in the twelve months before the claim.";
const DOCUMENT = [
  'SERVICES AGREEMENT',
  // Word's own characters: a smart apostrophe, a no-break space, a tab after the number.
  '1.\tThe Supplier\u2019s total liability under this\u00a0Agreement shall not exceed the fees paid in the twelve months before the claim. (a) Fees are due within 30 days of the invoice date.',
  '2. Term. This Agreement lasts one year.',
  'It renews each year unless a party gives notice.',
];

const comment = (clauseId: string, text: string): ClauseComment => ({
  clauseId,
  text,
  comment: `clause-review · job j-1 · clause ${clauseId} · high risk\nliability cap (score 3): uncapped`,
});

describe('WordDocument.comment', () => {
  it('anchors a finding on the range that holds its clause, mid-paragraph or across paragraphs', async () => {
    const word = wordMock(DOCUMENT);
    const doc = new WordDocument(word.run, word.requirements);
    const outcomes = await doc.comment('j-1', [
      comment('c-1', LIABILITY),
      comment('c-2', `(a) ${PAYMENT}`),
      comment(
        'c-3',
        '2. Term. This Agreement lasts one year.\n\nIt renews each year unless a party gives notice.',
      ),
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['added', 'added', 'added']);
    expect(word.comments.map((c) => c.anchored)).toEqual([
      'The Supplier\u2019s total liability under this\u00a0Agreement shall not exceed the fees paid in the twelve months before the claim.',
      `(a) ${PAYMENT}`,
      '2. Term. This Agreement lasts one year.\rIt renews each year unless a party gives notice.',
    ]);
    expect(word.comments[0]?.content).toMatch(/^clause-review · job j-1 · clause c-1 · high risk\n/);
  });

  it('places a clause longer than a search can be (255 characters) by searches for its edges', async () => {
    const long = `${'The Customer may audit the Supplier once a year on notice. '.repeat(8)}End of audit.`;
    const word = wordMock(['Preamble.', `Intro sentence here. ${long} Next clause starts here.`]);
    const doc = new WordDocument(word.run, word.requirements);
    const [outcome] = await doc.comment('j-1', [comment('c-9', long)]);
    expect(long.length).toBeGreaterThan(255);
    expect(outcome?.outcome).toBe('added');
    expect(word.comments[0]?.anchored).toBe(long);
  });

  it('reports a clause whose text was edited, or that the document holds twice, and anchors nothing', async () => {
    const word = wordMock([...DOCUMENT.slice(0, 3), '2. Term. This Agreement lasts one year.']);
    const doc = new WordDocument(word.run, word.requirements);
    const outcomes = await doc.comment('j-1', [
      comment('c-1', LIABILITY.replace('twelve', 'six')),
      comment('c-3', '2. Term. This Agreement lasts one year.'),
    ]);
    expect(outcomes).toEqual([
      { clauseId: 'c-1', outcome: 'missing', detail: expect.stringMatching(/edited/) },
      { clauseId: 'c-3', outcome: 'repeated', detail: 'the document holds this text 2 times' },
    ]);
    expect(word.comments).toEqual([]);
  });

  it("adds no second comment when the pane is opened again, and leaves other people's comments alone", async () => {
    const word = wordMock(DOCUMENT, {
      comments: [{ content: 'Please check this.', start: 0, end: 5, anchored: 'SERVI' }],
    });
    const first = new WordDocument(word.run, word.requirements);
    await first.comment('j-1', [comment('c-1', LIABILITY)]);
    // A new pane: a new WordDocument, the same document.
    const again = new WordDocument(word.run, word.requirements);
    expect(await again.commented('j-1')).toEqual(new Set(['c-1']));
    expect(await again.commented('j-2')).toEqual(new Set());
    expect(await again.commentedJobs()).toEqual(['j-1']);
    const outcomes = await again.comment('j-1', [comment('c-1', LIABILITY), comment('c-2', PAYMENT)]);
    expect(outcomes.map((o) => o.outcome)).toEqual(['present', 'added']);
    expect(word.comments.map((c) => c.content.split('\n')[0])).toEqual([
      'Please check this.',
      'clause-review · job j-1 · clause c-1 · high risk',
      'clause-review · job j-1 · clause c-2 · high risk',
    ]);
  });
});

describe('where comments are not supported', () => {
  it('says why when the WordApi 1.4 requirement set is missing, and writes nothing', async () => {
    const word = wordMock(DOCUMENT, { sets: ['WordApi 1.1', 'WordApi 1.2', 'WordApi 1.3'] });
    const doc = new WordDocument(word.run, word.requirements);
    const support = doc.support();
    expect(support).toEqual({ ok: false, why: expect.stringMatching(/WordApi 1\.4.*listed here only/) });
    const outcomes = await doc.comment('j-1', [comment('c-1', LIABILITY)]);
    expect(outcomes).toEqual([{ clauseId: 'c-1', outcome: 'refused', detail: !support.ok && support.why }]);
    expect(word.comments).toEqual([]);
    const redline = await doc.applyRedline(PAYMENT, {
      id: 'r',
      edits: [{ start: 20, end: 22, insert: '60' }],
    });
    expect(redline).toEqual({ id: 'r', applied: false, why: expect.stringMatching(/WordApi 1\.4/) });
    expect(word.edits).toEqual([]);
  });

  for (const code of ['NotAllowed', 'AccessDenied']) {
    it(`falls back to the list when Word refuses a comment with ${code}`, async () => {
      const word = wordMock(DOCUMENT, { refuseComments: code });
      const doc = new WordDocument(word.run, word.requirements);
      expect(doc.support()).toEqual({ ok: true });
      const outcomes = await doc.comment('j-1', [comment('c-1', LIABILITY), comment('c-2', PAYMENT)]);
      expect(outcomes.map((o) => o.outcome)).toEqual(['refused', 'refused']);
      expect(doc.support()).toEqual({ ok: false, why: expect.stringContaining(`(${code})`) });
      expect(word.comments).toEqual([]);
      // Later findings are not tried again.
      expect((await doc.comment('j-1', [comment('c-3', '2. Term.')]))[0]?.outcome).toBe('refused');
    });
  }
});

describe('WordDocument.applyRedline', () => {
  it('edits with change tracking on, and sets the mode back to what it was', async () => {
    const word = wordMock(DOCUMENT, { trackingMode: 'Off' });
    const doc = new WordDocument(word.run, word.requirements);
    // "30 days" → "60 days", "the invoice date" → "receipt of a valid invoice", and an insertion.
    const clause = `(a) ${PAYMENT}`;
    const at = (s: string) => clause.indexOf(s);
    const outcome = await doc.applyRedline(clause, {
      id: 'c-2/redline/payment',
      edits: [
        { start: at('30'), end: at('30') + 2, insert: '60' },
        {
          start: at('the invoice date'),
          end: at('the invoice date') + 16,
          insert: 'receipt of a valid invoice',
        },
        { start: at('Fees'), end: at('Fees'), insert: 'Undisputed ' },
      ],
    });
    expect(outcome).toEqual({ id: 'c-2/redline/payment', applied: true, edits: 3 });
    expect(word.edits.map((e) => [e.kind, e.removed, e.inserted, e.trackingMode])).toEqual([
      ['replace', 'the invoice date', 'receipt of a valid invoice', 'TrackAll'],
      ['replace', '30', '60', 'TrackAll'],
      ['insert', '', 'Undisputed ', 'TrackAll'],
    ]);
    expect(word.text()).toContain(
      '(a) Undisputed Fees are due within 60 days of receipt of a valid invoice.',
    );
    expect(word.trackingMode()).toBe('Off');
  });

  it('keeps a mode the person had chosen', async () => {
    const word = wordMock(DOCUMENT, { trackingMode: 'TrackMineOnly' });
    const doc = new WordDocument(word.run, word.requirements);
    const outcome = await doc.applyRedline(LIABILITY, {
      id: 'c-1/redline/cap',
      edits: [{ start: LIABILITY.indexOf(' in the twelve'), end: LIABILITY.length - 1, insert: '' }],
    });
    expect(outcome.applied).toBe(true);
    expect(word.edits.map((e) => [e.kind, e.trackingMode])).toEqual([['delete', 'TrackAll']]);
    expect(word.trackingMode()).toBe('TrackMineOnly');
  });

  it('applies every redline given, each whole or not at all, one failing leaving the others', async () => {
    const word = wordMock(DOCUMENT);
    const doc = new WordDocument(word.run, word.requirements);
    const outcomes = await doc.applyRedlines([
      { clauseText: PAYMENT, redline: { id: 'pay', edits: [{ start: 20, end: 22, insert: '60' }] } },
      {
        clauseText: 'Not in this document.',
        redline: { id: 'gone', edits: [{ start: 0, end: 3, insert: '' }] },
      },
      { clauseText: LIABILITY, redline: { id: 'cap', edits: [{ start: 4, end: 14, insert: 'Provider’s' }] } },
    ]);
    expect(outcomes.map((o) => [o.id, o.applied])).toEqual([
      ['pay', true],
      ['gone', false],
      ['cap', true],
    ]);
    expect(word.edits.map((e) => [e.removed, e.inserted, e.trackingMode])).toEqual([
      ['30', '60', 'TrackAll'],
      ['Supplier\u2019s', 'Provider’s', 'TrackAll'],
    ]);
    expect(word.trackingMode()).toBe('Off');
  });

  it('makes none of the edits when one of them is not where the clause puts it', async () => {
    const word = wordMock(DOCUMENT);
    const doc = new WordDocument(word.run, word.requirements);
    const outcomes = [
      await doc.applyRedline(PAYMENT, {
        id: 'overlap',
        edits: [
          { start: 0, end: 4, insert: '' },
          { start: 2, end: 6, insert: 'x' },
        ],
      }),
      await doc.applyRedline(PAYMENT, { id: 'outside', edits: [{ start: 40, end: 90, insert: '' }] }),
      await doc.applyRedline(PAYMENT.replace('30', '45'), {
        id: 'edited',
        edits: [{ start: 20, end: 22, insert: '60' }],
      }),
    ];
    expect(outcomes).toEqual([
      { id: 'overlap', applied: false, why: 'edits 1 and 2 overlap' },
      { id: 'outside', applied: false, why: expect.stringMatching(/not within the clause/) },
      { id: 'edited', applied: false, why: expect.stringMatching(/edited/) },
    ]);
    expect(word.edits).toEqual([]);
    expect(word.trackingMode()).toBe('Off');
  });
});
