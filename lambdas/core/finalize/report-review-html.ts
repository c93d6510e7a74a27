/**
 * The review parts of report.html: a reviewer's decision beside each gated finding, the
 * panel's own risk beside a decided clause's, and the review section with the whole trail.
 * Every string goes through `escapeHtml`, as in the rest of the page.
 */

import { deciderOf } from '../../text/decider.js';
import type { FindingReview, Report, ReportClause } from '../report-types.js';
import { dataTable, escapeHtml, RISK_LABEL } from './report-html-kit.js';

const SCORE_LABEL: readonly string[] = ['standard', 'minor', 'significant', 'severe'];

const DECISION_LABEL: Readonly<Record<FindingReview['decision'], string>> = {
  approved: 'Approved',
  overridden: 'Overridden',
  rejected: 'Rejected',
  unreviewed: 'Unreviewed',
};

const OUTCOME_LABEL: Readonly<Record<NonNullable<Report['review']>['outcome'], string>> = {
  decided: 'every gated finding was decided',
  expired: 'the review deadline passed; undecided findings are marked unreviewed',
  cancelled: 'the job was cancelled during the review',
};

/** Trails up to this long are shown open; longer ones start collapsed (printing opens them). */
const OPEN_TRAIL_ROWS = 12;

const score = (n: number) => `${n} · ${SCORE_LABEL[n] ?? ''}`;

/** Who decided: the name the user pool vouched for, beside the person's `sub` (else the principal). */
function decider(d: Parameters<typeof deciderOf>[0]): string {
  const { name, id } = deciderOf(d);
  const code = `<code>${escapeHtml(id)}</code>`;
  return name ? `${escapeHtml(name)} (${code})` : code;
}

/** The decision line under a gated finding. */
export function findingReviewHtml(review: FindingReview): string {
  const label = DECISION_LABEL[review.decision];
  if (review.decision === 'unreviewed') {
    return `<p class="rv rv-unreviewed"><strong>${label}</strong>: no reviewer decided before the deadline; the panel's score ${escapeHtml(
      score(review.modelScore),
    )} stands.</p>`;
  }
  const change =
    review.decidedScore === review.modelScore
      ? `score ${escapeHtml(score(review.decidedScore))}`
      : `score ${escapeHtml(score(review.modelScore))} → ${escapeHtml(score(review.decidedScore))}`;
  return `<p class="rv rv-${review.decision}"><strong>${label}</strong> (${change}) by ${decider(review)} at ${escapeHtml(review.at?.replace('T', ' '))}${review.note ? `: “${escapeHtml(review.note)}”` : ''}</p>`;
}

/** The panel's risk beside a clause whose risk the decisions changed. */
export function modelRiskHtml(c: ReportClause): string {
  if (!c.model || c.model.risk === c.risk) return '';
  return ` <span class="chip risk-was" title="The panel's risk before the reviewer's decisions">panel: ${escapeHtml(
    c.model.risk ? RISK_LABEL[c.model.risk] : 'not analysed',
  )}</span>`;
}

/** The review section: gate, deadline, outcome, and every decision in the order made. */
export function renderReviewSection(report: Report): string {
  const review = report.review;
  if (!review) return '';
  const counts = new Map<string, number>();
  for (const f of review.findings) counts.set(f.decision, (counts.get(f.decision) ?? 0) + 1);
  const tally = (['approved', 'overridden', 'rejected', 'unreviewed'] as const)
    .filter((d) => counts.get(d))
    .map((d) => `${counts.get(d)} ${DECISION_LABEL[d].toLowerCase()}`)
    .join(', ');
  // Findings' and redlines' decisions in one list, in the order made.
  const rows = [
    ...review.trail.map((d) => ({
      ...d,
      id: d.findingId,
      what: `${d.verdict}${d.score !== undefined ? ` ${d.score}` : ''}`,
    })),
    ...(review.redlineTrail ?? []).map((r) => ({ ...r, id: r.redlineId, what: `redline ${r.status}` })),
  ]
    .sort((a, b) => a.at.localeCompare(b.at))
    .map(
      (d) =>
        `<tr><td>${escapeHtml(d.at.replace('T', ' '))}</td><td><code>${escapeHtml(d.id)}</code></td><td>${escapeHtml(
          d.what,
        )}</td><td>${decider(d)}</td><td>${escapeHtml(d.note ?? '')}</td></tr>`,
    );
  return `<section id="review" aria-labelledby="review-h">
<h2 id="review-h">Reviewer decisions</h2>
<p>Gate <strong>${escapeHtml(review.gate)}</strong>: ${review.findings.length} finding(s) at its risk held for a reviewer on ${escapeHtml(
    review.startedAt.replace('T', ' '),
  )}, due ${escapeHtml(review.deadline.replace('T', ' '))}. Outcome: ${escapeHtml(OUTCOME_LABEL[review.outcome])}${
    tally ? ` (${escapeHtml(tally)})` : ''
  }. Clause risks in this report use the decided scores; the panel's own risk is shown beside any they changed.</p>
${
  rows.length > 0
    ? `<details class="trail"${rows.length <= OPEN_TRAIL_ROWS ? ' open' : ''}><summary>Decision trail: ${
        rows.length
      } decision(s), oldest first (a later decision on a finding or redline supersedes an earlier one)</summary>
${dataTable('Every decision, oldest first', ['When', 'Finding', 'Decision', 'By', 'Note'], rows, true)}</details>`
    : '<p class="muted">No decision was recorded.</p>'
}
</section>`;
}
