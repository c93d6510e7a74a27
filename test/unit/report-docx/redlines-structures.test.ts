/**
 * Redlines meeting the structures of a Word document (runs of their own formatting, a hyperlink,
 * a tab, a table, a section break, someone else's insertion, a comment and a bookmark): placed
 * inside a run, across runs, in a hyperlink, across paragraphs and at a paragraph's ends, several
 * at one point in order, or refused with the reason; an edit the document does not hold where
 * the clause says is not written, and is reported.
 */
import { describe, expect, it } from 'vitest';
import { normaliseText } from '../../../lambdas/core/documents/normalise.js';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import {
  authorOf,
  changeAuthorOf,
  type DocxRedline,
  paragraphTexts,
  type RedlineEdit,
  renderReportDocx,
} from '../../../lambdas/core/report-docx/index.js';
import type { Report, ReportClause } from '../../../lambdas/core/report-types.js';
import { docxOf, parse, redlinedText, reportOf, styledChars, W, xmlPart } from '../../helpers/docx-report.js';
import { strictFailures } from '../../helpers/strict-xml.js';
import { changeMarks, partText } from '../../helpers/tracked-changes.js';
import { DATE, decided, elementsOf, readText, serialize } from './redlines-read-back.js';

const run = (text: string, props = '') =>
  `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${text}</w:t></w:r>`;
