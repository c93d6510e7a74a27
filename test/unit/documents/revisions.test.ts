/**
 * The tracked changes and comments of an uploaded DOCX, read through the parse intake runs: each
 * kind of change with its author, date, text and offsets into the normalised text the clauses
 * index, what the contract read before the changes, and the text the review reads, which is
 * the contract as the changes leave it.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentRevisions, RevisionChange } from '../../../lambdas/core/documents/index.js';
import { parseDocument, textBefore } from '../../../lambdas/core/documents/index.js';
import { buildDocx } from '../../fixtures/documents/builders.js';
import {
  commentEnd,
  commentStart,
  DATE,
  del,
  deletedRow,
  delRun,
  ins,
  insertedPara,
  joinedPara,
  madeBold,
  moveFrom,
  moveTo,
  OTHER,
  para,
  revisedDocx,
  row,
  run,
  table,
} from '../../helpers/docx-revisions.js';

const parse = (bytes: Uint8Array) => parseDocument(bytes, { key: 'answer.docx', maxBytes: 10 * 1024 * 1024 });

/** The normalised text intake reads from a plain DOCX of these paragraphs. */
const plainText = async (paragraphs: readonly string[]) => (await parse(buildDocx(paragraphs))).text;

/** The document's revisions, which it must have. */
function revisionsOf(parsed: { revisions?: DocumentRevisions }): DocumentRevisions {
  if (!parsed.revisions) throw new Error('no revisions read');
  return parsed.revisions;
}

/** Each change's offsets hold what it says: its text for text in the text now, a point for deleted text. */
function expectPlaced(text: string, changes: readonly RevisionChange[]): void {
  for (const c of changes) {
    if (c.start === undefined || c.end === undefined) throw new Error(`change ${c.id} has no offsets`);
    if (c.kind === 'deletion') expect(c.end).toBe(c.start);
    else expect(text.slice(c.start, c.end)).toBe(c.text);
  }
}

const FEES = '1. Fees. The Customer shall pay each invoice within ';
const FEES_END = ' days of the invoice date.';
const CAP = '2. Liability. The Supplier’s liability is capped at ';
const TERM = '3. Term. This agreement renews for one year unless ended on notice.';

