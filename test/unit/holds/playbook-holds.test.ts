/**
 * What a review gate holds of a review against a playbook (core/holds/playbook-holds.ts), who
 * may decide it, what is left undecided, and the report with the decisions applied
 * (core/holds/apply.ts): escalations approved, rejected or unreviewed, and each redline's
 * decision in force.
 */
import { describe, expect, it } from 'vitest';
import { applyReview, withRedlineDecisions } from '../../../lambdas/core/holds/apply.js';
import type { Decision } from '../../../lambdas/core/holds/decisions.js';
import {
  approverGroupsOf,
  decisionRights,
  playbookHolds,
} from '../../../lambdas/core/holds/playbook-holds.js';
import { latestRedlineDecisions, redlineDecisionOf } from '../../../lambdas/core/holds/redline-trail.js';
import { heldCount, undecidedCount } from '../../../lambdas/core/holds/review.js';
import {
  approverGroups,
  type RedlineDecisionRecord,
  shippedApproverGroups,
  shippedPlaybooks,
} from '../../../lambdas/core/playbooks/index.js';
import type { Report, ReportClause } from '../../../lambdas/core/report-types.js';
import { missingClause, playbookReviewOf, positionOn } from '../../helpers/playbook-positions.js';

const CAP =
  'Each party’s total liability is limited to fifty per cent (50%) of the fees paid in the prior year.';
const NOTICE = 'The Customer may terminate for convenience on ninety (90) days written notice.';

function clause(id: string, index: number, text: string, start: number): ReportClause {
  return {
    id,
    index,
    chunk: 0,
    label: `${index + 1}.`,
    heading: id === 'c0001' ? 'Liability' : 'Termination',
    start,
    end: start + text.length,
    text,
    status: 'analysed',
    risk: 'high',
    maxScore: 3,
    scores: { liability: 3 },
    findings: [],
    analystsAnswered: ['liability-counsel'],
    analystsFailed: [],
  };
}

const cap = clause('c0001', 0, CAP, 0);
const notice = clause('c0002', 1, NOTICE, CAP.length + 2);
const capAt = CAP.indexOf('fifty per cent (50%)');
const noticeAt = NOTICE.indexOf('ninety (90)');
const clauses: ReportClause[] = [
  {
    ...cap,
    positions: [
      positionOn(cap, {
        topic: 'limitation-of-liability',
        category: 'liability',
        rung: { rung: 'not-acceptable' },
        escalation: { group: 'legal-approvers', reason: 'not-acceptable' },
        redline: {
          edits: [
            {
              start: capAt,
              end: capAt + 'fifty per cent (50%)'.length,
              insert: 'one hundred per cent (100%)',
            },
          ],
          target: { rung: 'fallback', fallback: 2 },
        },
      }),
    ],
  },
  {
    ...notice,
    positions: [
      positionOn(notice, {
        topic: 'termination-for-convenience',
        category: 'termination',
        rung: { rung: 'fallback', fallback: 1 },
        escalation: { group: 'commercial-approvers', reason: 'fallback-approver' },
        redline: {
          edits: [{ start: noticeAt, end: noticeAt + 'ninety (90)'.length, insert: 'thirty (30)' }],
          target: { rung: 'standard' },
        },
      }),
      positionOn(notice, { topic: 'exit-assistance', category: 'termination', rung: { rung: 'standard' } }),
    ],
  },
];
const missing = [missingClause('governing-law', 'governing-law-disputes', 'administrators')];
const report = {
  clauses,
  categories: [{ id: 'liability', name: 'Liability' }],
  summary: { clauses: 2, clausesAnalysed: 2, riskCounts: {}, categoriesFlagged: { liability: 2 } },
  playbookReview: playbookReviewOf(clauses, missing),
} as unknown as Report;

const at = '2026-03-01T10:00:00.000Z';
const by = 'cognito-identity:us-east-1:11111111-2222-3333-4444-555555555555';

