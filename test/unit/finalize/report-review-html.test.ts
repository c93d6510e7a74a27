/** The review parts of report.html name a decider by email where the trail knows it. */
import { describe, expect, it } from 'vitest';
import { findingReviewHtml, renderReviewSection } from '../../../lambdas/core/finalize/report-review-html.js';
import type { Report } from '../../../lambdas/core/report-types.js';

const IDENTITY = 'cognito-identity:us-east-1:11111111-1111-1111-1111-111111111111';
const SUB = '2f1e0d0c-0000-4000-8000-000000000001';

describe('the review in report.html', () => {
  it('names the person by email beside their identity, and the principal alone where no name is known', () => {
    const review = {
      findingId: 'c0001/liability',
      decision: 'approved' as const,
      modelScore: 3,
      decidedScore: 3,
      by: IDENTITY,
      byName: 'o<b>@example.com',
      at: '2026-03-01T09:00:00.000Z',
    };
    expect(findingReviewHtml(review)).toContain(`by o&lt;b&gt;@example.com (<code>${IDENTITY}</code>) at`);
    expect(findingReviewHtml({ ...review, byName: undefined })).toContain(`by <code>${IDENTITY}</code> at`);
    // A person of the user pool is named by their permanent id, and by the name the pool
    // vouched for only when the trail recorded one.
    expect(findingReviewHtml({ ...review, bySub: SUB })).toContain(
      `by o&lt;b&gt;@example.com (<code>${SUB}</code>) at`,
    );
    expect(findingReviewHtml({ ...review, bySub: SUB, byName: undefined })).toContain(
      `by <code>${SUB}</code> at`,
    );
    const report = {
      review: {
        gate: 'high',
        startedAt: '2026-03-01T08:00:00.000Z',
        deadline: '2026-03-02T08:00:00.000Z',
        outcome: 'decided',
        findings: [review],
        trail: [
          {
            findingId: 'c0001/liability',
            verdict: 'approve',
            by: IDENTITY,
            byName: 'anna@example.com',
            at: review.at,
          },
          {
            findingId: 'c0001/liability',
            verdict: 'approve',
            by: 'arn:aws:iam::1:user/counsel',
            at: review.at,
          },
        ],
      },
    } as unknown as Report;
    const html = renderReviewSection(report);
    expect(html).toContain(`<td>anna@example.com (<code>${IDENTITY}</code>)</td>`);
    expect(html).toContain('<td><code>arn:aws:iam::1:user/counsel</code></td>');
  });
});