describe('tracked changes in an uploaded DOCX', () => {
  it('reads an insertion, a deletion and a replacement with author, date, text and offsets, and what it read before', async () => {
    const bytes = revisedDocx(
      para(run(FEES), del('thirty (30)'), ins('one hundred eighty (180)'), run(FEES_END)) +
        para(run(CAP), del('the fees paid in the prior twelve months')) +
        para(
          run('3. Term. This agreement renews for one year'),
          ins(' automatically, for five years,'),
          run(' unless ended on notice.'),
        ),
    );
    const parsed = await parse(bytes);
    // The review reads the contract as the changes leave it.
    expect(parsed.text).toBe(
      await plainText([
        `${FEES}one hundred eighty (180)${FEES_END}`,
        CAP,
        '3. Term. This agreement renews for one year automatically, for five years, unless ended on notice.',
      ]),
    );
    const { changes, restore } = revisionsOf(parsed);
    expect(changes.map((c) => [c.id, c.kind, c.text, c.author, c.date, c.part])).toEqual([
      ['t1', 'deletion', 'thirty (30)', OTHER, DATE, 'word/document.xml'],
      ['t2', 'insertion', 'one hundred eighty (180)', OTHER, DATE, 'word/document.xml'],
      ['t3', 'deletion', 'the fees paid in the prior twelve months', OTHER, DATE, 'word/document.xml'],
      ['t4', 'insertion', 'automatically, for five years,', OTHER, DATE, 'word/document.xml'],
    ]);
    expectPlaced(parsed.text, changes);
    // The replacement: the deletion stood where the insertion starts.
    expect(changes[1]?.replaces).toBe('t1');
    expect(changes[0]?.start).toBe(changes[1]?.start);
    expect(changes[3]?.replaces).toBeUndefined();
    // Deleted at a clause's end: the point is that clause's end.
    const cap = parsed.clauses.find((c) => c.text.startsWith('2.'));
    expect(changes[2]?.start).toBe(cap?.end);
    expect(changes.map((c) => c.clauseIds)).toEqual([0, 0, 1, 2].map((i) => [parsed.clauses[i]?.id]));
    expect(textBefore(parsed.text, restore ?? [])).toBe(
      await plainText([
        `${FEES}thirty (30)${FEES_END}`,
        `${CAP}the fees paid in the prior twelve months`,
        TERM,
      ]),
    );
  });

  it('reads a paragraph deleted whole and one inserted whole, and restores both', async () => {
    const bytes = revisedDocx(
      para(run(TERM)) +
        joinedPara(OTHER, del('4. Audit. The Customer may audit the Supplier once a year.')) +
        insertedPara(OTHER, '5. Exclusivity. The Customer buys only from the Supplier.') +
        para(run('6. Notices. Notices are given in writing to the addresses above.')),
    );
    const parsed = await parse(bytes);
    expect(parsed.text).toBe(
      await plainText([
        TERM,
        '5. Exclusivity. The Customer buys only from the Supplier.',
        '6. Notices. Notices are given in writing to the addresses above.',
      ]),
    );
    const { changes, restore } = revisionsOf(parsed);
    expect(changes.map((c) => [c.kind, c.text])).toEqual([
      ['deletion', '4. Audit. The Customer may audit the Supplier once a year.'],
      ['insertion', '5. Exclusivity. The Customer buys only from the Supplier.'],
    ]);
    expectPlaced(parsed.text, changes);
    expect(changes[1]?.replaces).toBe('t1');
    expect(textBefore(parsed.text, restore ?? [])).toBe(
      await plainText([
        TERM,
        '4. Audit. The Customer may audit the Supplier once a year.',
        '6. Notices. Notices are given in writing to the addresses above.',
      ]),
    );
  });

  it('reads a move as one change: the text where it went, the point where it stood; the review reads it once, where it went', async () => {
    const moved = '7. Assignment. Neither party may assign this agreement without consent.';
    const bytes = revisedDocx(
      para(moveTo('move1', moved)) +
        para(run(TERM)) +
        para(moveFrom('move1', moved)) +
        para(run(`${FEES}thirty (30)${FEES_END}`)),
    );
    const parsed = await parse(bytes);
    // mammoth reads the text where it went (w:moveTo) and not where it stood (w:moveFrom).
    expect(parsed.text).toBe(await plainText([moved, TERM, `${FEES}thirty (30)${FEES_END}`]));
    const { changes, restore } = revisionsOf(parsed);
    expect(changes).toHaveLength(1);
    const move = changes[0];
    expect([move?.kind, move?.text, move?.author, move?.start]).toEqual(['move', moved, OTHER, 0]);
    expectPlaced(parsed.text, changes);
    // It stood after the term clause.
    const term = parsed.clauses.find((c) => c.text.startsWith('3.'));
    expect(move?.from).toBe(term?.end);
    expect(textBefore(parsed.text, restore ?? [])).toBe(
      await plainText([TERM, moved, `${FEES}thirty (30)${FEES_END}`]),
    );
  });

  it('reads half a move as what it is: text moved away with no destination is a deletion, one moved in from nowhere an insertion', async () => {
    const bytes = revisedDocx(
      para(run(TERM)) +
        para(moveFrom('lost', 'Gone for good, it seems.')) +
        para(moveTo('found', 'Here from nowhere at all.')),
    );
    const { changes } = revisionsOf(await parse(bytes));
    expect(changes.map((c) => [c.kind, c.text])).toEqual([
      ['deletion', 'Gone for good, it seems.'],
      ['insertion', 'Here from nowhere at all.'],
    ]);
  });

  it('reads a formatting-only change with the properties it changed, and leaves the text as it is', async () => {
    const bytes = revisedDocx(
      para(run('6. Notices. Notices are given '), madeBold('in writing'), run(' to the addresses above.')) +
        `<w:p><w:pPr><w:jc w:val="center"/><w:pPrChange w:id="7" w:author="${OTHER}" w:date="${DATE}"><w:pPr/></w:pPrChange></w:pPr>${run(TERM)}</w:p>`,
    );
    const parsed = await parse(bytes);
    const { changes, restore } = revisionsOf(parsed);
    expect(changes.map((c) => [c.kind, c.text, c.properties])).toEqual([
      ['formatting', 'in writing', ['b']],
      ['formatting', TERM, ['jc']],
    ]);
    expectPlaced(parsed.text, changes);
    expect(restore).toBeUndefined();
  });

  it('reads text one author inserted and another deleted as a deletion naming who inserted it, in neither text', async () => {
    const inserted = `<w:ins w:id="1" w:author="Our Counsel" w:date="2026-01-05T09:00:00Z">${delRun('with prior written consent')}</w:ins>`;
    const bytes = revisedDocx(
      para(
        run('7. Assignment. Neither party may assign this agreement '),
        `<w:del w:id="2" w:author="${OTHER}" w:date="${DATE}">${inserted}</w:del>`,
        run('.'),
      ) +
        para(
          run('8. Audit. The Customer may audit '),
          `<w:ins w:id="3" w:author="Our Counsel"><w:del w:id="4" w:author="${OTHER}">${delRun('twice ')}</w:del></w:ins>`,
          run('once a year.'),
        ),
    );
    const parsed = await parse(bytes);
    expect(parsed.text).toBe(
      await plainText([
        '7. Assignment. Neither party may assign this agreement .',
        '8. Audit. The Customer may audit once a year.',
      ]),
    );
    const { changes, restore } = revisionsOf(parsed);
    expect(changes.map((c) => [c.kind, c.text, c.author, c.insertedBy])).toEqual([
      [
        'deletion',
        'with prior written consent',
        OTHER,
        { author: 'Our Counsel', date: '2026-01-05T09:00:00Z' },
      ],
      ['deletion', 'twice', OTHER, { author: 'Our Counsel' }],
    ]);
    expectPlaced(parsed.text, changes);
    // Neither text holds it: what it read before is what it reads now.
    expect(textBefore(parsed.text, restore ?? [])).toBe(parsed.text);
  });

  it('reads changes in a table: text inserted in a cell, a row deleted whole', async () => {
    const bytes = revisedDocx(
      para(run('Schedule 1. Prices')) +
        table(
          row(run('Item'), run('Price')),
          row(run('Support'), run('USD ') + del('100') + ins('150') + run(' a month')),
          deletedRow(OTHER, 'Training', 'Included'),
        ),
    );
    const parsed = await parse(bytes);
    expect(parsed.text).not.toContain('Training');
    expect(parsed.text).toContain('USD 150 a month');
    const { changes, restore } = revisionsOf(parsed);
    expect(changes.map((c) => [c.kind, c.text])).toEqual([
      ['deletion', '100'],
      ['insertion', '150'],
      ['deletion', 'Training\n\nIncluded'],
    ]);
    expectPlaced(parsed.text, changes);
    const before = textBefore(parsed.text, restore ?? []);
    expect(before).toContain('USD 100 a month');
    expect(before.endsWith('Training\n\nIncluded')).toBe(true);
  });

  it('lists changes in headers, footers and footnotes with their part and no offsets, and keeps their text out of the clauses', async () => {
    const bytes = revisedDocx(para(run(TERM), '<w:r><w:footnoteReference w:id="1"/></w:r>'), {
      header: para(run('Confidential '), ins('draft')),
      footer: para(del('Page 1 of 3')),
      footnotes: [para(run('As amended '), ins('in 2026'), run('.'))],
    });
    const parsed = await parse(bytes);
    expect(parsed.text).toBe(await plainText([TERM]));
    const { changes } = revisionsOf(parsed);
    expect(changes.map((c) => [c.kind, c.text, c.part, c.start, c.clauseIds])).toEqual([
      ['insertion', 'draft', 'word/header1.xml', undefined, undefined],
      ['deletion', 'Page 1 of 3', 'word/footer1.xml', undefined, undefined],
      ['insertion', 'in 2026', 'word/footnotes.xml', undefined, undefined],
    ]);
  });

  it('reads comments with their range, clause, author and date, and threads replies under them', async () => {
    const bytes = revisedDocx(
      para(run(`${FEES}thirty (30)${FEES_END}`)) +
        para(
          commentStart(5),
          run(CAP),
          run('one month’s fees.'),
          commentEnd(5),
          commentStart(6),
          commentEnd(6),
        ) +
        para(
          run('3. Term. '),
          commentStart(7),
          run('This agreement renews'),
          commentEnd(7),
          run(' for one year unless ended on notice.'),
        ),
      {
        comments: [
          { id: 5, author: OTHER, text: 'We cannot accept more.', paraId: '0A000001' },
          {
            id: 6,
            author: 'Our Counsel',
            text: 'Then we need a carve-out.',
            paraId: '0A000002',
            parentParaId: '0A000001',
          },
          { id: 7, author: OTHER, text: 'Five years?', paraId: '0A000003', done: true },
        ],
      },
    );
    const parsed = await parse(bytes);
    const { comments, changes } = revisionsOf(parsed);
    expect(changes).toEqual([]);
    const slice = (c: { start?: number; end?: number }) => parsed.text.slice(c.start, c.end);
    expect(comments.map((c) => [c.id, c.author, c.initials, c.date, c.text, c.parentId, c.done])).toEqual([
      ['5', OTHER, 'OP', DATE, 'We cannot accept more.', undefined, undefined],
      ['6', 'Our Counsel', 'OU', DATE, 'Then we need a carve-out.', '5', undefined],
      ['7', OTHER, 'OP', DATE, 'Five years?', undefined, true],
    ]);
    expect(slice(comments[0] ?? {})).toBe(`${CAP}one month’s fees.`);
    expect(comments[0]?.clauseIds).toEqual([parsed.clauses[1]?.id]);
    // A reply whose range covers nothing sits at the point after its comment's text.
    expect([comments[1]?.start, comments[1]?.end]).toEqual([comments[0]?.end, comments[0]?.end]);
    expect(slice(comments[2] ?? {})).toBe('This agreement renews');
    expect(comments[2]?.clauseIds).toEqual([parsed.clauses[2]?.id]);
  });

  it('puts a reply Word wrote with no range of its own on its comment’s range, and a comment on a header in its part', async () => {
    const bytes = revisedDocx(para(commentStart(1), run(TERM), commentEnd(1)), {
      header: para(commentStart(3), run('Confidential'), commentEnd(3)),
      comments: [
        { id: 1, author: OTHER, text: 'Too long.', paraId: '0B000001' },
        {
          id: 2,
          author: 'Our Counsel',
          text: 'Agreed: two years.',
          paraId: '0B000002',
          parentParaId: '0B000001',
        },
        { id: 3, author: OTHER, text: 'Remove the marking.' },
      ],
    });
    const parsed = await parse(bytes);
    const { comments } = revisionsOf(parsed);
    expect(comments.map((c) => [c.id, c.part, c.start, c.end, c.parentId])).toEqual([
      ['1', 'word/document.xml', 0, TERM.length, undefined],
      ['2', 'word/document.xml', 0, TERM.length, '1'],
      ['3', 'word/header1.xml', undefined, undefined, undefined],
    ]);
  });

  it('records nothing for a document with no change and no comment, and names a part it could not read', async () => {
    expect((await parse(buildDocx([TERM]))).revisions).toBeUndefined();
    const bytes = revisedDocx(para(run(TERM)), { header: `${para(ins('draft'))}<w:p w:x="1" w:x="2"/>` });
    expect((await parse(bytes)).revisions).toEqual({
      changes: [],
      comments: [],
      unread: ['word/header1.xml'],
    });
  });
});
