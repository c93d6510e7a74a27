import { describe, expect, it } from 'vitest';
import { findingLines } from '../../../bin/commands/hold-commands.js';
import type { ListedFinding } from '../../../lambdas/core/holds/review.js';

const finding: ListedFinding = {
  id: 'f-0003-liability',
  clauseId: 'clause-c0003',
  clauseIndex: 3,
  label: '3.',
  heading: 'Liability',
  category: 'liability',
  score: 3,
  clauseRisk: 'critical',
  quotes: [{ quote: 'unlimited liability', start: 10, end: 29 }],
  rationale: 'Liability is uncapped.',
  analysts: ['liability'],
  gated: true,
  mayDecide: true,
};
const principal = 'arn:aws:sts::123456789012:assumed-role/reviewer/ana';

describe('findingLines', () => {
  it('names the person who decided, with the principal the decision was made as', () => {
    const [first] = findingLines({
      ...finding,
      decision: {
        verdict: 'override',
        score: 1,
        by: principal,
        byName: 'ana@example.com',
        at: '2026-11-26T10:00:00Z',
      },
    });
    expect(first).toContain(`→ override 1 by ana@example.com (${principal}) at 2026-11-26T10:00:00Z`);
  });

  it('names a person of the user pool by their sub, beside a vouched-for name or alone', () => {
    const sub = '2f1e0d0c-0000-4000-8000-000000000001';
    const decision = { verdict: 'approve' as const, by: principal, bySub: sub, at: '2026-11-26T10:00:00Z' };
    expect(findingLines({ ...finding, decision: { ...decision, byName: 'ana@example.com' } })[0]).toContain(
      `→ approve by ana@example.com (${sub}) at`,
    );
    expect(findingLines({ ...finding, decision })[0]).toContain(`→ approve by ${sub} at`);
  });

  it('names the principal alone when no name was recorded (a caller with IAM credentials)', () => {
    const [first] = findingLines({
      ...finding,
      decision: { verdict: 'approve', by: principal, at: '2026-11-26T10:00:00Z' },
    });
    expect(first).toContain(`→ approve by ${principal} at`);
  });

  it('marks an undecided gated finding', () => {
    expect(findingLines(finding)[0]).toMatch(/· gated {2}→ undecided$/);
  });
});
