/**
 * report.html's review against a playbook, kept plain: each position over the contract with
 * the rung it reaches, the required clauses found nowhere with the language to insert, and in
 * each clause the positions it addresses with the proposed language beside the clause's own.
 */
import { type Ctx, dataTable, escapeHtml, num } from './report-html-kit.js';
import type { PositionFinding, ReportClause, Rung } from './report-types.js';

/** A rung in words: "standard", "fallback 2", "not acceptable", "not addressed". */
export function rungText(r: Rung): string {
  if (r.rung === 'fallback') return `fallback ${r.fallback ?? 1}`;
  return r.rung.replace('-', ' ');
}

const rungClass = (r: Rung) =>
  r.rung === 'standard' ? 's0' : r.rung === 'fallback' ? 's1' : r.rung === 'not-acceptable' ? 's3' : 'sn';

function rungChip(r: Rung): string {
  return `<span class="score ${rungClass(r)}">${escapeHtml(rungText(r))}</span>`;
}

/** The playbook section: positions over the contract, required clauses missing, escalations. */
export function renderPlaybookSection(ctx: Ctx): string {
  const review = ctx.report.playbookReview;
  if (!review) return '';
  const link = (id: string) => {
    const a = ctx.anchorOf.get(id);
    return a ? `<a href="#${a}"><code>${escapeHtml(id)}</code></a>` : `<code>${escapeHtml(id)}</code>`;
  };
  const positions = dataTable(
    `Positions (${num(review.positions.length)})`,
    ['Topic', 'Question', 'Importance', 'Rung reached', 'Clauses'],
    review.positions.map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.topic)}</code></td><td>${escapeHtml(p.question)}</td><td>${escapeHtml(
          p.importance,
        )}</td><td>${rungChip(p)}</td><td>${
          p.clauses.map((c) => `${link(c.clauseId)} ${escapeHtml(rungText(c))}`).join(', ') ||
          '<span class="muted">—</span>'
        }</td></tr>`,
    ),
  );
  const missing =
    review.missing.length === 0
      ? '<p class="muted">Every required clause was found.</p>'
      : `<ul class="missing">${review.missing
          .map(
            (m) =>
              `<li><strong>${escapeHtml(m.topic)}</strong> (${escapeHtml(m.importance)}): ${escapeHtml(m.question)}
<p>Insert ${m.placement.afterClauseId ? `after ${link(m.placement.afterClauseId)} ${escapeHtml(m.placement.afterClause ?? '')}` : 'at the end of the terms'} (${escapeHtml(m.placement.note)}):</p>
<blockquote class="proposed">${escapeHtml(m.language)}</blockquote>
<p class="by">Decided by <code>${escapeHtml(m.escalation.group)}</code>${
                m.unassessedClauses ? `; ${num(m.unassessedClauses)} clause(s) were not assessed for it` : ''
              }</p></li>`,
          )
          .join('\n')}</ul>`;
  const type = review.contractType
    ? `Topics for a <strong>${escapeHtml(review.contractType.type)}</strong> contract (${escapeHtml(review.contractType.source)}).`
    : 'Every topic of the playbook applied (no contract type was known).';
  return `<section id="playbook" aria-labelledby="h-playbook">
<h2 id="h-playbook">Against the playbook</h2>
<p class="hint">${type} ${num(review.escalations.length)} finding(s) need an approver.</p>
${positions}
<h3>Required clauses missing</h3>
${missing}
</section>`;
}

function positionItem(f: PositionFinding): string {
  const redline = f.redline;
  const proposed = redline
    ? `<p>Proposed (${escapeHtml(redline.decision.status)}, to ${escapeHtml(rungText(redline.target))}):</p>
<blockquote class="proposed">${escapeHtml(redline.decision.text ?? redline.text)}</blockquote>`
    : '';
  return `<li class="position"><div class="fhead"><span class="cat">${escapeHtml(f.topic)}</span> ${rungChip(f)}${
    f.escalation ? ` <span class="pill">${escapeHtml(f.escalation.group)}</span>` : ''
  }</div>
<p class="rat">${escapeHtml(f.reason)}</p>${proposed}</li>`;
}

/** A clause's positions, after its findings; empty without any. */
export function clausePositionsHtml(c: ReportClause): string {
  const found = c.positions ?? [];
  if (found.length === 0) return '';
  return `<h4 class="ph">Against the playbook</h4>\n<ol class="positions">\n${found.map(positionItem).join('\n')}\n</ol>`;
}
