/**
 * Redlines drawn at random over whole contracts, in an uploaded DOCX (a CUAD contract, its runs
 * cut as Word cuts them) and in the generated DOCX of a text upload, read back as Word would:
 * every `w:ins`/`w:del` has a unique id, the job's author and the report's date; rejecting every
 * change gives exactly the original's text (and every character's formatting), accepting them
 * gives the text each redline makes. The structures of a Word document one by one, and the edits
 * not written: redlines-structures.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseText } from '../../../lambdas/core/documents/normalise.js';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import {
  applyEdits,
  changeAuthorOf,
  type DocxRedline,
  paragraphTexts,
  type RedlineEdit,
  type ReportDocx,
  renderReportDocx,
} from '../../../lambdas/core/report-docx/index.js';
import type { Report, ReportClause } from '../../../lambdas/core/report-types.js';
import { buildStyledDocx, styledParagraphs } from '../../fixtures/documents/builders.js';
import { redlinedText, reportOf, styledChars, W, xmlPart } from '../../helpers/docx-report.js';
import { seededRandom } from '../../helpers/random.js';
import { strictFailures } from '../../helpers/strict-xml.js';
import { changeMarks, partText } from '../../helpers/tracked-changes.js';
import { DATE, decided, elementsOf, readText, serialize } from './redlines-read-back.js';

const CONTRACTS = join(import.meta.dirname, '../../fixtures/contracts');
const contract = (name: string) => readFileSync(join(CONTRACTS, `${name}.txt`), 'utf8');

const INSERTS = ['[revised]', 'shall promptly', ' and in writing', 'a\tb', 'first line\nsecond line', ''];

/**
 * Redlines over clauses, drawn by `random`: up to three edits a clause on word boundaries, each a
 * replacement, a deletion or an insertion, some taking the space before or after the words with
 * them (which can be a paragraph break), some at the clause's very start or end; decisions of
 * every kind.
 */