describe('playbookHolds', () => {
  it('holds each escalated finding for its group and each proposed redline with its clause, then the missing clauses', () => {
    const { escalations, redlines } = playbookHolds(report);
    expect(escalations.map((e) => [e.id, e.escalation.group, e.rung?.rung ?? 'missing'])).toEqual([
      ['c0001/playbook/limitation-of-liability', 'legal-approvers', 'not-acceptable'],
      ['c0002/playbook/termination-for-convenience', 'commercial-approvers', 'fallback'],
      ['document/playbook/governing-law', 'administrators', 'missing'],
    ]);
    expect(escalations[0]).toMatchObject({
      clause: { id: 'c0001', index: 0, label: '1.', heading: 'Liability' },
      quotes: [{ quote: CAP.slice(0, 40), start: 0, end: 40 }],
      analysts: ['liability-counsel'],
    });
    expect(escalations[2]).toMatchObject({
      language: 'Model language of the governing-law clause.',
      rationale: 'No clause addresses it. At the end of the terms.',
      quotes: [],
    });
    expect(escalations[2]?.clause).toBeUndefined();
    expect(redlines.map((r) => [r.id, r.findingId, r.rung, r.clause.text])).toEqual([
      [
        'c0001/redline/limitation-of-liability',
        'c0001/playbook/limitation-of-liability',
        { rung: 'not-acceptable' },
        CAP,
      ],
      [
        'c0002/redline/termination-for-convenience',
        'c0002/playbook/termination-for-convenience',
        { rung: 'fallback', fallback: 1 },
        NOTICE,
      ],
    ]);
    expect(redlines[1]?.text).toBe(NOTICE.replace('ninety (90)', 'thirty (30)'));
    expect('decision' in (redlines[0] ?? {})).toBe(false);
    expect(playbookHolds({ clauses: [cap] })).toEqual({ escalations: [], redlines: [] });
  });

  it('names the approver groups a review waits for, administrators left out (they see every job)', () => {
    expect(approverGroupsOf(playbookHolds(report).escalations)).toEqual([
      'commercial-approvers',
      'legal-approvers',
    ]);
  });
});

describe('approverGroups', () => {
  it('names every group a playbook escalates to, once: fallback approvers, exception approvers, required clauses', () => {
    const [playbook] = shippedPlaybooks().map((p) => p.playbook);
    if (!playbook) throw new Error('no shipped playbook');
    expect(approverGroups(playbook)).toEqual(['commercial-approvers', 'legal-approvers']);
    const position = playbook.positions[0];
    if (!position) throw new Error('no position');
    expect(
      approverGroups({
        positions: [
          {
            ...position,
            fallbacks: [{ ...position.standard, approver: 'board' }],
            exceptionApprover: undefined,
          },
        ],
        requiredClauses: [{ ...(playbook.requiredClauses[0] ?? ({} as never)), approver: 'general-counsel' }],
      }),
    ).toEqual(['board', 'general-counsel']);
    expect(shippedApproverGroups()).toEqual(['commercial-approvers', 'legal-approvers']);
  });
});