const para = (inner: string, pPr = '') => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${inner}</w:p>`;

/** A small DOCX with the structures a redline meets: runs of their own formatting, a hyperlink, a tab, a table, a section break, someone else's insertion, a comment and a bookmark. */
function structuredDocx(): Uint8Array {
  const body = [
    para(
      `<w:bookmarkStart w:id="0" w:name="fees"/>${run('1. Fees. The ', '<w:b/>')}${run('Client shall', '<w:i/>')}${run(' pay each invoice within ')}` +
        `<w:hyperlink r:id="rId9">${run('thirty (30) days', '<w:u w:val="single"/>')}</w:hyperlink>${run('.')}<w:bookmarkEnd w:id="0"/>`,
    ),
    para(
      `${run('The Provider may ')}<w:ins w:id="1" w:author="Counsel" w:date="2026-01-01T00:00:00Z">${run('not ', '<w:color w:val="C00000"/>')}</w:ins>${run('raise fees once a year.')}`,
    ),
    para(`${run('2. Term.')}<w:r><w:tab/></w:r>${run('Two years from signing.')}`),
    `<w:tbl><w:tr><w:tc>${para(`<w:commentRangeStart w:id="7"/>${run('3. Notices. In writing only.')}<w:commentRangeEnd w:id="7"/><w:r><w:commentReference w:id="7"/></w:r>`)}</w:tc></w:tr></w:tbl>`,
    para(run('4. Law. Delaware law governs.'), '<w:sectPr/>'),
    para(run('5. Counterparts. Signed in counterparts.')),
  ].join('');
  return docxOf(`${body}<w:sectPr/>`, {
    comments:
      '<w:comment w:id="7" w:author="Counsel"><w:p><w:r><w:t>Check the notice address.</w:t></w:r></w:p></w:comment>',
  });
}

/** A clause over the text from the first occurrence of `from` to the end of `to` after it. */
function clauseOver(text: string, id: string, index: number, from: string, to: string) {
  const start = text.indexOf(from);
  const end = text.indexOf(to, start) + to.length;
  if (start < 0 || end < start) throw new Error(`no span ${from}…${to}`);
  return { id, index, start, end, text: text.slice(start, end) };
}

/** An edit of `clause` replacing the `nth` occurrence (0-based) of `find` with `insert`. */
function edit(clause: { text: string }, find: string, insert: string, nth = 0): RedlineEdit {
  let at = -1;
  for (let k = 0; k <= nth; k++) at = clause.text.indexOf(find, at + 1);
  if (at < 0) throw new Error(`'${find}' is not in the clause`);
  return { start: at, end: at + find.length, insert };
}

describe('redlines meeting the structures of a Word document', () => {
  it('are placed inside a run, across runs, in a hyperlink, across paragraphs and at a paragraph’s ends, or refused with the reason', async () => {
    const original = structuredDocx();
    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    const text = parsed.text;
    const c1 = clauseOver(text, 'c1', 0, '1. Fees.', 'once a year.');
    const c2 = clauseOver(text, 'c2', 1, '2. Term.', 'signing.');
    const c3 = clauseOver(text, 'c3', 2, '3. Notices.', 'only.');
    const c4 = clauseOver(text, 'c4', 3, '4. Law.', 'counterparts.');
    expect(c1.text).toContain('\n'); // c1 spans two paragraphs, c4 a section break
    const report = reportOf([c1, c2, c3, c4], () => 0.99);
    const redlines: DocxRedline[] = [
      {
        id: 'fees',
        clauseId: 'c1',
        decision: 'accepted',
        decidedBy: 'olga@example.com',
        note: 'our standard terms',
        edits: [
          edit(c1, 'Fees', 'Charges'), // inside one run
          edit(c1, 'The Client shall', 'The Customer must'), // across two runs
          edit(c1, 'thirty (30)', 'forty-five (45)'), // inside a hyperlink
          { ...edit(c1, '.\n\nThe', ', and the') }, // across paragraphs
          { start: c1.text.length, end: c1.text.length, insert: ' at most' }, // a paragraph's end
        ],
      },
      {
        id: 'term',
        clauseId: 'c2',
        decision: 'proposed',
        edits: [
          { start: 0, end: 0, insert: '[New] ' }, // a paragraph's start
          edit(c2, ' Two', ' Three'), // the tab before "Two" goes with it
        ],
      },
      {
        id: 'notices',
        clauseId: 'c3',
        decision: 'edited',
        edits: [edit(c3, 'writing', 'writing, by email')],
      },
      { id: 'dropped', clauseId: 'c3', decision: 'rejected', edits: [edit(c3, 'Notices', 'NEVER WRITTEN')] },
      // Not placed: each of these would land somewhere it must not.
      { id: 'ghost', clauseId: 'c9', decision: 'proposed', edits: [{ start: 0, end: 1, insert: 'x' }] },
      { id: 'long', clauseId: 'c2', decision: 'proposed', edits: [{ start: 3, end: 999, insert: 'x' }] },
      { id: 'overlap', clauseId: 'c1', decision: 'proposed', edits: [edit(c1, 'Fees. The', 'NOT PLACED 1')] },
      {
        id: 'half-gap',
        decision: 'proposed',
        clauseId: 'c4',
        edits: [
          edit(c4, 'Delaware', 'NOT PLACED 2'),
          { start: c4.text.indexOf('\n\n') + 1, end: c4.text.indexOf('5.'), insert: '' },
        ],
      },
      {
        id: 'section',
        clauseId: 'c4',
        decision: 'proposed',
        edits: [edit(c4, 'governs.\n\n5.', 'NOT PLACED 3')],
      },
    ];
    const cell = { ...c3, id: 'c3x', end: c4.end, text: text.slice(c3.start, c4.end) };
    const reportWithCell = {
      ...report,
      clauses: [...report.clauses, { ...report.clauses[2], ...cell }],
    } as Report;
    redlines.push({
      id: 'cell',
      clauseId: 'c3x',
      decision: 'proposed',
      edits: [edit(cell, 'only.\n\n4.', 'NOT PLACED 4')],
    });
    const stale = { ...report.clauses[1], id: 'c2s', text: `${c2.text}!` } as ReportClause;
    const reportAll = { ...reportWithCell, clauses: [...reportWithCell.clauses, stale] } as Report;
    redlines.push({
      id: 'stale',
      clauseId: 'c2s',
      decision: 'proposed',
      edits: [{ start: 0, end: 2, insert: 'NOT PLACED 5' }],
    });

    const out = renderReportDocx({ report: reportAll, text, original, redlines });
    expect(out.redlines.placed).toEqual(['fees', 'term', 'notices']);
    expect(out.redlines.notPlaced.map((u) => [u.id, u.reason, u.edit])).toEqual([
      ['ghost', 'unknown-clause', undefined],
      ['long', 'offsets', 0],
      ['overlap', 'overlap', 0],
      ['half-gap', 'not-in-document', 1],
      ['section', 'structure', 0],
      ['cell', 'structure', 0],
      ['stale', 'clause-text', undefined],
    ]);
    const xml = partText(out.bytes, 'word/document.xml');
    expect(xml).not.toMatch(/NOT PLACED|NEVER WRITTEN/);

    const author = [changeAuthorOf(report.job.jobId, undefined), 'olga@example.com'];
    const before = xmlPart(original, 'word/document.xml');
    const doc = xmlPart(out.bytes, 'word/document.xml');
    // Someone else's insertion is theirs still: rejecting ours leaves it, and the original's text.
    const rejected = decided(out.bytes, 'reject', author);
    expect(paragraphTexts(rejected)).toEqual(paragraphTexts(before));
    expect(styledChars(rejected)).toEqual(styledChars(before));
    const counsel = changeMarks(doc).filter((m) => m.author === 'Counsel');
    expect(counsel.map((m) => m.id)).toEqual(['1']);
    const accepted = readText(decided(out.bytes, 'accept', author));
    expect(accepted).toBe(normaliseText(redlinedText(text, reportAll, redlines, out.redlines.placed)));
    expect(accepted).toContain(
      '1. Charges. The Customer must pay each invoice within forty-five (45) days, and the Provider may not raise fees once a year. at most',
    );
    expect(accepted).toContain('[New] 2. Term. Three years from signing.');
    expect(accepted).toContain('3. Notices. In writing, by email only.');

    const ours = changeMarks(doc).filter((m) => author.includes(m.author ?? ''));
    // The comments are the job's; the changes, their deciders' or nobody's yet.
    const ourComments = elementsOf(xmlPart(out.bytes, 'word/comments.xml'), 'comment').filter(
      (c) => c.getAttributeNS(W, 'author') === authorOf(report.job.jobId),
    );
    const ids = [...ours.map((m) => m.id), ...ourComments.map((c) => c.getAttributeNS(W, 'id'))];
    // After every id the original used (bookmark 0, insertion 1, comment 7), none of them twice.
    expect(new Set([...ids, '0', '1', '7']).size).toBe(ids.length + 3);
    expect(Math.min(...ids.map(Number))).toBe(8);
    for (const m of ours) expect(m.date).toBe(DATE);

    const runsOf = (el: Element) => elementsOf(el, 'r');
    const textOf = (r: Element, local: string) =>
      elementsOf(r, local)
        .map((t) => t.textContent ?? '')
        .join('');
    const props = (r: Element) => {
      const p = elementsOf(r, 'rPr')[0];
      return p ? serialize(p).replace(/ xmlns:\w+="[^"]*"/g, '') : '';
    };
    const dels = ours.filter((m) => m.kind === 'del' && !m.paragraphMark);
    const inss = ours.filter((m) => m.kind === 'ins');
    const named = (marks: typeof ours, local: string, t: string) =>
      marks.find(
        (m) =>
          runsOf(m.element)
            .map((r) => textOf(r, local))
            .join('') === t,
      );
    const delNamed = (t: string) => named(dels, 'delText', t);
    const insNamed = (t: string) => named(inss, 't', t);
    // Inside a run: the bold run split around "Fees"; the deletion and the insertion bold too.
    const fees = delNamed('Fees');
    expect(fees && runsOf(fees.element).map(props)).toEqual(['<w:rPr><w:b/></w:rPr>']);
    expect(props(runsOf(insNamed('Charges')?.element as Element)[0] as Element)).toBe(
      '<w:rPr><w:b/></w:rPr>',
    );
    // Across runs: one deletion of two runs, each with its own formatting; the insertion takes the first's.
    const client = delNamed('The Client shall');
    expect(client && runsOf(client.element).map(props)).toEqual([
      '<w:rPr><w:b/></w:rPr>',
      '<w:rPr><w:i/></w:rPr>',
    ]);
    expect(props(runsOf(insNamed('The Customer must')?.element as Element)[0] as Element)).toBe(
      '<w:rPr><w:b/></w:rPr>',
    );
    // In a hyperlink: the deletion stays inside it, underlined.
    const thirty = delNamed('thirty (30)');
    expect(thirty?.element.parentNode && (thirty.element.parentNode as Element).localName).toBe('hyperlink');
    expect(runsOf(thirty?.element as Element).map(props)).toEqual(['<w:rPr><w:u w:val="single"/></w:rPr>']);
    // Across paragraphs: the first paragraph's mark is deleted.
    const marks = ours.filter((m) => m.paragraphMark);
    expect(marks).toHaveLength(1);
    expect(paragraphTexts(doc).find((p) => p.startsWith('1. Charges'))).toMatch(/days$/);
    // The tab went with " Two": a deleted run holding the tab.
    expect(dels.some((m) => elementsOf(m.element, 'tab').length === 1)).toBe(true);
    // The comment of each clause tells its redline, the note and what was not placed.
    const comments = partText(out.bytes, 'word/comments.xml');
    expect(comments).toContain(
      'Redline fees (accepted by olga@example.com) is in the tracked changes: “our standard terms”',
    );
    expect(comments).toContain(
      'Redline term (proposed, undecided: nobody has accepted it) is in the tracked changes',
    );
    expect(comments).toContain(
      'Redline section (proposed, undecided: nobody has accepted it) not placed in this document: the deletion would cross a section break',
    );
    // A decided redline's changes are its decider's; an undecided one's are nobody's yet.
    const authors = new Set(changeMarks(xmlPart(out.bytes, 'word/document.xml')).map((m) => m.author));
    expect(authors).toEqual(
      new Set(['Counsel', 'olga@example.com', changeAuthorOf(report.job.jobId, undefined)]),
    );
    expect(strictFailures(out.bytes)).toEqual({});
  });

  it('writes insertions at one point and at a deletion’s edges, in order, and refuses edits that delete the same text', async () => {
    const original = structuredDocx();
    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    const text = parsed.text;
    const c2 = clauseOver(text, 'c2', 0, '2. Term.', 'signing.');
    const report = reportOf([c2], () => 0.99);
    const two = edit(c2, 'Two', 'Three');
    const end = c2.text.length;
    const redlines: DocxRedline[] = [
      {
        id: 'a',
        clauseId: 'c2',
        decision: 'proposed',
        edits: [two, { start: end, end, insert: ' at least' }],
      },
      {
        id: 'b',
        clauseId: 'c2',
        decision: 'accepted',
        // Out of place order: at the clause's end, at the start of a's deletion, at the end again.
        edits: [
          { start: end, end, insert: ' and renewable' },
          { start: two.start, end: two.start, insert: 'Initially ' },
          { start: end, end, insert: ' by notice' },
        ],
      },
      {
        id: 'c',
        clauseId: 'c2',
        decision: 'edited',
        edits: [{ start: two.end, end: two.end, insert: ' full' }],
      },
      // Real overlaps: a deletion of text a's deletion takes, and an insertion inside it.
      {
        id: 'same-text',
        clauseId: 'c2',
        decision: 'proposed',
        edits: [edit(c2, 'Two years', 'NOT PLACED 1')],
      },
      {
        id: 'inside',
        clauseId: 'c2',
        decision: 'proposed',
        edits: [{ start: two.start + 1, end: two.start + 1, insert: 'NOT PLACED 2' }],
      },
    ];
    const out = renderReportDocx({ report, text, original, redlines });
    expect(out.redlines.placed).toEqual(['a', 'b', 'c']);
    expect(out.redlines.notPlaced).toEqual([
      { id: 'same-text', clauseId: 'c2', edit: 0, reason: 'overlap', detail: 'it overlaps redline a' },
      { id: 'inside', clauseId: 'c2', edit: 0, reason: 'overlap', detail: 'it overlaps redline a' },
    ]);
    const made = '2. Term. Initially Three full years from signing. at least and renewable by notice';
    expect(out.redlines.clauses).toEqual([{ clauseId: 'c2', redlines: ['a', 'b', 'c'], text: made }]);
    expect(partText(out.bytes, 'word/document.xml')).not.toContain('NOT PLACED');

    const author = changeAuthorOf(report.job.jobId, undefined);
    const before = xmlPart(original, 'word/document.xml');
    const rejected = decided(out.bytes, 'reject', author);
    expect(paragraphTexts(rejected)).toEqual(paragraphTexts(before));
    expect(styledChars(rejected)).toEqual(styledChars(before));
    const accepted = readText(decided(out.bytes, 'accept', author));
    expect(accepted).toBe(normaliseText(redlinedText(text, report, redlines, out.redlines.placed)));
    expect(accepted).toContain(made);
    const doc = xmlPart(out.bytes, 'word/document.xml');
    const ours = changeMarks(doc).filter((m) => m.author === author);
    expect(ours).toHaveLength(7);
    expect(new Set(ours.map((m) => m.id)).size).toBe(7);
    // In the document, the changes of the paragraph in the order they are read.
    const term = elementsOf(doc, 'p').find((p) => (p.textContent ?? '').includes('Term.')) as Element;
    const changes: string[] = [];
    const walk = (node: Node) => {
      for (let n = node.firstChild; n; n = n.nextSibling) {
        const el = n as Element;
        if (el.namespaceURI === W && (el.localName === 'ins' || el.localName === 'del'))
          changes.push(`${el.localName}:${el.textContent}`);
        else walk(n);
      }
    };
    walk(term);
    expect(changes).toEqual([
      'ins:Initially ',
      'del:Two',
      'ins:Three',
      'ins: full',
      'ins: at least',
      'ins: and renewable',
      'ins: by notice',
    ]);
  });

  it('does not write an edit of text the document does not hold where its clause puts it', async () => {
    const original = structuredDocx();
    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    // The text as another version of the document would read: one word is not this one's.
    const text = parsed.text.replace('Delaware law', 'Texas law');
    const c4 = clauseOver(text, 'c4', 0, '4. Law.', 'governs.');
    const report = reportOf([c4], () => 0.99);
    const out = renderReportDocx({
      report,
      text,
      original,
      redlines: [
        { id: 'law', clauseId: 'c4', decision: 'accepted', edits: [edit(c4, 'Texas', 'New York')] },
        { id: 'verb', clauseId: 'c4', decision: 'accepted', edits: [edit(c4, 'governs', 'shall govern')] },
      ],
    });
    expect(out.redlines.notPlaced).toEqual([
      {
        id: 'law',
        clauseId: 'c4',
        edit: 0,
        reason: 'not-in-document',
        detail: expect.stringMatching(/not found/),
      },
    ]);
    expect(out.redlines.placed).toEqual(['verb']);
    const accepted = readText(decided(out.bytes, 'accept', changeAuthorOf(report.job.jobId, undefined)));
    expect(accepted).toContain('4. Law. Delaware law shall govern.');
    expect(accepted).not.toContain('New York');
  });

  it('writes nothing and changes no text when there are no redlines to place', async () => {
    const original = structuredDocx();
    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    const c1 = clauseOver(parsed.text, 'c1', 0, '1. Fees.', 'once a year.');
    const report = reportOf([c1], () => 0.99);
    const out = renderReportDocx({
      report,
      text: parsed.text,
      original,
      redlines: [{ id: 'no', clauseId: 'c1', decision: 'rejected', edits: [edit(c1, 'Fees', 'x')] }],
    });
    expect(out).toMatchObject({ changes: 0, redlines: { placed: [], notPlaced: [] } });
    expect(changeMarks(xmlPart(out.bytes, 'word/document.xml')).map((m) => m.author)).toEqual(['Counsel']);
    expect(paragraphTexts(parse(partText(out.bytes, 'word/document.xml')))).toEqual(
      paragraphTexts(xmlPart(original, 'word/document.xml')),
    );
  });
});
