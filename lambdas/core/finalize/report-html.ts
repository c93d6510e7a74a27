/**
 * Renders report.json as one self-contained HTML5 page for the lawyer who reads it:
 * inline CSS and a small inline script, no external resource of any kind, so the file
 * works offline when opened from disk, in a mail attachment or in a document store.
 *
 * Contract text and model output are untrusted. Every string from the report goes
 * through {@link escapeHtml} (text and attributes alike); the script's data sits in a
 * `<script type="application/json">` block with `<`, `>` and `&` escaped as `\u003c`,
 * `\u003e` and `\u0026`, and the script writes only through `textContent`. A
 * Content-Security-Policy meta element forbids every network load and lets only the
 * page's own script run (by hash), as a second line of defence.
 *
 * The page is rendered on the server in full, so it is readable and printable without
 * JavaScript; the script adds the findings filters, heat-map navigation and print
 * expansion of collapsed sections.
 */

import { createHash } from 'node:crypto';
import { reviewedForText } from '../../text/review-terms.js';
import type { Report, ReportClause, ReportFinding } from '../report-types.js';
import { REPORT_CSS, REPORT_SCRIPT } from './report-assets.generated.js';
import { renderCost, renderCoverage } from './report-html-coverage.js';
import {
  type Ctx,
  clauseLabel,
  duration,
  escapeHtml,
  jsonForScript,
  locate,
  num,
  RISK_LABEL,
  RISKS,
  riskChip,
  STATUS_LABEL,
  scoreClass,
  scoreText,
  time,
} from './report-html-kit.js';
import { renderNegotiationSection } from './report-negotiation-html.js';
import { clausePositionsHtml, renderPlaybookSection } from './report-playbook-html.js';
import { findingReviewHtml, modelRiskHtml, renderReviewSection } from './report-review-html.js';

export { escapeHtml } from './report-html-kit.js';

/** Findings in reading order for a lawyer: most severe first, then category order, then position. */
function sortedFindings(ctx: Ctx, c: ReportClause): ReportFinding[] {
  const order = new Map(ctx.report.categories.map((cat, i) => [cat.id, i]));
  return [...c.findings].sort(
    (a, b) =>
      (b.score ?? -1) - (a.score ?? -1) ||
      (order.get(a.category) ?? 99) - (order.get(b.category) ?? 99) ||
      a.start - b.start,
  );
}

/** Categories no answering analyst covers: a null score there means "not assessed", not "not addressed". */
function unassessedCategories(report: Report, c: ReportClause): Set<string> {
  const all = report.categories.map((cat) => cat.id);
  if (c.status === 'not-analysed') return new Set(all);
  if (report.analystPanel.length === 0) return new Set();
  const covered = new Set<string>();
  for (const id of c.analystsAnswered) {
    for (const cat of report.analystPanel.find((a) => a.id === id)?.categories ?? []) covered.add(cat);
  }
  return new Set(all.filter((id) => !covered.has(id)));
}