function redlinesOver(clauses: readonly ReportClause[], random: () => number): DocxRedline[] {
  const out: DocxRedline[] = [];
  const decisions = ['proposed', 'accepted', 'edited', 'rejected'] as const;
  for (const c of clauses) {
    const words = [...c.text.matchAll(/\S+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
    if (words.length < 6 || random() < 0.3) continue;
    const edits: RedlineEdit[] = [];
    const third = Math.floor(words.length / 3);
    const br = c.text.indexOf('\n');
    if (br > 0 && random() < 0.5) {
      // A clause over several paragraphs: one edit from the word before the first break to the one after.
      const start = words.filter((w) => w.end <= br).pop()?.start ?? 0;
      const end = words.find((w) => w.start > br)?.end ?? c.text.length;
      edits.push({ start, end, insert: INSERTS[Math.floor(random() * INSERTS.length)] ?? '' });
    }
    for (let k = edits.length > 0 ? 3 : 0; k < 3; k++) {
      // Each edit keeps within its third of the words, and off the third's last word.
      const lo = k * third;
      const hi = k === 2 ? words.length : (k + 1) * third;
      if (hi - lo < 2 || random() < 0.25) continue;
      const i = lo + Math.floor(random() * (hi - lo - 1));
      const j = i + Math.floor(random() * Math.min(5, hi - 1 - i));
      const wi = words[i] as { start: number; end: number };
      const wj = words[j] as { start: number; end: number };
      let start = wi.start;
      let end = wj.end;
      const kind = random();
      if (kind < 0.15) end = start;
      else if (kind < 0.25) start = end;
      else if (kind < 0.45 && i > 0) start = (words[i - 1] as { end: number }).end;
      else if (kind < 0.65) end = (words[j + 1] as { start: number }).start;
      let insert = INSERTS[Math.floor(random() * INSERTS.length)] ?? '';
      if (start === end && insert === '') insert = 'inserted';
      edits.push({ start, end, insert });
    }
    if (random() < 0.3 && (edits[edits.length - 1]?.end ?? 0) < c.text.length)
      edits.push({ start: c.text.length, end: c.text.length, insert: ' (as amended)' });
    if (random() < 0.2 && (edits[0]?.start ?? 0) > 0)
      edits.unshift({ start: 0, end: 0, insert: 'Amended: ' });
    if (edits.length === 0) continue;
    out.push({
      id: `r-${c.id}`,
      clauseId: c.id,
      edits,
      decision: decisions[Math.floor(random() * decisions.length)] ?? 'proposed',
      ...(random() < 0.3 ? { note: `note on ${c.id}` } : {}),
    });
    if (random() < 0.4) {
      // A second position's redline of the clause, inserting where the first one's edits begin
      // or end, or where it too may insert: at the clause's end.
      const points = [...edits.flatMap((e) => [e.start, e.end]), c.text.length];
      const second = [0, 1].map(() => points[Math.floor(random() * points.length)] as number);
      out.push({
        id: `r2-${c.id}`,
        clauseId: c.id,
        edits: second.map((at, k) => ({ start: at, end: at, insert: ` [second ${k}]` })),
        decision: decisions[Math.floor(random() * decisions.length)] ?? 'proposed',
      });
    }
  }
  return out;
}

/** What every report.docx with redlines must show, whatever it was made from. */
async function checkReadBack(
  docx: Uint8Array,
  original: Document,
  text: string,
  report: Report,
  redlines: readonly DocxRedline[],
  written: ReportDocx['redlines'],
) {
  const { placed } = written;
  const author = changeAuthorOf(report.job.jobId, undefined);
  expect(strictFailures(docx)).toEqual({});
  const doc = xmlPart(docx, 'word/document.xml');
  const marks = changeMarks(doc);
  expect(marks.length).toBeGreaterThan(0);
  for (const m of marks) {
    expect(m.author).toBe(author);
    expect(m.date).toBe(DATE);
    expect(m.id).toMatch(/^\d+$/);
    // Deleted text is `w:delText`, as Word writes it; an insertion is runs of `w:t`.
    if (m.kind === 'del') expect(elementsOf(m.element, 't')).toEqual([]);
    if (m.kind === 'ins') expect(elementsOf(m.element, 'delText')).toEqual([]);
  }
  // Unique among the changes, and among every annotation: the comments and the changes together.
  const commentIds = elementsOf(xmlPart(docx, 'word/comments.xml'), 'comment').map((c) =>
    c.getAttributeNS(W, 'id'),
  );
  const ids = [...marks.map((m) => m.id), ...commentIds];
  expect(new Set(ids).size).toBe(ids.length);
  expect(serialize(doc)).not.toContain('urn:clause-review');

  const rejected = decided(docx, 'reject', author);
  expect(paragraphTexts(rejected)).toEqual(paragraphTexts(original));
  expect(styledChars(rejected)).toEqual(styledChars(original));

  const acceptedText = readText(decided(docx, 'accept', author));
  expect(acceptedText).toBe(normaliseText(redlinedText(text, report, redlines, placed)));
  // Each clause accepts to the text the writer reports for it: its placed redlines' edits made
  // together, in the order given.
  const clauseIds = [...new Set(redlines.filter((r) => placed.includes(r.id)).map((r) => r.clauseId))];
  expect(written.clauses.map((c) => c.clauseId)).toEqual(clauseIds);
  for (const { clauseId, redlines: ids, text: made } of written.clauses) {
    const clause = report.clauses.find((c) => c.id === clauseId) as ReportClause;
    const mine = redlines.filter((r) => r.clauseId === clauseId && placed.includes(r.id));
    expect(ids).toEqual(mine.map((r) => r.id));
    expect(made).toBe(
      applyEdits(
        clause.text,
        mine.flatMap((r) => r.edits),
      ),
    );
    expect(acceptedText).toContain(normaliseText(made));
  }
  return { doc, marks };
}
describe('redlines in an uploaded DOCX (a CUAD contract, its runs cut as Word cuts them)', () => {
  it('are tracked changes that reject back to the original and accept to each redline’s text', async () => {
    const random = seededRandom(35);
    const original = buildStyledDocx(
      styledParagraphs(
        contract('KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT').split('\n'),
        random,
      ),
    );
    const parsed = await parseDocument(original, { key: 'contract.docx', maxBytes: 10 * 1024 * 1024 });
    const report = reportOf(parsed.clauses, random);
    const redlines = redlinesOver(report.clauses, random);
    const written = redlines.filter((r) => r.decision !== 'rejected');
    expect(written.length).toBeGreaterThan(10);

    const out = renderReportDocx({ report, text: parsed.text, original, redlines });
    expect(out.redlines.notPlaced).toEqual([]);
    expect(out.redlines.placed).toEqual(written.map((r) => r.id));
    const { marks } = await checkReadBack(
      out.bytes,
      xmlPart(original, 'word/document.xml'),
      parsed.text,
      report,
      redlines,
      out.redlines,
    );
    expect(out.changes).toBe(marks.length);
    // The draw covered what must work: deletions across paragraphs (a deleted paragraph mark),
    // deletions of several runs, and edits at a clause's start and end.
    expect(marks.some((m) => m.paragraphMark)).toBe(true);
    expect(marks.some((m) => m.kind === 'del' && elementsOf(m.element, 'r').length > 1)).toBe(true);
    const edits = written.flatMap((r) =>
      r.edits.map((e) => ({ e, len: report.clauses.find((c) => c.id === r.clauseId)?.text.length })),
    );
    expect(edits.some(({ e }) => e.start === 0)).toBe(true);
    expect(edits.some(({ e, len }) => e.end === len)).toBe(true);
    // And second redlines of a clause inserting where the first's edits begin or end, both
    // written: at a deletion's edges, and where the first inserts too.
    const pairs = out.redlines.clauses
      .filter((c) => c.redlines.length === 2)
      .map((c) => c.redlines.map((id) => written.find((r) => r.id === id)?.edits ?? []));
    const meet = (test: (first: RedlineEdit, at: number) => boolean) =>
      pairs.some(([first, second]) => second?.some((e) => first?.some((f) => test(f, e.start))));
    expect(meet((f, at) => f.start < f.end && (at === f.start || at === f.end))).toBe(true);
    expect(meet((f, at) => f.start === f.end && at === f.start)).toBe(true);
    // Rejected redlines are not written; each one written is told in its clause's comment.
    const comments = partText(out.bytes, 'word/comments.xml');
    for (const r of redlines) {
      if (r.decision === 'rejected') expect(comments).not.toContain(`Redline ${r.id} `);
      else expect(comments).toContain(`Redline ${r.id} (`);
    }
  });
});

describe('redlines in a generated DOCX (a text upload)', () => {
  it('are the same tracked changes, reading back the same way', async () => {
    const random = seededRandom(36);
    const parsed = await parseDocument(
      Buffer.from(contract('KIROMICBIOPHARMA_INC_05_11_2020-EX-10_23-CONSULTING_AGREEMENT')),
      { key: 'contract.txt', maxBytes: 10 * 1024 * 1024 },
    );
    const report = reportOf(parsed.clauses, random);
    const redlines = redlinesOver(report.clauses, random);
    const out = renderReportDocx({ report, text: parsed.text, redlines });
    expect(out.source).toBe('generated');
    expect(out.redlines.notPlaced).toEqual([]);
    expect(out.redlines.placed.length).toBeGreaterThan(5);
    const plain = renderReportDocx({ report, text: parsed.text });
    const { marks } = await checkReadBack(
      out.bytes,
      xmlPart(plain.bytes, 'word/document.xml'),
      parsed.text,
      report,
      redlines,
      out.redlines,
    );
    // A line of the text is a paragraph: a deletion across lines deletes a paragraph mark.
    expect(marks.some((m) => m.paragraphMark)).toBe(true);
  });
});
