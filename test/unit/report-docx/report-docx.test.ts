/**
 * report.docx read back: comments in an uploaded DOCX leave its text and every character's
 * formatting as they were, sit on exactly the clause each is about, and number the clauses at
 * medium risk or above; a text upload gets a generated document commented the same way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8 } from 'fflate';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { CATEGORIES } from '../../../lambdas/core/analysts/index.js';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import {
  authorOf,
  commented,
  commentParagraphs,
  isDocxPackageError,
  isReportDocxError,
  paragraphTexts,
  renderReportDocx,
} from '../../../lambdas/core/report-docx/index.js';
import type { ReportClause } from '../../../lambdas/core/report-types.js';
import { buildStyledDocx, styledParagraphs } from '../../fixtures/documents/builders.js';
import { docxOf, partsOf, rangedText, reportOf, styledChars, W, xmlPart } from '../../helpers/docx-report.js';
import { seededRandom } from '../../helpers/random.js';

const CONTRACT = readFileSync(
  join(
    import.meta.dirname,
    '../../fixtures/contracts/KENTUCKYUTILITIESCO_03_25_2003-EX-10_65-TRANSPORTATION_AGREEMENT.txt',
  ),
  'utf8',
);
const squeeze = (s: string) => s.replace(/\s+/g, '');

describe('report.docx from a DOCX upload', () => {
  it('keeps every paragraph’s text and every character’s formatting, and comments each clause at medium or above on its own text', async () => {
    const random = seededRandom(11);
    const original = buildStyledDocx(styledParagraphs(CONTRACT.split('\n'), random));
    const parsed = await parseDocument(original, { key: 'contract.docx', maxBytes: 10 * 1024 * 1024 });
    expect(parsed.format).toBe('docx');
    expect(parsed.clauses.length).toBeGreaterThan(20);
    const report = reportOf(parsed.clauses, random);
    const expected = report.clauses.filter(commented);
    expect(expected.length).toBeGreaterThan(5);

    const out = renderReportDocx({ report, text: parsed.text, original });
    expect(out.source).toBe('original');
    expect(out.comments).toBe(expected.length);

    const before = xmlPart(original, 'word/document.xml');
    const after = xmlPart(out.bytes, 'word/document.xml');
    expect(paragraphTexts(after)).toEqual(paragraphTexts(before));
    expect(styledChars(after)).toEqual(styledChars(before));
    // The same reader intake uses sees the same text.
    const text = async (b: Uint8Array) => (await mammoth.extractRawText({ buffer: Buffer.from(b) })).value;
    expect(await text(out.bytes)).toBe(await text(original));

    const comments = xmlPart(out.bytes, 'word/comments.xml').getElementsByTagNameNS(W, 'comment');
    expect(comments.length).toBe(expected.length);
    const ranges = rangedText(after);
    expect(ranges.size).toBe(expected.length);
    for (const [i, clause] of expected.entries()) {
      const comment = comments.item(i) as Element;
      const id = comment.getAttributeNS(W, 'id') ?? '';
      expect(squeeze(ranges.get(id) ?? '')).toBe(squeeze(clause.text));
      expect(comment.getAttributeNS(W, 'author')).toBe(authorOf(report.job.jobId));
      expect(comment.textContent).toBe(commentParagraphs(report, clause).join(''));
    }
    expect(after.getElementsByTagNameNS(W, 'commentReference').length).toBe(expected.length);
    // The package names the comments part, so Word opens it.
    const types = strFromU8(partsOf(out.bytes)['[Content_Types].xml'] ?? new Uint8Array());
    expect(types).toContain('/word/comments.xml');
    const rels = strFromU8(partsOf(out.bytes)['word/_rels/document.xml.rels'] ?? new Uint8Array());
    expect(rels).toContain('relationships/comments');
  });

  it('keeps the comments a document has, numbers its own after them, and anchors inside hyperlinks and insertions', async () => {
    const p = (inner: string) => `<w:p>${inner}</w:p>`;
    const r = (text: string, props = '') =>
      `<w:r>${props ? `<w:rPr>${props}</w:rPr>` : ''}<w:t xml:space="preserve">${text}</w:t></w:r>`;
    const body = [
      p(
        r('1. Fees. Client shall pay ') +
          `<w:hyperlink r:id="rId9">${r('each invoice', '<w:u w:val="single"/>')}</w:hyperlink>` +
          r(' within 30 days.'),
      ),
      p(
        `<w:ins w:id="1" w:author="A" w:date="2026-01-01T00:00:00Z">${r('2. Term. This Agreement ', '<w:b/>')}</w:ins>` +
          r('continues for two years.'),
      ),
      p(
        `<w:commentRangeStart w:id="7"/>${r('3. Notices. Notices go in writing.')}<w:commentRangeEnd w:id="7"/><w:r><w:commentReference w:id="7"/></w:r>`,
      ),
    ].join('');
    const original = docxOf(body, {
      comments:
        '<w:comment w:id="7" w:author="Counsel"><w:p><w:r><w:t>Check the notice address.</w:t></w:r></w:p></w:comment>',
    });
    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    const report = reportOf(parsed.clauses, () => 0.99); // every clause critical
    const out = renderReportDocx({ report, text: parsed.text, original });
    expect(out.comments).toBe(parsed.clauses.length);
    const after = xmlPart(out.bytes, 'word/document.xml');
    expect(paragraphTexts(after)).toEqual(paragraphTexts(xmlPart(original, 'word/document.xml')));
    expect(styledChars(after)).toEqual(styledChars(xmlPart(original, 'word/document.xml')));
    const comments = xmlPart(out.bytes, 'word/comments.xml').getElementsByTagNameNS(W, 'comment');
    const ids = Array.from({ length: comments.length }, (_, i) =>
      (comments.item(i) as Element).getAttributeNS(W, 'id'),
    );
    expect(ids[0]).toBe('7');
    expect((comments.item(0) as Element).textContent).toBe('Check the notice address.');
    expect(ids.slice(1).map(Number)).toEqual(parsed.clauses.map((_, i) => 8 + i));
    const ranges = rangedText(after);
    for (const [i, clause] of parsed.clauses.entries())
      expect(squeeze(ranges.get(String(8 + i)) ?? '')).toBe(squeeze(clause.text));
    // The one comments part the document names, and no second relationship to it.
    expect(
      strFromU8(partsOf(out.bytes)['word/_rels/document.xml.rels'] ?? new Uint8Array()).match(
        /relationships\/comments/g,
      ),
    ).toHaveLength(1);
  });

  it('refuses bytes that are not a Word package, naming why', () => {
    const report = reportOf([], seededRandom(1));
    let caught: unknown;
    try {
      renderReportDocx({ report, text: 'x', original: new Uint8Array([1, 2, 3]) });
    } catch (error) {
      caught = error;
    }
    expect(isDocxPackageError(caught)).toBe(true);
    expect(isReportDocxError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/not a zip package/);
  });
});

describe('report.docx from a text upload', () => {
  it('is a document of the contract’s text, one paragraph per line, with the same comments', async () => {
    const random = seededRandom(5);
    const parsed = await parseDocument(Buffer.from(CONTRACT), {
      key: 'contract.txt',
      maxBytes: 10 * 1024 * 1024,
    });
    const report = reportOf(parsed.clauses, random);
    const expected = report.clauses.filter(commented);
    const out = renderReportDocx({ report, text: parsed.text });
    expect(out.source).toBe('generated');
    const doc = xmlPart(out.bytes, 'word/document.xml');
    expect(paragraphTexts(doc)).toEqual(parsed.text.split('\n').filter((l) => l.trim() !== ''));
    expect(xmlPart(out.bytes, 'word/comments.xml').getElementsByTagNameNS(W, 'comment').length).toBe(
      expected.length,
    );
    const ranges = rangedText(doc);
    expect([...ranges.values()].map(squeeze)).toEqual(expected.map((c) => squeeze(c.text)));
    // Escaped through the DOM: the rationale's markup characters are text, not XML.
    expect(strFromU8(partsOf(out.bytes)['word/comments.xml'] ?? new Uint8Array())).toContain(
      '&lt;matters&gt; &amp;',
    );
  });
});

describe('a clause’s comment', () => {
  it('says the risk, the categories scored, each finding’s reasons, analysts and quote, and the reviewer’s decision', () => {
    const report = reportOf(
      [
        {
          id: 'c0007',
          index: 6,
          start: 0,
          end: 80,
          text: 'Liability is capped at fees paid in the prior twelve months, save for fraud.',
        },
      ],
      () => 0.99,
    );
    const [base] = report.clauses;
    if (!base) throw new Error('one clause');
    const category = CATEGORIES[0]?.id ?? '';
    const clause: ReportClause = {
      ...base,
      risk: 'low',
      model: { risk: 'critical', maxScore: 3, scores: base.scores },
      findings: base.findings.map((f) => ({
        ...f,
        review: {
          findingId: `c0007/${category}`,
          decision: 'overridden',
          modelScore: 3,
          decidedScore: 1,
          by: 'arn:aws:iam::1:user/counsel',
          at: '2026-03-01T09:00:00.000Z',
          note: 'market-standard cap',
        },
      })),
    };
    // Decided down to low, but the panel had it critical: it still gets its comment.
    expect(commented(clause)).toBe(true);
    expect(commented({ ...clause, model: undefined })).toBe(false);
    const lines = commentParagraphs(report, clause);
    expect(lines[0]).toBe('Risk: LOW (panel: CRITICAL) · clause c0007');
    expect(lines[1]).toBe(`Categories: ${CATEGORIES[0]?.name} 3 (severe)`);
    expect(lines[2]).toBe(`${CATEGORIES[0]?.name} 3: why c0007 <matters> & "binds" (Liability counsel)`);
    expect(lines[3]).toBe('“Liability is capped at fees pa”');
    expect(lines[4]).toBe(
      `Reviewer: ${CATEGORIES[0]?.name} overridden (score 3 → 1) by arn:aws:iam::1:user/counsel at 2026-03-01T09:00:00.000Z: “market-standard cap”`,
    );
    // A person signed in through the user pool is named by email, beside their identity.
    const byPerson: ReportClause = {
      ...clause,
      findings: clause.findings.map((f) =>
        f.review
          ? { ...f, review: { ...f.review, by: 'cognito-identity:us-east-1:ab', byName: 'anna@example.com' } }
          : f,
      ),
    };
    expect(commentParagraphs(report, byPerson)[4]).toBe(
      `Reviewer: ${CATEGORIES[0]?.name} overridden (score 3 → 1) by anna@example.com (cognito-identity:us-east-1:ab) at 2026-03-01T09:00:00.000Z: “market-standard cap”`,
    );
  });
});