/** The clause text with every located finding highlighted; overlapping spans are split into segments. */
function highlightedText(ctx: Ctx, c: ReportClause, findings: readonly ReportFinding[]): string {
  const spans = findings
    .map((f, i) => ({ i, f, span: locate(c, f) }))
    .filter(
      (x): x is { i: number; f: ReportFinding; span: { start: number; end: number } } => x.span !== null,
    );
  if (spans.length === 0) return escapeHtml(c.text);
  const cuts = new Set<number>([0, c.text.length]);
  for (const s of spans) {
    cuts.add(s.span.start);
    cuts.add(s.span.end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  let out = '';
  for (let k = 0; k + 1 < points.length; k++) {
    const from = points[k];
    const to = points[k + 1];
    const piece = escapeHtml(c.text.slice(from, to));
    const over = spans.filter((s) => s.span.start <= from && s.span.end >= to);
    if (over.length === 0) {
      out += piece;
      continue;
    }
    const max = Math.max(...over.map((s) => s.f.score ?? 0));
    const title = over.map((s) => `${ctx.categoryName(s.f.category)}: ${scoreText(s.f.score)}`).join('; ');
    out += `<mark class="hl ${scoreClass(max)}" data-f="${over.map((s) => s.i).join(' ')}" title="${escapeHtml(title)}">${piece}</mark>`;
  }
  return out;
}

/** What the contract was reviewed against: the playbook by title, version and hash, or the generic review. */
function reviewedAgainst(playbook: Report['job']['playbook']): string {
  if (!playbook) return 'the twelve risk categories (no playbook)';
  return (
    `playbook <strong>${escapeHtml(playbook.title)}</strong> (<code>${escapeHtml(playbook.name)}@${playbook.version}</code>, ` +
    `SHA-256 <code class="hash">${escapeHtml(playbook.sha256)}</code>)`
  );
}

/** The header's row saying whose side a review against a playbook took, when it took one. */
function reviewedForRow(parties: Ctx['report']['job']['parties']): [string, string][] {
  const text = reviewedForText(parties);
  return text ? [['Reviewed for', escapeHtml(text.replace(/^Reviewed for: /, ''))]] : [];
}

function renderHeader(ctx: Ctx): string {
  const { job, timings, notice } = ctx.report;
  const doc = job.document;
  const docName = doc.key.split('/').pop() || doc.key;
  const rows: [string, string][] = [
    ['Document', `<code>${escapeHtml(doc.key)}</code>`],
    ['Bucket', `<code>${escapeHtml(doc.bucket)}</code>`],
    ...(doc.versionId ? [['Version', `<code>${escapeHtml(doc.versionId)}</code>`] as [string, string]] : []),
    ...(doc.format ? [['Format', escapeHtml(doc.format)] as [string, string]] : []),
    ...(doc.bytes !== undefined ? [['Size', `${num(doc.bytes)} bytes`] as [string, string]] : []),
    ...(doc.sha256
      ? [['SHA-256', `<code class="hash">${escapeHtml(doc.sha256)}</code>`] as [string, string]]
      : []),
    ['Reviewed against', reviewedAgainst(job.playbook)],
    ...reviewedForRow(job.parties),
    ['Job id', `<code>${escapeHtml(job.jobId)}</code>`],
    ['Lane', escapeHtml(job.lane)],
    ['Created', time(timings.createdAt)],
    ...(timings.cancelledAt ? [['Cancelled', time(timings.cancelledAt)] as [string, string]] : []),
    ['Finalized', time(timings.finalizedAt)],
    ['Duration', duration(timings.durationMs)],
  ];
  return `<header class="page-head">
<p class="eyebrow">Contract review report</p>
<h1>${escapeHtml(docName)}</h1>
<p class="status-line"><span class="badge st-${escapeHtml(job.status)}">${escapeHtml(STATUS_LABEL[job.status] ?? job.status)}</span>${
    job.reason ? ` <span class="reason">${escapeHtml(job.reason)}</span>` : ''
  }</p>
${
  notice
    ? `<div class="notice" role="note" aria-label="Notice"><strong>Notice:</strong> ${escapeHtml(notice)}</div>`
    : ''
}
<dl class="meta-grid">${rows.map(([k, v]) => `<div><dt>${k}</dt><dd>${v}</dd></div>`).join('')}</dl>
</header>`;
}

function renderSummary(ctx: Ctx): string {
  const { summary, categories } = ctx.report;
  const pct = summary.clauses > 0 ? Math.round((summary.clausesAnalysed / summary.clauses) * 100) : 0;
  const findings = ctx.report.clauses.reduce((n, c) => n + c.findings.length, 0);
  const chips = [...RISKS]
    .reverse()
    .map(
      (r) =>
        `<li class="chip risk-${r}"><span class="n">${num(summary.riskCounts[r] ?? 0)}</span> ${RISK_LABEL[r]}</li>`,
    )
    .join('');
  const notAnalysed = summary.clauses - summary.clausesAnalysed;
  const flagged = categories
    .map((cat) => {
      const n = summary.categoriesFlagged[cat.id] ?? 0;
      return `<li class="flag${n > 0 ? ' on' : ''}"><span class="n">${num(n)}</span> ${escapeHtml(cat.name)}</li>`;
    })
    .join('');
  return `<section id="summary" aria-labelledby="h-summary">
<h2 id="h-summary">Summary</h2>
<div class="cards">
<div class="card"><p class="big">${num(summary.clausesAnalysed)} <span class="of">/ ${num(summary.clauses)}</span></p><p>clauses analysed (${pct}%)</p>
<div class="meter" role="img" aria-label="${pct}% of clauses analysed"><span style="width:${pct}%"></span></div></div>
<div class="card"><p class="big">${num(findings)}</p><p>findings</p></div>
<div class="card"><p class="big">${num(ctx.report.analystPanel.length || ctx.report.job.analysts.length)}</p><p>analysts on the panel</p></div>
</div>
<h3>Clauses by risk</h3>
<ul class="chips" aria-label="Clauses by risk">${chips}${
    notAnalysed > 0
      ? `<li class="chip risk-na"><span class="n">${num(notAnalysed)}</span> Not analysed</li>`
      : ''
  }</ul>
<h3>Categories flagged <span class="hint">(clauses scoring 2 or more)</span></h3>
<ul class="flags" aria-label="Categories flagged">${flagged}</ul>
</section>`;
}

function renderHeatMap(ctx: Ctx): string {
  const { categories, clauses } = ctx.report;
  const head = categories
    .map(
      (cat) =>
        `<th scope="col" class="cat" title="${escapeHtml(cat.name)}"><span>${escapeHtml(cat.name)}</span></th>`,
    )
    .join('');
  const rows = clauses
    .map((c, i) => {
      const anchor = `clause-${i}`;
      const unassessed = unassessedCategories(ctx.report, c);
      const cells = categories
        .map((cat) => {
          const raw = c.scores[cat.id];
          const score = raw === undefined ? null : raw;
          const name = escapeHtml(cat.name);
          if (score === null) {
            const na = unassessed.has(cat.id);
            return `<td class="${na ? 'na' : 'sn'}" title="${name}: ${na ? 'not assessed' : 'not addressed'}"></td>`;
          }
          return `<td class="${scoreClass(score)}" title="${name}: ${escapeHtml(scoreText(score))}">${escapeHtml(score)}</td>`;
        })
        .join('');
      const label = clauseLabel(c);
      return `<tr class="hm-row" data-anchor="${anchor}"><th scope="row" class="lbl" title="${escapeHtml(
        `${c.id} · ${label}${c.heading ? ` · ${c.heading}` : ''}`,
      )}"><a href="#${anchor}"><span class="l">${escapeHtml(label)}</span>${
        c.heading ? ` <span class="hd">${escapeHtml(c.heading)}</span>` : ''
      }</a></th><td class="rk">${riskChip(c.risk)}</td>${cells}</tr>`;
    })
    .join('\n');
  return `<section id="heatmap" aria-labelledby="h-heat">
<h2 id="h-heat">Heat map</h2>
<p class="hint">One row per clause, one column per risk category. Select a row to jump to its findings.</p>
<ul class="legend" aria-label="Legend">
<li><span class="sw sn"></span> not addressed</li><li><span class="sw na"></span> not assessed</li>
<li><span class="sw s0">0</span> standard</li><li><span class="sw s1">1</span> minor</li>
<li><span class="sw s2">2</span> significant</li><li><span class="sw s3">3</span> severe</li>
</ul>
<div class="heatwrap" tabindex="0" role="region" aria-label="Heat map of clauses by category">
<table class="heat">
<caption class="sr">Risk score of each clause (rows) in each category (columns)</caption>
<thead><tr><th scope="col" class="lbl">Clause</th><th scope="col" class="rk">Risk</th>${head}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
</div>
</section>`;
}

function renderClause(ctx: Ctx, c: ReportClause, i: number): string {
  const findings = sortedFindings(ctx, c);
  const unassessed = unassessedCategories(ctx.report, c);
  const statusNote =
    c.status === 'not-analysed'
      ? '<p class="cstatus warn">Not analysed: the chunk holding this clause did not finish.</p>'
      : c.status === 'partial'
        ? `<p class="cstatus warn">Partial: no answer from ${c.analystsFailed
            .map((a) => `<code title="${escapeHtml(ctx.analystName(a))}">${escapeHtml(a)}</code>`)
            .join(', ')}${
            unassessed.size > 0
              ? `; categories not assessed: ${[...unassessed].map((id) => escapeHtml(ctx.categoryName(id))).join(', ')}`
              : ''
          }.</p>`
        : '';
  const items = findings
    .map((f, j) => {
      const located = locate(c, f) !== null;
      const analysts = f.analysts
        .map((a) => `<code title="${escapeHtml(ctx.analystName(a))}">${escapeHtml(a)}</code>`)
        .join(', ');
      return `<li class="finding" data-fi="${j}">
<div class="fhead"><span class="cat">${escapeHtml(ctx.categoryName(f.category))}</span> <span class="score ${scoreClass(f.score)}">${escapeHtml(
        scoreText(f.score),
      )}</span></div>
<blockquote class="${scoreClass(f.score)}">${escapeHtml(f.quote)}</blockquote>${
        located ? '' : '<p class="hint">This quote could not be located in the clause text.</p>'
      }
<p class="rat">${escapeHtml(f.rationale)}</p>
<p class="by">Raised by ${analysts || '<span class="muted">—</span>'}</p>${
        f.review ? `\n${findingReviewHtml(f.review)}` : ''
      }
</li>`;
    })
    .join('\n');
  return `<article class="clause" id="clause-${i}" data-ci="${i}" tabindex="-1" aria-labelledby="ch-${i}">
<header class="chead"><h3 id="ch-${i}"><span class="l">${escapeHtml(clauseLabel(c))}</span>${
    c.heading ? ` <span class="hd">${escapeHtml(c.heading)}</span>` : ''
  }</h3>${riskChip(c.risk)}${modelRiskHtml(c)}<span class="cmeta"><code>${escapeHtml(c.id)}</code> · chunk ${escapeHtml(c.chunk)} · ${num(
    c.findings.length,
  )} finding${c.findings.length === 1 ? '' : 's'}</span></header>
${statusNote}
<div class="ctext">${highlightedText(ctx, c, findings)}</div>
${clausePositionsHtml(ctx.report, c)}
${findings.length > 0 ? `<ol class="findings">\n${items}\n</ol>` : '<p class="muted nofind">No findings for this clause.</p>'}
</article>`;
}

function renderFindings(ctx: Ctx): string {
  const { categories, clauses } = ctx.report;
  const total = clauses.reduce((n, c) => n + c.findings.length, 0);
  const catOptions = categories
    .map((cat) => `<option value="${escapeHtml(cat.id)}">${escapeHtml(cat.name)}</option>`)
    .join('');
  return `<section id="findings" aria-labelledby="h-findings">
<h2 id="h-findings">Findings</h2>
<div class="filters" role="search" aria-label="Filter findings">
<label>Minimum clause risk <select id="f-risk" aria-label="Minimum clause risk">
<option value="">All</option><option value="low">Low and above</option><option value="medium">Medium and above</option>
<option value="high">High and above</option><option value="critical">Critical only</option></select></label>
<label>Category <select id="f-cat" aria-label="Category"><option value="">All categories</option>${catOptions}</select></label>
<label class="grow">Search <input id="f-q" type="search" placeholder="Words in the clause, quote or rationale" aria-label="Search findings and clause text"></label>
<label class="check"><input id="f-all" type="checkbox"${total === 0 ? ' checked' : ''} aria-label="Show clauses without findings"> Show clauses without findings</label>
<button type="button" id="f-reset" aria-label="Reset filters">Reset</button>
</div>
<p id="f-status" class="fstatus" role="status" aria-live="polite">${num(total)} findings in ${num(
    clauses.filter((c) => c.findings.length > 0).length,
  )} of ${num(clauses.length)} clauses.</p>
<div class="clauses">
${clauses.map((c, i) => renderClause(ctx, c, i)).join('\n')}
</div>
</section>`;
}

/** What the page script reads: categories, and per clause its anchor, label, risk and finding scores. */
function scriptData(ctx: Ctx) {
  return {
    categories: ctx.report.categories.map((c) => ({ id: c.id, name: c.name })),
    clauses: ctx.report.clauses.map((c, i) => ({
      anchor: `clause-${i}`,
      id: c.id,
      label: `${clauseLabel(c)}${c.heading ? ` ${c.heading}` : ''}`,
      risk: c.risk,
      findings: sortedFindings(ctx, c).map((f) => ({ category: f.category, score: f.score })),
    })),
  };
}

/**
 * Renders the report as one self-contained HTML5 document.
 *
 * @param report report.json as {@link Report}.
 * @returns the page, starting with `<!doctype html>`.
 */
export function renderReportHtml(report: Report): string {
  const catNames = new Map(report.categories.map((c) => [c.id, c.name]));
  const analystNames = new Map(report.analystPanel.map((a) => [a.id, a.name]));
  const anchorOf = new Map(report.clauses.map((c, i) => [c.id, `clause-${i}`]));
  const ctx: Ctx = {
    report,
    categoryName: (id) => catNames.get(id) ?? id,
    analystName: (id) => analystNames.get(id) ?? id,
    anchorOf,
  };
  const data = scriptData(ctx);
  const scriptHash = createHash('sha256').update(REPORT_SCRIPT, 'utf8').digest('base64');
  const csp = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src 'sha256-${scriptHash}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const docName = report.job.document.key.split('/').pop() || report.job.document.key;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="clause-review">
<title>${escapeHtml(`Contract review — ${docName} — ${STATUS_LABEL[report.job.status] ?? report.job.status}`)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<a class="sr" href="#findings">Skip to findings</a>
${renderHeader(ctx)}
<nav aria-label="Sections" class="hint">Sections: ${
    report.negotiation ? '<a href="#negotiation">Their changes</a> · ' : ''
  }${report.playbookReview ? '<a href="#playbook">Against the playbook</a> · ' : ''}<a href="#summary">Summary</a> · ${report.review ? '<a href="#review">Reviewer decisions</a> · ' : ''}<a href="#heatmap">Heat map</a> · <a href="#findings">Findings</a> · <a href="#coverage">Coverage and failures</a> · <a href="#cost">Cost</a></nav>
<main>
${renderNegotiationSection(report, anchorOf)}
${renderPlaybookSection(report, anchorOf)}
${renderSummary(ctx)}
${renderReviewSection(report)}
${renderHeatMap(ctx)}
${renderFindings(ctx)}
${renderCoverage(ctx)}
${renderCost(ctx)}
</main>
<footer>Generated by clause-review · report schema version ${escapeHtml(report.schemaVersion)} · job <code>${escapeHtml(
    report.job.jobId,
  )}</code> · finalized ${time(report.timings.finalizedAt)}. Scores: 0 standard, 1 minor, 2 significant, 3 severe. Findings are the analysts' reading of the text and need a lawyer's review.</footer>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
