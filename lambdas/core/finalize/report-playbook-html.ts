/**
 * report.html's review against a playbook: the required clauses found nowhere and every
 * position over the contract, at the top; and under each clause, the positions it addresses
 * with the rung it reaches, who must approve it, and the proposed language beside the clause's
 * own (the redline as deleted and inserted text, marked by `<del>` and `<ins>`, struck through
 * and underlined, and named in words for a screen reader: never by colour alone) with the
 * reviewer's decision.
 */

import { deciderOf } from '../../text/decider.js';
import type { RedlineEdit } from '../../text/redline-edits.js';
import { editSegments, rungLabel } from '../../text/redline-text.js';
import { coverageText, reviewedForText, shapeText, sourceText } from '../../text/review-terms.js';
import type { EscalationEntry, PositionFinding, ProposedRedline } from '../playbooks/index.js';
import type { Report, ReportClause } from '../report-types.js';
import { dataTable, escapeHtml } from './report-html-kit.js';

const REASON: Readonly<Record<EscalationEntry['reason'], string>> = {
  'fallback-approver': 'the fallback needs its approver',
  'not-acceptable': 'below every fallback: an exception',
  'required-clause-missing': 'a required clause is missing',
};

const ESCALATION_DECIDED: Readonly<Record<NonNullable<EscalationEntry['review']>['decision'], string>> = {
  approved: 'Approved',
  rejected: 'Rejected',
  unreviewed: 'Not decided before the deadline',
};

const REDLINE_DECIDED: Readonly<Record<ProposedRedline['decision']['status'], string>> = {
  proposed: 'Proposed, not decided: report.docx carries it as a tracked change to accept or reject in Word',
  accepted: 'Accepted',
  rejected: 'Rejected: report.docx leaves it out',
  edited: "Edited: report.docx carries the reviewer's edit",
};

/** Who decided, as the other decisions name them: the vouched-for name beside the `sub` (else the principal). */
function decider(d: { by?: string; bySub?: string; byName?: string }): string {
  const { name, id } = deciderOf(d);
  const code = `<code>${escapeHtml(id)}</code>`;
  return name ? `${escapeHtml(name)} (${code})` : code;
}

/** A rung as a badge: its words, and a class for its colour. */
export function rungBadge(r: Pick<PositionFinding, 'rung' | 'fallback'>): string {
  return `<span class="rung rung-${escapeHtml(r.rung)}">${escapeHtml(rungLabel(r))}</span>`;
}

/**
 * A clause's text with edits made, as tracked changes read: deleted text in `<del>`, inserted in
 * `<ins>`, each opened by words a screen reader speaks.
 */
export function redlineDiffHtml(text: string, edits: readonly RedlineEdit[]): string {
  return editSegments(text, edits)
    .map((s) =>
      s.kind === 'deleted'
        ? `<del><span class="sr">[deleted: </span>${escapeHtml(s.text)}<span class="sr">]</span></del>`
        : s.kind === 'inserted'
          ? `<ins><span class="sr">[inserted: </span>${escapeHtml(s.text)}<span class="sr">]</span></ins>`
          : escapeHtml(s.text),
    )
    .join('');
}

/** The line saying how an escalation stands. */
function escalationHtml(e: Pick<EscalationEntry, 'group' | 'reason' | 'review'>): string {
  const who = `<strong>${escapeHtml(e.group)}</strong>`;
  const r = e.review;
  if (!r)
    return `<p class="esc">Needs ${who} (${escapeHtml(REASON[e.reason])}); the job had no review gate to hold it.</p>`;
  if (r.decision === 'unreviewed')
    return `<p class="esc rv rv-unreviewed">Needs ${who} (${escapeHtml(REASON[e.reason])}): ${ESCALATION_DECIDED.unreviewed}.</p>`;
  return `<p class="esc rv rv-${r.decision}">${ESCALATION_DECIDED[r.decision]} for ${who} by ${decider(r)} at ${escapeHtml(
    r.at?.replace('T', ' '),
  )}${r.note ? `: “${escapeHtml(r.note)}”` : ''}</p>`;
}

