import { describe, expect, it } from 'vitest';
import { docxClauses } from '../../../lambdas/core/finalize/docx-output.js';
import { changeAuthorOf } from '../../../lambdas/core/report-docx/authors.js';
import { paragraphTexts, renderReportDocx } from '../../../lambdas/core/report-docx/index.js';
import type { Report } from '../../../lambdas/core/report-types.js';
import { buildDocx } from '../../fixtures/documents/builders.js';
import { reportOf, xmlPart } from '../../helpers/docx-report.js';
import { strictFailures } from '../../helpers/strict-xml.js';
import { acceptChanges, changeMarks, rejectChanges } from '../../helpers/tracked-changes.js';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const PARAGRAPHS = [
  '1. Services. The Consultant provides the services.',
  '2. Fees. The Company pays the fees.',
  '3. Law. Texas law governs.',
];
const TEXT = PARAGRAPHS.join('\n');
const CAP =
  "Subject to the exclusions in this clause, each party's total aggregate liability arising out of this Agreement is limited to twice the charges paid in the twelve months before the claim.";

/** A report of the three clauses, each its own paragraph, none commented. */
function report(): Report {
  let at = 0;
  const clauses = PARAGRAPHS.map((text, index) => {
    const c = { id: `c000${index + 1}`, index, start: at, end: at + text.length, text };
    at += text.length + 1;
    return c;
  });
  return reportOf(clauses, () => 0);
}

describe('a required clause the contract lacks, in report.docx', () => {
  it('is a paragraph of its own after the clause the playbook places it after, a tracked insertion that rejects away', () => {
    const original = buildDocx(PARAGRAPHS);
    const r = report();
    const out = renderReportDocx({
      report: r,
      text: TEXT,
      original,
      clauses: [
        {
          id: 'document/playbook/limitation-of-liability',
          afterClauseId: 'c0002',
          heading: 'Limitation of Liability',
          text: CAP,
        },
      ],
    });
    expect(out.inserted).toEqual(['document/playbook/limitation-of-liability']);
    expect(strictFailures(out.bytes)).toEqual({});
    const doc = xmlPart(out.bytes, 'word/document.xml');
    // Its own paragraph, right after the fees clause, under a bold heading: never appended to another clause.
    const clause = `Limitation of Liability. ${CAP}`;
    expect(paragraphTexts(doc)).toEqual([PARAGRAPHS[0], PARAGRAPHS[1], clause, PARAGRAPHS[2]]);
    const heading = doc.getElementsByTagNameNS(W, 'b').item(0)?.parentNode?.parentNode;
    expect(heading?.textContent).toBe('Limitation of Liability. ');
    const author = changeAuthorOf(r.job.jobId, undefined);
    expect(changeMarks(doc).map((m) => [m.kind, m.paragraphMark, m.author])).toEqual([
      ['ins', true, author],
      ['ins', false, author],
    ]);
    const rejected = xmlPart(out.bytes, 'word/document.xml');
    rejectChanges(rejected, author);
    expect(paragraphTexts(rejected)).toEqual(paragraphTexts(xmlPart(original, 'word/document.xml')));
    const accepted = xmlPart(out.bytes, 'word/document.xml');
    acceptChanges(accepted, author);
    expect(paragraphTexts(accepted)).toEqual([PARAGRAPHS[0], PARAGRAPHS[1], clause, PARAGRAPHS[2]]);
    expect(changeMarks(accepted)).toEqual([]);
    // Its comment says what it is and how to leave it out.
    const comments = xmlPart(out.bytes, 'word/comments.xml').documentElement.textContent ?? '';
    expect(comments).toContain(
      'Required clause document/playbook/limitation-of-liability: the contract has none',
    );
    expect(comments).toContain('Reject the change to leave the contract without it.');
  });

  it('goes after the clause’s own words, not after a page number its text ends with', () => {
    const paragraphs = [PARAGRAPHS[0] ?? '', PARAGRAPHS[1] ?? '', '- 2 -', PARAGRAPHS[2] ?? ''];
    const text = paragraphs.join('\n');
    const ends = [0, 1, 3].map((i) => paragraphs.slice(0, i + 1).join('\n').length);
    const clauses = [
      { id: 'c0001', index: 0, start: 0, end: ends[0] ?? 0 },
      { id: 'c0002', index: 1, start: (ends[0] ?? 0) + 1, end: paragraphs.slice(0, 3).join('\n').length },
      { id: 'c0003', index: 2, start: paragraphs.slice(0, 3).join('\n').length + 1, end: text.length },
    ].map((c) => ({ ...c, text: text.slice(c.start, c.end) }));
    const out = renderReportDocx({
      report: reportOf(clauses, () => 0),
      text,
      original: buildDocx(paragraphs),
      clauses: [{ id: 'document/playbook/limitation-of-liability', afterClauseId: 'c0002', text: CAP }],
    });
    expect(paragraphTexts(xmlPart(out.bytes, 'word/document.xml'))).toEqual([
      PARAGRAPHS[0],
      PARAGRAPHS[1],
      CAP,
      '- 2 -',
      PARAGRAPHS[2],
    ]);
  });

  it('goes at the end when the playbook places it nowhere in particular, under its decider once decided', () => {
    const out = renderReportDocx({
      report: report(),
      text: TEXT,
      clauses: [
        {
          id: 'document/playbook/termination-for-breach',
          text: 'Either party may terminate for breach.',
          decidedBy: 'lee@example.com',
        },
      ],
    });
    const doc = xmlPart(out.bytes, 'word/document.xml');
    expect(paragraphTexts(doc).at(-1)).toBe('Either party may terminate for breach.');
    expect(new Set(changeMarks(doc).map((m) => m.author))).toEqual(new Set(['lee@example.com']));
  });

  it('is left out once its approvers accepted the contract without it', () => {
    const review = (decision?: 'approved' | 'rejected') =>
      ({
        playbookReview: {
          positions: [],
          missing: [
            {
              id: 'document/playbook/limitation-of-liability',
              topic: 'limitation-of-liability',
              language: CAP,
              placement: { afterClauseId: 'c0002', note: 'after the fees' },
            },
          ],
          escalations: [
            {
              findingId: 'document/playbook/limitation-of-liability',
              group: 'legal-approvers',
              reason: 'required-clause-missing',
              ...(decision ? { review: { decision, byName: 'lee@example.com' } } : {}),
            },
          ],
        },
      }) as unknown as Report;
    expect(docxClauses(review())).toEqual([
      {
        id: 'document/playbook/limitation-of-liability',
        afterClauseId: 'c0002',
        heading: 'Limitation of Liability',
        text: CAP,
      },
    ]);
    expect(docxClauses(review('rejected'))[0]?.decidedBy).toBe('lee@example.com');
    expect(docxClauses(review('approved'))).toEqual([]);
  });
});
