/**
 * The review parts of report.html: a reviewer's decision beside each gated finding, the
 * panel's own risk beside a decided clause's, and the review section with the whole trail.
 * Every string goes through `escapeHtml`, as in the rest of the page.
 */

import type { FindingReview, Report, ReportClause, Risk } from './report-types.js';

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

type Escape = (value: unknown) => string;

/** Trails up to this long are shown open; longer ones start collapsed (printing opens them). */
const OPEN_TRAIL_ROWS = 12;

const score = (n: number) => `${n} · ${SCORE_LABEL[n] ?? ''}`;

/** The decision line under a gated finding. */
export function findingReviewHtml(review: FindingReview, escapeHtml: Escape): string {
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
  return `<p class="rv rv-${review.decision}"><strong>${label}</strong> (${change}) by <code>${escapeHtml(
    review.by,
  )}</code> at ${escapeHtml(review.at?.replace('T', ' '))}${review.note ? `: “${escapeHtml(review.note)}”` : ''}</p>`;
}

/** The panel's risk beside a clause whose risk the decisions changed. */
export function modelRiskHtml(
  c: ReportClause,
  riskLabel: Readonly<Record<Risk, string>>,
  escapeHtml: Escape,
): string {
  if (!c.model || c.model.risk === c.risk) return '';
  return ` <span class="chip risk-was" title="The panel's risk before the reviewer's decisions">panel: ${escapeHtml(
    c.model.risk ? riskLabel[c.model.risk] : 'not analysed',
  )}</span>`;
}

/** The review section: gate, deadline, outcome, and every decision in the order made. */
export function renderReviewSection(report: Report, escapeHtml: Escape): string {
  const review = report.review;
  if (!review) return '';
  const counts = new Map<string, number>();
  for (const f of review.findings) counts.set(f.decision, (counts.get(f.decision) ?? 0) + 1);
  const tally = (['approved', 'overridden', 'rejected', 'unreviewed'] as const)
    .filter((d) => counts.get(d))
    .map((d) => `${counts.get(d)} ${DECISION_LABEL[d].toLowerCase()}`)
    .join(', ');
  const rows = review.trail
    .map(
      (d) =>
        `<tr><td>${escapeHtml(d.at.replace('T', ' '))}</td><td><code>${escapeHtml(d.findingId)}</code></td><td>${escapeHtml(
          d.verdict,
        )}${d.score !== undefined ? ` ${escapeHtml(d.score)}` : ''}</td><td><code>${escapeHtml(d.by)}</code></td><td>${escapeHtml(
          d.note ?? '',
        )}</td></tr>`,
    )
    .join('\n');
  return `<section id="review" aria-labelledby="review-h">
<h2 id="review-h">Reviewer decisions</h2>
<p>Gate <strong>${escapeHtml(review.gate)}</strong>: ${review.findings.length} finding(s) held for a reviewer on ${escapeHtml(
    review.startedAt.replace('T', ' '),
  )}, due ${escapeHtml(review.deadline.replace('T', ' '))}. Outcome: ${escapeHtml(OUTCOME_LABEL[review.outcome])}${
    tally ? ` (${escapeHtml(tally)})` : ''
  }. Clause risks in this report use the decided scores; the panel's own risk is shown beside any they changed.</p>
${
  rows
    ? `<details class="trail"${review.trail.length <= OPEN_TRAIL_ROWS ? ' open' : ''}><summary>Decision trail: ${
        review.trail.length
      } decision(s), oldest first (a later decision on a finding supersedes an earlier one)</summary>
<table class="trail">
<thead><tr><th>When</th><th>Finding</th><th>Decision</th><th>By</th><th>Note</th></tr></thead>
<tbody>
${rows}
</tbody></table></details>`
    : '<p class="muted">No decision was recorded.</p>'
}
</section>`;
}

/** Styles of the review parts. */
export const REVIEW_CSS = `
.rv{margin:.3rem 0;padding:.25rem .6rem;border-radius:4px;font-size:.92em}
.rv-approved{background:#eaf6ec}.rv-overridden{background:#fff4e0}.rv-rejected{background:#eef0f2}.rv-unreviewed{background:#fdecea}
.chip.risk-was{background:#eef0f2;color:#444;font-weight:normal}
table.trail{border-collapse:collapse;width:100%;font-size:.9em}
table.trail th,table.trail td{border-bottom:1px solid #e3e6ea;padding:.3rem .5rem;text-align:left;vertical-align:top}
details.trail summary{cursor:pointer;color:#555;padding:.3rem 0}
`;
