import { riskFromScores } from '../analysts/consolidate.js';
import type { Score } from '../analysts/tool-schema.js';
import type { FindingReview, Report, ReportClause, ReportReview, Risk } from '../finalize/report-types.js';
import type { Job } from '../state/jobs.js';
import { type Decision, decidedScore, latestDecisions } from './decisions.js';
import type { GatedFinding } from './findings.js';

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
      by: d.by,
      ...(d.bySub ? { bySub: d.bySub } : {}),
      ...(d.byName ? { byName: d.byName } : {}),
      at: d.at,
      ...(d.note ? { note: d.note } : {}),
    };
  });
}

/**
 * The report with the review in it: each gated finding carries its decision; a decided
 * clause's scores, highest score and risk are recomputed from the decided scores, with the
 * panel's kept under `model`; the summary counts follow; and `review` holds the whole trail.
 */
export function applyReview(
  report: Report,
  job: Pick<
    Job,
    'gate' | 'reviewStartedAt' | 'reviewDeadline' | 'reviewCompletedAt' | 'reviewExpiredAt' | 'status'
  >,
  gated: readonly GatedFinding[],
  trail: readonly Decision[],
): Report {
  if (!job.gate || job.gate === 'none' || !job.reviewStartedAt) return report;
  const reviews = reviewOf(gated, trail);
  const byId = new Map(reviews.map((r) => [r.findingId, r]));
  const clauses = report.clauses.map((c) => reviewedClause(c, byId));
  const outcome: ReportReview['outcome'] =
    job.status === 'cancelled' ? 'cancelled' : job.reviewCompletedAt ? 'decided' : 'expired';
  const closedAt = job.reviewCompletedAt ?? job.reviewExpiredAt;
  return {
    ...report,
    clauses,
    summary: { ...report.summary, ...summaryCounts(clauses, report.summary.categoriesFlagged) },
    review: {
      gate: job.gate,
      startedAt: job.reviewStartedAt,
      deadline: new Date(job.reviewDeadline ?? 0).toISOString(),
      outcome,
      ...(closedAt ? { closedAt } : {}),
      findings: reviews,
      trail: trail.map((d) => ({ ...d })),
    },
  };
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