/** A redline beside the clause: the proposed language as tracked changes, the playbook's language, the decision. */
function redlineHtml(c: ReportClause, r: ProposedRedline): string {
  const d = r.decision;
  const edits = d.status === 'edited' && d.edits ? d.edits : r.edits;
  const decided =
    d.status === 'proposed'
      ? `<p class="rv rv-unreviewed">${REDLINE_DECIDED.proposed}.</p>`
      : `<p class="rv rv-${d.status === 'rejected' ? 'rejected' : 'approved'}">${escapeHtml(REDLINE_DECIDED[d.status])}, by ${decider(
          d,
        )} at ${escapeHtml(d.at?.replace('T', ' '))}${d.note ? `: “${escapeHtml(d.note)}”` : ''}</p>`;
  return `<div class="redline" data-redline="${escapeHtml(r.id)}" data-status="${escapeHtml(d.status)}">
<p class="rl-head">${d.status === 'edited' ? "Reviewer's language" : 'Proposed language'} (to reach ${rungBadge(r.target)}): deleted text struck through, inserted text underlined</p>
<p class="rl-source rl-${escapeHtml(r.source)}">${escapeHtml(sourceText(r.source))}. ${escapeHtml(shapeText(r.shape))}.</p>
<div class="rl-text">${redlineDiffHtml(c.text, edits)}</div>
${
  r.source === 'model'
    ? `<div class="rl-lang"><p class="rl-head">The playbook's language for ${escapeHtml(rungLabel(r.target))}</p><p>${escapeHtml(r.language)}</p></div>`
    : `<details class="rl-lang"><summary>The playbook's language for ${escapeHtml(rungLabel(r.target))}</summary><p>${escapeHtml(r.language)}</p></details>`
}${
  r.rewritten?.length
    ? `\n<p class="muted">Written without terms this contract does not define: ${r.rewritten.map((t) => `“${escapeHtml(t.from)}” as “${escapeHtml(t.to)}”`).join(', ')}.</p>`
    : ''
}
${decided}
</div>`;
}

/** The positions a clause addresses, each with its rung, approver and redline. */
export function clausePositionsHtml(report: Report, c: ReportClause): string {
  const positions = c.positions ?? [];
  if (positions.length === 0) return '';
  const escalations = new Map((report.playbookReview?.escalations ?? []).map((e) => [e.findingId, e]));
  const items = positions.map((p) => {
    const e = escalations.get(p.id) ?? (p.escalation ? { ...p.escalation, findingId: p.id } : undefined);
    const measured = p.measured
      ? ` <span class="measured">(the clause says ${escapeHtml(p.measured.value)} ${escapeHtml(p.measured.currency ?? p.measured.unit)})</span>`
      : '';
    return `<li class="position" data-position="${escapeHtml(p.id)}">
<p class="ph">${rungBadge(p)} <strong>${escapeHtml(p.topic)}</strong>${measured} <span class="muted">· ${escapeHtml(p.importance)} importance</span></p>
<p class="pq">${escapeHtml(p.question)}</p>
<p class="rat">${escapeHtml(p.reason)}</p>
${e ? escalationHtml(e) : ''}${p.redline ? redlineHtml(c, p.redline) : ''}${
  p.sharedRedline
    ? `<p class="muted">The redline for this position is proposed once for the document: ${escapeHtml(p.sharedRedline)}.</p>`
    : ''
}
</li>`;
  });
  return `<section class="positions" aria-label="Against the playbook"><h4>Against the playbook</h4><ul>${items.join('\n')}</ul></section>`;
}

/**
 * The top of a review against a playbook: the required clauses found in no clause, each with its
 * model language and where it would go, then every position over the contract with its worst rung.
 */
export function renderPlaybookSection(report: Report, anchorOf: ReadonlyMap<string, string>): string {
  const review = report.playbookReview;
  if (!review) return '';
  const escalations = new Map(review.escalations.map((e) => [e.findingId, e]));
  const missing = review.missing.map(
    (m) => `<li class="missing" data-missing="${escapeHtml(m.id)}">
