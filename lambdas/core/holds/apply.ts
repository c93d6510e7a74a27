import { riskFromScores } from '../analysts/consolidate.js';
import type { Score } from '../analysts/tool-schema.js';
import type {
  EscalationEntry,
  FindingReview,
  Report,
  ReportClause,
  ReportReview,
  Risk,
} from '../finalize/report-types.js';
import type { EscalationReview, RedlineDecisionRecord } from '../playbooks/index.js';
import type { Job } from '../state/jobs.js';
import { type Decision, decidedScore, latestDecisions } from './decisions.js';
import type { GatedFinding } from './findings.js';
import { latestRedlineDecisions, redlineDecisionOf } from './redline-trail.js';
import type { HeldFindings } from './review.js';
import { decidedBy } from './trail.js';

const RISKS: readonly Risk[] = ['none', 'low', 'medium', 'high', 'critical'];

const DECIDED: Readonly<Record<Decision['verdict'], FindingReview['decision']>> = {
  approve: 'approved',
  override: 'overridden',
  reject: 'rejected',
};

/** How each gated finding stands: its decision in force, or `unreviewed`. */
export function reviewOf(gated: readonly GatedFinding[], trail: readonly Decision[]): FindingReview[] {
  const latest = latestDecisions(trail);
  return gated.map((g) => {
    const d = latest.get(g.id);
    if (!d) return { findingId: g.id, decision: 'unreviewed', modelScore: g.score, decidedScore: g.score };
    return {
      findingId: g.id,
      decision: DECIDED[d.verdict],
      modelScore: g.score,
      decidedScore: decidedScore(d, g.score),
      ...decidedBy(d),
    };
  });
}

/**
 * The report with the review in it: each gated finding carries its decision; a decided
 * clause's scores, highest score and risk are recomputed from the decided scores, with the
 * panel's kept under `model`; the summary counts follow; each escalation a playbook review
 * held carries its decision; each proposed redline the decision in force on it; and `review`
 * holds both trails whole.
 */
export function applyReview(
  report: Report,
  job: Pick<
    Job,
    'gate' | 'reviewStartedAt' | 'reviewDeadline' | 'reviewCompletedAt' | 'reviewExpiredAt' | 'status'
  >,
  held: Pick<HeldFindings, 'findings' | 'escalations'>,
  trail: readonly Decision[],
  redlineTrail: readonly RedlineDecisionRecord[] = [],
): Report {
  if (!job.gate || job.gate === 'none' || !job.reviewStartedAt) return report;
  const reviews = reviewOf(held.findings, trail);
  const byId = new Map(reviews.map((r) => [r.findingId, r]));
  const clauses = withRedlineDecisions(report.clauses, redlineTrail).map((c) => reviewedClause(c, byId));
  const outcome: ReportReview['outcome'] =
    job.status === 'cancelled' ? 'cancelled' : job.reviewCompletedAt ? 'decided' : 'expired';
  const closedAt = job.reviewCompletedAt ?? job.reviewExpiredAt;
  const escalated = new Set((held.escalations ?? []).map((e) => e.id));
  const latest = latestDecisions(trail);
  return {
    ...report,
    clauses,
    summary: { ...report.summary, ...summaryCounts(clauses, report.summary.categoriesFlagged) },
    ...(report.playbookReview
      ? {
          playbookReview: {
            ...report.playbookReview,
            escalations: report.playbookReview.escalations.map((e) =>
              escalated.has(e.findingId) ? escalationReviewed(e, latest) : e,
            ),
          },
        }
      : {}),
    review: {
      gate: job.gate,
      startedAt: job.reviewStartedAt,
      deadline: new Date(job.reviewDeadline ?? 0).toISOString(),
      outcome,
      ...(closedAt ? { closedAt } : {}),
      findings: reviews,
      trail: trail.map((d) => ({ ...d })),
      ...(redlineTrail.length > 0 ? { redlineTrail: redlineTrail.map((r) => ({ ...r })) } : {}),
    },
  };
}

const ESCALATION_DECIDED: Readonly<Record<Decision['verdict'], EscalationReview['decision']>> = {
  approve: 'approved',
  // An escalation is never overridden (decide refuses it); a score would not change a rung.
  override: 'approved',
  reject: 'rejected',
};

/** An escalation a review held, with its decision in force, or `unreviewed`. */
function escalationReviewed(e: EscalationEntry, latest: ReadonlyMap<string, Decision>): EscalationEntry {
  const d = latest.get(e.findingId);
  if (!d) return { ...e, review: { decision: 'unreviewed' } };
  return { ...e, review: { decision: ESCALATION_DECIDED[d.verdict], ...decidedBy(d) } };
}

/**
 * The clauses with the decision in force on each proposed redline (the latest of the trail, or
 * `proposed`): what report.json shows, and what report.docx reads to leave the rejected ones out.
 */
export function withRedlineDecisions(
  clauses: readonly ReportClause[],
  redlineTrail: readonly RedlineDecisionRecord[],
): ReportClause[] {
  const latest = latestRedlineDecisions(redlineTrail);
  return clauses.map((c) =>
    c.positions?.some((p) => p.redline)
      ? {
          ...c,
          positions: c.positions.map((p) =>
            p.redline
              ? {
                  ...p,
                  redline: { ...p.redline, decision: redlineDecisionOf(c.text, latest.get(p.redline.id)) },
                }
              : p,
          ),
        }
      : c,
  );
}

function reviewedClause(c: ReportClause, reviews: ReadonlyMap<string, FindingReview>): ReportClause {
  const own = Object.keys(c.scores)
    .map((category) => reviews.get(`${c.id}/${category}`))
    .filter((r): r is FindingReview => r !== undefined);
  if (own.length === 0) return c;
  const scores: Record<string, number | null> = { ...c.scores };
  for (const r of own) scores[r.findingId.slice(c.id.length + 1)] = r.decidedScore;
  const values = Object.values(scores) as (Score | null)[];
  const scored = values.filter((s): s is Score => s !== null);
  return {
    ...c,
    scores,
    maxScore: scored.length > 0 ? Math.max(...scored) : null,
    risk: riskFromScores(values),
    findings: c.findings.map((f) => {
      const review = reviews.get(`${c.id}/${f.category}`);
      return review ? { ...f, review } : f;
    }),
    model: { risk: c.risk, maxScore: c.maxScore, scores: c.scores },
  };
}

function summaryCounts(clauses: readonly ReportClause[], flaggedBefore: Readonly<Record<string, number>>) {
  const riskCounts = Object.fromEntries(RISKS.map((r) => [r, 0])) as Record<Risk, number>;
  const categoriesFlagged: Record<string, number> = Object.fromEntries(
    Object.keys(flaggedBefore).map((k) => [k, 0]),
  );
  for (const c of clauses) {
    if (c.risk) riskCounts[c.risk]++;
    for (const [cat, score] of Object.entries(c.scores))
      if ((score ?? 0) >= 2) categoriesFlagged[cat] = (categoriesFlagged[cat] ?? 0) + 1;
  }
  return { riskCounts, categoriesFlagged };
}