describe('decisionRights', () => {
  it('gives the job its reviewer, and each escalation its group; an administrator decides everything', () => {
    const owner = decisionRights(true, false, []);
    expect([owner.reviewer, owner.approves('legal-approvers')]).toEqual([true, false]);
    const approver = decisionRights(false, false, ['legal-approvers']);
    expect([
      approver.reviewer,
      approver.approves('legal-approvers'),
      approver.approves('commercial-approvers'),
    ]).toEqual([false, true, false]);
    const admin = decisionRights(false, true);
    expect([admin.reviewer, admin.approves('legal-approvers'), admin.approves('administrators')]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('gives the owner of a job none of its escalations, in the group or an administrator, unless the stack lets owners', () => {
    const member = decisionRights(true, false, ['legal-approvers'], true);
    expect([member.reviewer, member.approves('legal-approvers'), member.ownJob]).toEqual([true, false, true]);
    const admin = decisionRights(true, true, [], true);
    expect([admin.reviewer, admin.approves('legal-approvers')]).toEqual([true, false]);
    expect(decisionRights(true, false, ['legal-approvers'], false).approves('legal-approvers')).toBe(true);
  });
});

const decision = (
  findingId: string,
  verdict: Decision['verdict'],
  extra: Partial<Decision> = {},
): Decision => ({
  findingId,
  verdict,
  by,
  at,
  ...extra,
});
const redlineDecision = (
  redlineId: string,
  status: RedlineDecisionRecord['status'],
  extra: Partial<RedlineDecisionRecord> = {},
): RedlineDecisionRecord => ({ redlineId, status, by, at, ...extra });

describe('undecidedCount', () => {
  it('counts the findings, escalations and redlines a review holds with no decision yet', () => {
    const held = { gate: 'high' as const, findings: [], ...playbookHolds(report) };
    expect(heldCount(held)).toBe(5);
    expect(undecidedCount(held, [], [])).toBe(5);
    expect(
      undecidedCount(
        held,
        [decision('c0001/playbook/limitation-of-liability', 'approve'), decision('elsewhere', 'approve')],
        [redlineDecision('c0002/redline/termination-for-convenience', 'rejected')],
      ),
    ).toBe(3);
  });
});

describe('redline decisions in force', () => {
  it('keeps the latest per redline; an edited one shows the clause as the reviewer’s edits make it', () => {
    const id = 'c0002/redline/termination-for-convenience';
    const trail = [
      redlineDecision(id, 'accepted'),
      redlineDecision(id, 'edited', {
        edits: [{ start: noticeAt, end: noticeAt + 'ninety (90)'.length, insert: 'sixty (60)' }],
        bySub: '1f2e',
        byName: 'ana@example.com',
        note: 'sixty is what they will sign',
      }),
    ];
    const latest = latestRedlineDecisions(trail);
    expect(latest.get(id)?.status).toBe('edited');
    expect(redlineDecisionOf(NOTICE, latest.get(id))).toEqual({
      status: 'edited',
      edits: [{ start: noticeAt, end: noticeAt + 11, insert: 'sixty (60)' }],
      text: NOTICE.replace('ninety (90)', 'sixty (60)'),
      by,
      bySub: '1f2e',
      byName: 'ana@example.com',
      at,
      note: 'sixty is what they will sign',
    });
    expect(redlineDecisionOf(NOTICE, undefined)).toEqual({ status: 'proposed' });
    const shown = withRedlineDecisions(clauses, trail);
    expect(shown[1]?.positions?.[0]?.redline?.decision.text).toBe(
      NOTICE.replace('ninety (90)', 'sixty (60)'),
    );
    expect(shown[0]?.positions?.[0]?.redline?.decision).toEqual({ status: 'proposed' });
    // A clause with no redline is the same object.
    expect(withRedlineDecisions([cap], trail)[0]).toBe(cap);
  });
});

describe('applyReview of a review against a playbook', () => {
  const job = {
    gate: 'high' as const,
    status: 'awaiting_review' as const,
    reviewStartedAt: at,
    reviewDeadline: Date.parse(at) + 3_600_000,
    reviewCompletedAt: at,
  };
  const held = { findings: [], escalations: playbookHolds(report).escalations };

  it('gives each held escalation its decision or unreviewed, each redline the decision in force, and keeps both trails', () => {
    const trail = [
      decision('c0001/playbook/limitation-of-liability', 'approve', {
        bySub: '9a8b',
        byName: 'lee@example.com',
        note: 'the supplier is small; legal accepts it',
      }),
      decision('document/playbook/governing-law', 'reject'),
    ];
    const redlineTrail = [
      redlineDecision('c0001/redline/limitation-of-liability', 'accepted'),
      redlineDecision('c0002/redline/termination-for-convenience', 'rejected'),
    ];
    const out = applyReview(report, job, held, trail, redlineTrail);
    expect(out.playbookReview?.escalations).toEqual([
      {
        findingId: 'c0001/playbook/limitation-of-liability',
        group: 'legal-approvers',
        reason: 'not-acceptable',
        review: {
          decision: 'approved',
          by,
          bySub: '9a8b',
          byName: 'lee@example.com',
          at,
          note: 'the supplier is small; legal accepts it',
        },
      },
      {
        findingId: 'c0002/playbook/termination-for-convenience',
        group: 'commercial-approvers',
        reason: 'fallback-approver',
        review: { decision: 'unreviewed' },
      },
      {
        findingId: 'document/playbook/governing-law',
        group: 'administrators',
        reason: 'required-clause-missing',
        review: { decision: 'rejected', by, at },
      },
    ]);
    expect(out.clauses.map((c) => c.positions?.[0]?.redline?.decision.status)).toEqual([
      'accepted',
      'rejected',
    ]);
    expect(out.review?.trail).toEqual(trail);
    expect(out.review?.redlineTrail).toEqual(redlineTrail);
  });

  it('leaves an escalation the review did not hold without a review, and a report with no redline decision without a redline trail', () => {
    const out = applyReview(report, job, { findings: [] }, [], []);
    expect(out.playbookReview?.escalations.every((e) => e.review === undefined)).toBe(true);
    expect(out.review?.redlineTrail).toBeUndefined();
    expect(out.clauses.map((c) => c.positions?.[0]?.redline?.decision.status)).toEqual([
      'proposed',
      'proposed',
    ]);
  });
});
