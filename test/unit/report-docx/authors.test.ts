/**
 * Whose is a comment in report.docx: ours carry the job id in the author Word shows; comments and
 * changes already in the upload under our name (typed by someone, or left by an earlier job's
 * report.docx) are relabelled as the original's, their text and ranges kept, so report.docx never
 * shows someone else's comment as ours.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import {
  authorOf,
  COMMENT_AUTHOR,
  claimsOurName,
  IN_THE_ORIGINAL,
  paragraphTexts,
  renderReportDocx,
} from '../../../lambdas/core/report-docx/index.js';
import { docxOf, rangedText, reportOf, W, xmlPart } from '../../helpers/docx-report.js';

const JOB = 'j-0123456789abcdef0123';
const NS = `xmlns:w="${W}"`;

describe('our name', () => {
  it('carries the job id, and is told from look-alikes and from comments already marked as the original’s', () => {
    expect(authorOf(JOB)).toBe(`${COMMENT_AUTHOR} (${JOB})`);
    for (const name of [
      'clause-review',
      'Clause Review',
      'CLAUSE_REVIEW',
      ' clause‑review (j-0000)',
      'clausereview bot',
      authorOf(JOB),
      'ｃｌａｕｓｅ-ｒｅｖｉｅｗ',
    ])
      expect(claimsOurName(name), name).toBe(true);
    for (const name of ['Counsel', 'Review Board', 'clause', `${authorOf('j-1')}${IN_THE_ORIGINAL}`])
      expect(claimsOurName(name), name).toBe(false);
  });
});

describe('comments and changes of the upload under our name', () => {
  it('are relabelled as the original’s, keeping their text and ranges; only ours carry our author', async () => {
    const comment = (id: number, author: string, text: string) =>
      `<w:comment w:id="${id}" w:author="${author}" w:initials="CR"><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:comment>`;
    const authors: Record<number, string> = {
      3: 'clause-review',
      4: 'Clause Review',
      5: authorOf(JOB), // forged with this very job's id
      6: 'Counsel',
      9: `${authorOf('j-earlier')}${IN_THE_ORIGINAL}`,
    };
    const ranged = (id: number, text: string) =>
      `<w:commentRangeStart w:id="${id}"/><w:r><w:t xml:space="preserve">${text}</w:t></w:r><w:commentRangeEnd w:id="${id}"/><w:r><w:commentReference w:id="${id}"/></w:r>`;
    const body = [
      `<w:p>${ranged(3, '1. Fees. ')}${ranged(4, 'Client pays ')}${ranged(5, 'each invoice ')}${ranged(6, 'within ')}${ranged(9, '30 days.')}</w:p>`,
      `<w:p><w:ins w:id="10" w:author="clause-review" w:date="2025-01-01T00:00:00Z"><w:r><w:t xml:space="preserve">2. Term. </w:t></w:r></w:ins><w:r><w:t>Two years.</w:t></w:r><w:del w:id="11" w:author="clause‑review (j-earlier)" w:date="2025-01-01T00:00:00Z"><w:r><w:delText> Renewable.</w:delText></w:r></w:del></w:p>`,
    ].join('');
    const original = docxOf(body, {
      comments: `${Object.entries(authors)
        .map(([id, a]) => comment(Number(id), a, `said by ${id}`))
        .join('')}`,
      parts: {
        'word/header1.xml': `<?xml version="1.0" encoding="UTF-8"?><w:hdr ${NS}><w:p><w:ins w:id="12" w:author="clause-review" w:date="2025-01-01T00:00:00Z"><w:r><w:t>Draft</w:t></w:r></w:ins></w:p></w:hdr>`,
      },
    });
    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    const report = reportOf(parsed.clauses, () => 0.99);
    const out = renderReportDocx({ report, text: parsed.text, original });
    expect(out.comments).toBe(parsed.clauses.length);

    const comments = xmlPart(out.bytes, 'word/comments.xml').getElementsByTagNameNS(W, 'comment');
    const all = Array.from({ length: comments.length }, (_, i) => comments.item(i) as Element).map((c) => ({
      id: Number(c.getAttributeNS(W, 'id')),
      author: c.getAttributeNS(W, 'author'),
      initials: c.getAttributeNS(W, 'initials'),
      text: c.textContent,
    }));
    const theirs = all.filter((c) => c.id in authors);
    expect(theirs).toEqual([
      { id: 3, author: `clause-review${IN_THE_ORIGINAL}`, initials: 'CR', text: 'said by 3' },
      { id: 4, author: `Clause Review${IN_THE_ORIGINAL}`, initials: 'CR', text: 'said by 4' },
      { id: 5, author: `${authorOf(JOB)}${IN_THE_ORIGINAL}`, initials: 'CR', text: 'said by 5' },
      { id: 6, author: 'Counsel', initials: 'CR', text: 'said by 6' },
      { id: 9, author: authors[9], initials: 'CR', text: 'said by 9' },
    ]);
    // Ours, and only ours, under this job's author.
    const ours = all.filter((c) => c.author === authorOf(JOB));
    expect(ours).toHaveLength(out.comments);
    expect(ours.every((c) => !(c.id in authors) && c.initials === 'CR')).toBe(true);

    // Their ranges still cover what they did; the document's text is the same.
    const doc = xmlPart(out.bytes, 'word/document.xml');
    const ranges = rangedText(doc);
    expect([3, 4, 5, 6, 9].map((id) => ranges.get(String(id)))).toEqual([
      '1. Fees. ',
      'Client pays ',
      'each invoice ',
      'within ',
      '30 days.',
    ]);
    expect(paragraphTexts(doc)).toEqual(paragraphTexts(xmlPart(original, 'word/document.xml')));
    // Tracked changes under our name, in the body and in a header, are the original's too.
    const changeAuthors = (d: Document) =>
      ['ins', 'del'].flatMap((local) => {
        const found = d.getElementsByTagNameNS(W, local);
        return Array.from({ length: found.length }, (_, i) =>
          (found.item(i) as Element).getAttributeNS(W, 'author'),
        );
      });
    expect(changeAuthors(doc)).toEqual([
      `clause-review${IN_THE_ORIGINAL}`,
      `clause‑review (j-earlier)${IN_THE_ORIGINAL}`,
    ]);
    expect(changeAuthors(xmlPart(out.bytes, 'word/header1.xml'))).toEqual([
      `clause-review${IN_THE_ORIGINAL}`,
    ]);
    expect(out.relabelled).toBe(3 + 2 + 1);
  });
});
