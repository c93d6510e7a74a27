import { describe, expect, it } from 'vitest';
import { attachmentDisposition, reportFilename } from '../../../lambdas/core/jobs/report-download.js';

describe('report downloads', () => {
  it('name a report after the contract, else after the job', () => {
    expect(reportFilename('incoming/s-1/Supply Agreement.pdf', 'j-1', 'html')).toBe(
      'Supply Agreement.review.html',
    );
    expect(reportFilename('incoming/s-1/terms', 'j-1', 'docx')).toBe('terms.review.docx');
    expect(reportFilename('incoming/s-1/.pdf', 'j-1', 'json')).toBe('j-1.review.json');
  });

  it('say attachment with a plain-ASCII name and the exact one in UTF-8, quotes and all escaped', () => {
    expect(attachmentDisposition('a.review.html')).toBe(
      `attachment; filename="a.review.html"; filename*=UTF-8''a.review.html`,
    );
    expect(attachmentDisposition('Vertrag “Müller” (2)\\"x*.review.html')).toBe(
      `attachment; filename="Vertrag _M_ller_ (2)__x*.review.html"; ` +
        `filename*=UTF-8''Vertrag%20%E2%80%9CM%C3%BCller%E2%80%9D%20%282%29%5C%22x%2A.review.html`,
    );
  });
});