<p class="ph"><span class="rung rung-missing">missing</span> <strong>${escapeHtml(m.topic)}</strong> <span class="muted">· ${escapeHtml(m.importance)} importance</span></p>
<p class="pq">${escapeHtml(m.question)}</p>
<p>No clause of the contract addresses it. It would go ${escapeHtml(m.placement.note)}${
      m.placement.afterClauseId && anchorOf.has(m.placement.afterClauseId)
        ? ` (after <a href="#${escapeHtml(anchorOf.get(m.placement.afterClauseId))}">${escapeHtml(m.placement.afterClause ?? m.placement.afterClauseId)}</a>)`
        : ''
    }.</p>
${
  m.unassessedClauses
    ? `<p class="muted">${m.unassessedClauses} clause(s) were not assessed for it (their analyst failed, was skipped or their chunk did not finish): it may be in one of them.</p>\n`
    : ''
}<div class="redline"><p class="rl-head">Model language to insert</p><div class="rl-text"><ins><span class="sr">[inserted: </span>${escapeHtml(
      m.language,
    )}<span class="sr">]</span></ins></div></div>
${escalationHtml(escalations.get(m.id) ?? { ...m.escalation, findingId: m.id })}
</li>`,
  );
  const rows = review.positions.map((p) => {
    const where = p.clauses
      .map((c) => {
        const anchor = anchorOf.get(c.clauseId);
        const text = `${escapeHtml(c.clauseId)} ${escapeHtml(rungLabel(c))}`;
        return anchor ? `<a href="#${escapeHtml(anchor)}">${text}</a>` : text;
      })
      .join(', ');
    return `<tr><td>${escapeHtml(p.topic)}</td><td>${escapeHtml(p.importance)}</td><td>${rungBadge(p)}</td><td>${where || '<span class="muted">—</span>'}</td></tr>`;
  });
  const decided = review.escalations.filter((e) => e.review && e.review.decision !== 'unreviewed').length;
  const coverage = report.job.playbook ? coverageText(review.contractType, report.job.playbook) : undefined;
  const forWhom = reviewedForText(report.job.parties);
  const withheld = (review.withheld ?? []).map(
    (w) => `<li><code>${escapeHtml(w.id)}</code>: ${escapeHtml(w.detail)}</li>`,
  );
  return `<section id="playbook" aria-labelledby="playbook-h">
<h2 id="playbook-h">Against the playbook</h2>
${coverage ? `<div class="notice" role="note" aria-label="Contract type">${escapeHtml(coverage)}</div>\n` : ''}${
  forWhom ? `<p class="for-whom"><strong>${escapeHtml(forWhom)}</strong></p>\n` : ''
}${
  withheld.length > 0
    ? `<details><summary>${withheld.length} redline(s) withheld</summary><ul>${withheld.join('')}</ul></details>\n`
    : ''
}
<p>${review.escalations.length} finding(s) need an approver${review.escalations.length > 0 ? ` (${decided} decided)` : ''}${
    review.contractType
      ? `; topics for a <strong>${escapeHtml(review.contractType.type)}</strong> contract (${escapeHtml(review.contractType.source)})`
      : '; every topic of the playbook applied (no contract type was known)'
  }.</p>
${
  missing.length > 0
    ? `<h3>Required clauses missing</h3><ul class="missing-list">${missing.join('\n')}</ul>`
    : '<p>Every required clause was found.</p>'
}
${rows.length > 0 ? dataTable('Each position over the contract: the lowest rung any clause reaches', ['Topic', 'Importance', 'Rung', 'Clauses'], rows) : ''}
</section>`;
}
