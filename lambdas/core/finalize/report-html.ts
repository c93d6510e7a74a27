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
import { findingReviewHtml, modelRiskHtml, REVIEW_CSS, renderReviewSection } from './report-review-html.js';
import type { Report, ReportClause, ReportFinding, Risk } from './report-types.js';

const RISKS: readonly Risk[] = ['none', 'low', 'medium', 'high', 'critical'];

const RISK_LABEL: Readonly<Record<Risk, string>> = {
  none: 'None',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  critical: 'Critical',
};

const STATUS_LABEL: Readonly<Record<Report['job']['status'], string>> = {
  completed: 'Completed',
  incomplete: 'Incomplete',
  cancelled: 'Cancelled',
  budget_exceeded: 'Budget exceeded',
};

/** Meaning of a category score, as the analysts' tool schema defines it. */
const SCORE_LABEL: readonly string[] = ['standard', 'minor', 'significant', 'severe'];

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON safe to embed in a `<script type="application/json">` element. */
function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Micro-dollars as US dollars with four decimals. */
function usd(micros: number): string {
  if (!Number.isFinite(micros)) return 'n/a';
  const sign = micros < 0 ? '-' : '';
  return `${sign}$${(Math.abs(micros) / 1e6).toFixed(4)}`;
}

function num(n: number): string {
  return Number.isFinite(n) ? n.toLocaleString('en-US') : 'n/a';
}

function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'n/a';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

function time(iso: string | undefined): string {
  if (!iso) return '<span class="muted">—</span>';
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.replace('T', ' '))}</time>`;
}

function riskChip(risk: Risk | null): string {
  if (!risk) return '<span class="chip risk-na">Not analysed</span>';
  return `<span class="chip risk-${risk}">${RISK_LABEL[risk]}</span>`;
}

function scoreClass(score: number | null): string {
  return score === null ? 'sn' : `s${Math.max(0, Math.min(3, Math.round(score)))}`;
}

function scoreText(score: number | null): string {
  if (score === null) return 'no score';
  return `${score} · ${SCORE_LABEL[Math.max(0, Math.min(3, Math.round(score)))] ?? ''}`;
}

/** The clause's short name: its printed label, or its position. */
function clauseLabel(c: ReportClause): string {
  return c.label?.trim() ? c.label.trim() : `¶ ${c.index + 1}`;
}

/** A finding's span inside the clause text, or null when the quote cannot be located there. */
function locate(c: ReportClause, f: ReportFinding): { start: number; end: number } | null {
  const start = f.start - c.start;
  const end = f.end - c.start;
  if (start >= 0 && end > start && end <= c.text.length && c.text.slice(start, end) === f.quote) {
    return { start, end };
  }
  if (f.quote) {
    const at = c.text.indexOf(f.quote);
    if (at >= 0) return { start: at, end: at + f.quote.length };
  }
  return null;
}

interface Ctx {
  readonly report: Report;
  readonly categoryName: (id: string) => string;
  readonly analystName: (id: string) => string;
  readonly anchorOf: ReadonlyMap<string, string>;
}

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
        f.review ? `\n${findingReviewHtml(f.review, escapeHtml)}` : ''
      }
</li>`;
    })
    .join('\n');
  return `<article class="clause" id="clause-${i}" data-ci="${i}" tabindex="-1" aria-labelledby="ch-${i}">
<header class="chead"><h3 id="ch-${i}"><span class="l">${escapeHtml(clauseLabel(c))}</span>${
    c.heading ? ` <span class="hd">${escapeHtml(c.heading)}</span>` : ''
  }</h3>${riskChip(c.risk)}${modelRiskHtml(c, RISK_LABEL, escapeHtml)}<span class="cmeta"><code>${escapeHtml(c.id)}</code> · chunk ${escapeHtml(c.chunk)} · ${num(
    c.findings.length,
  )} finding${c.findings.length === 1 ? '' : 's'}</span></header>
${statusNote}
<div class="ctext">${highlightedText(ctx, c, findings)}</div>
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

function renderCoverage(ctx: Ctx): string {
  const cov = ctx.report.coverage;
  const counters: [string, number, string][] = [
    ['Calls planned', cov.callsPlanned, 'clauses × assigned analysts'],
    ['Calls done', cov.callsDone, 'answered and validated'],
    ['Calls reused', cov.callsReused, 'answered from the call ledger without a new model call'],
    ['Calls failed', cov.callsFailed, 'no valid answer after retries'],
    ['Skipped for budget', cov.callsSkippedBudget, 'not started: the cost ceiling would have been exceeded'],
    ['Cancelled', cov.callsCancelled, 'not started: the job was cancelled'],
    ['Not run', cov.callsNotRun, 'planned but never finished'],
    ['Model attempts', cov.modelAttempts, 'model calls, retries included'],
    ['Tier-1 retries', cov.tier1Retries, 'in-process retries of transient errors'],
    ['Redeliveries', cov.redeliveries, 'chunks processed again after a failure'],
  ];
  const warn = (label: string, n: number) =>
    n > 0 && ['Calls failed', 'Skipped for budget', 'Not run'].includes(label) ? ' warn' : '';
  const counterHtml = counters
    .map(
      ([label, n, help]) =>
        `<div class="ctr${warn(label, n)}" title="${escapeHtml(help)}"><dt>${label}</dt><dd>${num(n)}</dd></div>`,
    )
    .join('');
  const clauseLink = (id: string) => {
    const a = ctx.anchorOf.get(id);
    return a ? `<a href="#${a}"><code>${escapeHtml(id)}</code></a>` : `<code>${escapeHtml(id)}</code>`;
  };
  const failed =
    cov.failedCalls.length === 0
      ? '<p class="muted">No failed calls.</p>'
      : `<div class="tablewrap"><table class="data">
<caption>Failed calls (${num(cov.failedCalls.length)})</caption>
<thead><tr><th scope="col">Chunk</th><th scope="col">Clause</th><th scope="col">Analyst</th><th scope="col">Kind</th><th scope="col">Class</th><th scope="col">Attempts</th><th scope="col">Error</th></tr></thead>
<tbody>${cov.failedCalls
          .map(
            (f) =>
              `<tr><td>${escapeHtml(f.chunk)}</td><td>${clauseLink(f.clauseId)}</td><td><code title="${escapeHtml(
                ctx.analystName(f.analystId),
              )}">${escapeHtml(f.analystId)}</code></td><td>${escapeHtml(f.failureKind)}</td><td>${escapeHtml(
                f.errorClass,
              )}</td><td>${escapeHtml(f.attempts)}</td><td class="err">${escapeHtml(f.lastError)}</td></tr>`,
          )
          .join('\n')}</tbody></table></div>`;
  const unfinished =
    cov.unfinishedChunks.length === 0
      ? '<p class="muted">Every chunk finished.</p>'
      : `<div class="tablewrap"><table class="data">
<caption>Unfinished chunks (${num(cov.unfinishedChunks.length)})</caption>
<thead><tr><th scope="col">Chunk</th><th scope="col">Stage</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>
<tbody>${cov.unfinishedChunks
          .map(
            (u) =>
              `<tr><td>${escapeHtml(u.chunk)}</td><td>${escapeHtml(u.stage)}</td><td><span class="pill">${escapeHtml(
                u.status,
              )}</span></td><td class="err">${u.detail ? escapeHtml(u.detail) : '<span class="muted">—</span>'}</td></tr>`,
          )
          .join('\n')}</tbody></table></div>`;
  const stageRows = ctx.report.chunks
    .flatMap((ch) => {
      const names = Object.keys(ch.stages);
      const first = ch.clauseIds[0];
      const last = ch.clauseIds[ch.clauseIds.length - 1];
      const span =
        first === undefined
          ? '—'
          : first === last
            ? escapeHtml(first)
            : `${escapeHtml(first)}–${escapeHtml(last)}`;
      return names.map((name, k) => {
        const s = ch.stages[name];
        if (!s) return '';
        const lead =
          k === 0
            ? `<th scope="row" rowspan="${names.length}">${escapeHtml(ch.chunk)}</th><td rowspan="${names.length}">${span} <span class="muted">(${num(ch.clauseIds.length)})</span></td>`
            : '';
        const detail = [
          s.errorClass ? `[${s.errorClass}]` : '',
          s.lastError ?? '',
          s.stoppedAt ? `stopped at ${s.stoppedAt}` : '',
        ]
          .filter(Boolean)
          .join(' ');
        return `<tr>${lead}<td>${escapeHtml(name)}</td><td><span class="pill st-${escapeHtml(s.status)}">${escapeHtml(
          s.status,
        )}</span></td><td>${escapeHtml(s.attempts)}</td><td>${time(s.startedAt)}</td><td>${time(s.finishedAt)}</td><td class="err">${escapeHtml(detail)}</td></tr>`;
      });
    })
    .join('\n');
  const panel = ctx.report.analystPanel
    .map(
      (a) =>
        `<tr><td><code>${escapeHtml(a.id)}</code></td><td>${escapeHtml(a.name)}</td><td>${a.categories
          .map((id) => escapeHtml(ctx.categoryName(id)))
          .join(', ')}</td></tr>`,
    )
    .join('\n');
  return `<section id="coverage" aria-labelledby="h-coverage">
<h2 id="h-coverage">Coverage and failures</h2>
<dl class="counters">${counterHtml}</dl>
<h3>Failed calls</h3>
${failed}
<h3>Unfinished chunks</h3>
${unfinished}
<details class="stages">
<summary>Stages of every chunk (${num(ctx.report.chunks.length)} chunks)</summary>
<div class="tablewrap"><table class="data">
<caption class="sr">Stage checkpoints per chunk</caption>
<thead><tr><th scope="col">Chunk</th><th scope="col">Clauses</th><th scope="col">Stage</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Started</th><th scope="col">Finished</th><th scope="col">Detail</th></tr></thead>
<tbody>${stageRows}</tbody></table></div>
</details>
<details class="panel">
<summary>Analyst panel (${num(ctx.report.analystPanel.length)})</summary>
<div class="tablewrap"><table class="data">
<caption class="sr">Analysts and the categories they score</caption>
<thead><tr><th scope="col">Id</th><th scope="col">Analyst</th><th scope="col">Categories</th></tr></thead>
<tbody>${panel}</tbody></table></div>
</details>
</section>`;
}

function renderCost(ctx: Ctx): string {
  const { ceilingMicros, spentMicros, reservedMicros, committedMicros, quote } = ctx.report.cost;
  const c = ctx.report.cost;
  const pct = (n: number) => (ceilingMicros > 0 ? Math.max(0, Math.min(100, (n / ceilingMicros) * 100)) : 0);
  const spentPct = pct(spentMicros);
  const reservedPct = Math.min(100 - spentPct, pct(reservedMicros));
  const used = ceilingMicros > 0 ? ((spentMicros / ceilingMicros) * 100).toFixed(1) : 'n/a';
  return `<section id="cost" aria-labelledby="h-cost">
<h2 id="h-cost">Cost</h2>
<p class="costline"><strong>${usd(spentMicros)}</strong> spent of a <strong>${usd(ceilingMicros)}</strong> ceiling (${used}%)</p>
<div class="costbar" role="img" aria-label="${escapeHtml(`Spent ${usd(spentMicros)} of ${usd(ceilingMicros)}`)}">
<span class="spent" style="width:${spentPct.toFixed(2)}%"></span><span class="reserved" style="width:${reservedPct.toFixed(2)}%"></span>
</div>
<dl class="counters">
<div class="ctr"><dt>Ceiling</dt><dd>${usd(ceilingMicros)}</dd></div>
<div class="ctr"><dt>Spent</dt><dd>${usd(spentMicros)}</dd></div>
<div class="ctr" title="reservations of calls not yet settled"><dt>Reserved</dt><dd>${usd(reservedMicros)}</dd></div>
<div class="ctr" title="spent plus outstanding reservations: what the ceiling is checked against"><dt>Committed</dt><dd>${usd(committedMicros)}</dd></div>
<div class="ctr"><dt>Remaining</dt><dd>${usd(ceilingMicros - committedMicros)}</dd></div>
${quote ? `<div class="ctr" title="what intake quoted before any call"><dt>Quoted</dt><dd>${usd(quote.expectedMicros)} <small>(worst ${usd(quote.worstCaseMicros)})</small></dd></div>` : ''}
<div class="ctr" title="input tokens read from the prompt cache, written to it, and not cached"><dt>Cache read / write / uncached</dt><dd>${c.cacheReadInputTokens.toLocaleString('en-US')} / ${c.cacheWriteInputTokens.toLocaleString('en-US')} / ${c.inputTokens.toLocaleString('en-US')}</dd></div>
</dl>
</section>`;
}

const CSS = `
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--accent:#0b5cad;
--s0:#eef7ee;--s1:#fde68a;--s2:#fb923c;--s3:#c62828;--sn:#f1f3f5}
*{box-sizing:border-box}
html{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
body{margin:0 auto;max-width:1200px;padding:1.5rem 1.25rem 3rem}
h1{font-size:1.6rem;margin:.1rem 0 .4rem;word-break:break-word}
h2{font-size:1.25rem;margin:2.2rem 0 .6rem;padding-bottom:.3rem;border-bottom:2px solid var(--line)}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
code{font:.85em/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:0 .25em;border-radius:3px;word-break:break-all}
a{color:var(--accent)}
.muted,.hint{color:var(--muted)}.hint{font-size:.85rem;font-weight:normal}
[hidden]{display:none!important}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
a.sr:focus{position:static;width:auto;height:auto;clip:auto;display:inline-block;margin-bottom:.5rem}
.eyebrow{margin:0;text-transform:uppercase;letter-spacing:.08em;font-size:.75rem;color:var(--muted)}
.status-line{margin:.2rem 0 .8rem;display:flex;flex-wrap:wrap;gap:.6rem;align-items:baseline}
.badge{display:inline-block;padding:.2rem .7rem;border-radius:999px;font-weight:700;font-size:.9rem;border:1px solid}
.st-completed{background:#e3f4e4;color:#1b5e20;border-color:#7cc47f}
.st-incomplete{background:#fff0cc;color:#6b4200;border-color:#e0b44a}
.st-cancelled{background:#eceff1;color:#37474f;border-color:#a7b2b8}
.st-budget_exceeded{background:#fde2e2;color:#8b1a1a;border-color:#e59a9a}
.reason{color:var(--muted)}
.notice{margin:.6rem 0 1rem;padding:.8rem 1rem;background:#fff8d6;border:1px solid #e6c84f;border-left:6px solid #c99a00;border-radius:4px;color:#4a3800;font-size:1rem}
.meta-grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:.3rem 1.2rem;margin:0}
.meta-grid div{min-width:0}.meta-grid dt{font-size:.75rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.meta-grid dd{margin:0;word-break:break-word}.hash{font-size:.75em}
.cards{display:flex;flex-wrap:wrap;gap:1rem}
.card{flex:1 1 200px;border:1px solid var(--line);border-radius:6px;padding:.7rem 1rem;background:var(--soft)}
.card p{margin:0}.big{font-size:1.7rem;font-weight:700}.of{font-size:1rem;color:var(--muted);font-weight:400}
.meter{height:6px;background:#e1e4e8;border-radius:3px;margin-top:.4rem;overflow:hidden}.meter span{display:block;height:100%;background:#2e7d32}
.chips,.flags,.legend{list-style:none;padding:0;margin:.3rem 0;display:flex;flex-wrap:wrap;gap:.4rem}
.chip{display:inline-block;padding:.1rem .55rem;border-radius:999px;font-size:.8rem;font-weight:600;border:1px solid transparent;white-space:nowrap}
.chips .chip{font-size:.9rem;padding:.25rem .8rem}.chip .n{font-weight:800}
.risk-none{background:#eef1f4;color:#37474f;border-color:#c9d1d9}
.risk-low{background:#fff7c2;color:#5c4a00;border-color:#e8d36a}
.risk-medium{background:#ffe0b2;color:#7a3d00;border-color:#f0a860}
.risk-high{background:#ffcdd2;color:#8b1a1a;border-color:#e88a92}
.risk-critical{background:#b71c1c;color:#fff;border-color:#7f0000}
.risk-na{background:repeating-linear-gradient(45deg,#f1f3f5,#f1f3f5 4px,#e2e6ea 4px,#e2e6ea 8px);color:#444;border-color:#c9d1d9}
.flag{padding:.15rem .6rem;border:1px solid var(--line);border-radius:4px;font-size:.85rem;color:var(--muted)}
.flag.on{color:var(--fg);border-color:#f0a860;background:#fff3e6}.flag .n{font-weight:700}
.legend{font-size:.8rem;align-items:center}.legend li{display:flex;align-items:center;gap:.3rem}
.sw{display:inline-block;width:1.4rem;height:1.1rem;border:1px solid #ccd;text-align:center;font-size:.7rem;line-height:1.05rem}
.sn{background:var(--sn)}.s0{background:var(--s0)}.s1{background:var(--s1)}.s2{background:var(--s2);color:#2b1300}.s3{background:var(--s3);color:#fff}
.na{background:repeating-linear-gradient(45deg,#f7f8f9,#f7f8f9 3px,#e3e6ea 3px,#e3e6ea 6px)}
.heatwrap{max-height:75vh;overflow:auto;border:1px solid var(--line);border-radius:4px}
.heat{border-collapse:separate;border-spacing:0;font-size:.78rem;width:100%}
.heat thead th{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid var(--line);vertical-align:bottom;padding:.3rem .2rem;text-align:left}
.heat th.cat{width:2.1rem;min-width:2.1rem;height:10.5rem;font-weight:600}
.heat th.cat span{writing-mode:vertical-rl;transform:rotate(180deg);display:inline-block;max-height:10rem;line-height:1.1;white-space:normal}
.heat td{height:1.35rem;text-align:center;border-right:1px solid #fff;border-bottom:1px solid #fff;padding:0 .15rem}
.heat tbody th.lbl{position:sticky;left:0;z-index:1;background:#fff;font-weight:400;text-align:left;max-width:22rem;min-width:10rem;padding:0 .4rem;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;border-bottom:1px solid #eef0f2}
.heat thead th.lbl{left:0;z-index:3}
.heat tbody th.lbl a{color:inherit;text-decoration:none}.heat .l{font-weight:700}.heat .hd{color:var(--muted)}
.heat td.rk{text-align:left;white-space:nowrap;padding:0 .4rem;background:#fff;border-bottom:1px solid #eef0f2}
.heat td.rk .chip{font-size:.7rem;padding:0 .4rem}
.hm-row{cursor:pointer}.hm-row:hover th,.hm-row:hover td.rk{background:#eaf2fb}.hm-row:hover td{outline:1px solid #fff}
.filters{position:sticky;top:0;z-index:5;display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:end;background:#f6f8fa;border:1px solid var(--line);border-radius:6px;padding:.6rem .8rem}
.filters label{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted);gap:.15rem}
.filters label.check{flex-direction:row;align-items:center;gap:.35rem;color:var(--fg)}
.filters .grow{flex:1 1 220px}
.filters select,.filters input[type=search],.filters button{font:inherit;font-size:.9rem;padding:.3rem .45rem;border:1px solid #8c959f;border-radius:4px;background:#fff;color:var(--fg)}
.filters button{cursor:pointer}
.fstatus{font-size:.85rem;color:var(--muted);margin:.4rem 0}
.clause{border:1px solid var(--line);border-radius:6px;margin:.9rem 0;padding:.7rem 1rem;scroll-margin-top:5.5rem}
.clause.flash{box-shadow:0 0 0 3px #5b9bd5}
.clause:focus{outline:none}
.chead{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem}.chead h3{margin:0;font-size:1.05rem}
.chead .hd{font-weight:400;color:var(--muted)}.cmeta{font-size:.8rem;color:var(--muted);margin-left:auto}
.cstatus{margin:.4rem 0;font-size:.85rem}.warn{color:#8a4b00}
.ctext{white-space:pre-wrap;background:#fbfbfc;border-left:3px solid var(--line);padding:.5rem .8rem;margin:.6rem 0;max-height:22rem;overflow:auto;font-family:Georgia,"Times New Roman",serif;font-size:.95rem;word-break:break-word}
mark.hl{color:inherit;border-radius:2px;padding:0 1px}
mark.hl.s0,mark.hl.sn{background:#dff0df}mark.hl.s1{background:#fdeaa0}mark.hl.s2{background:#fdc89a}mark.hl.s3{background:#f5a3a3}
mark.hl.dim{background:transparent;text-decoration:underline dotted #999}
mark.hl.active{outline:2px solid #0b5cad}
.findings{list-style:none;padding:0;margin:.4rem 0 0}
.finding{border-top:1px solid #eef0f2;padding:.55rem 0}
.finding.active{background:#f3f8fd}
.fhead{display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}.cat{font-weight:700}
.score{font-size:.78rem;font-weight:700;padding:.05rem .45rem;border-radius:3px;border:1px solid #d0d7de}
/* A quote's score class colours its border only: the text keeps the page colour on the light background. */
.finding blockquote{margin:.35rem 0;padding:.3rem .7rem;border-left:4px solid #ccc;background:#fafafa;color:var(--fg);font-family:Georgia,"Times New Roman",serif;white-space:pre-wrap;word-break:break-word}
.finding blockquote.s1{border-left-color:#e5c100}.finding blockquote.s2{border-left-color:#f07c1a}.finding blockquote.s3{border-left-color:#c62828}
.finding blockquote.s0,.finding blockquote.sn{border-left-color:#8bc48e}
.rat{margin:.2rem 0}.by{margin:.1rem 0;font-size:.82rem;color:var(--muted)}
.counters{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:.5rem;margin:.5rem 0}
.ctr{border:1px solid var(--line);border-radius:5px;padding:.4rem .7rem;background:var(--soft)}
.ctr dt{font-size:.75rem;color:var(--muted)}.ctr dd{margin:0;font-size:1.2rem;font-weight:700}
.ctr.warn{background:#fff4e5;border-color:#f0a860}.ctr.warn dd{color:#8a4b00}
.tablewrap{overflow-x:auto}
table.data{border-collapse:collapse;width:100%;font-size:.85rem;margin:.3rem 0}
table.data caption{text-align:left;font-weight:600;padding:.2rem 0}
table.data th,table.data td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
table.data thead th{background:var(--soft)}
td.err{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem;word-break:break-word;max-width:36rem}
.pill{display:inline-block;padding:0 .4rem;border-radius:3px;background:#eef1f4;font-size:.8rem}
.pill.st-done{background:#e3f4e4;color:#1b5e20}.pill.st-dead,.pill.st-missing{background:#fde2e2;color:#8b1a1a}
.pill.st-cancelled{background:#eceff1}.pill.st-retrying,.pill.st-running,.pill.st-pending{background:#fff0cc;color:#6b4200}
details{margin:.8rem 0;border:1px solid var(--line);border-radius:5px;padding:.3rem .8rem}
summary{cursor:pointer;font-weight:600;padding:.2rem 0}
.costline{margin:.2rem 0 .5rem}
.costbar{display:flex;height:14px;background:#eef1f4;border:1px solid var(--line);border-radius:7px;overflow:hidden;max-width:640px}
.costbar .spent{background:#2f6fb3}.costbar .reserved{background:repeating-linear-gradient(45deg,#9bbbe0,#9bbbe0 4px,#c8daf0 4px,#c8daf0 8px)}
footer{margin-top:3rem;padding-top:.8rem;border-top:1px solid var(--line);font-size:.8rem;color:var(--muted)}
:focus-visible{outline:2px solid #0b5cad;outline-offset:2px}
@media print{
html{font-size:11pt}body{max-width:none;padding:0}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.filters,#f-status{display:none}
.heatwrap{max-height:none;overflow:visible;border:0}
.heat thead th,.heat tbody th.lbl{position:static}
.heat thead{display:table-header-group}.heat tr{break-inside:avoid}
.ctext{max-height:none;overflow:visible}
.clause{break-inside:auto;box-shadow:none}.finding{break-inside:avoid}
details{border:0;padding:0}details>summary{list-style:none}
details::details-content{content-visibility:visible;display:block}
h2{break-after:avoid}a{color:inherit;text-decoration:none}
}
`;

/** The page script: filters, heat-map navigation, finding/quote linking, print expansion. Writes text only via textContent. */
const SCRIPT = `(function () {
  'use strict';
  var dataEl = document.getElementById('report-data');
  if (!dataEl) return;
  var data = JSON.parse(dataEl.textContent || '{}');
  var RANK = { none: 0, low: 1, medium: 2, high: 3, critical: 4 };
  var byId = function (id) { return document.getElementById(id); };
  var riskSel = byId('f-risk'), catSel = byId('f-cat'), q = byId('f-q'), showAll = byId('f-all');
  var status = byId('f-status'), reset = byId('f-reset');
  var catNames = {};
  (data.categories || []).forEach(function (c) { catNames[c.id] = c.name; });
  var clauses = (data.clauses || []).map(function (c) {
    var el = byId(c.anchor);
    var items = el ? Array.prototype.slice.call(el.querySelectorAll('li.finding')) : [];
    return {
      meta: c,
      el: el,
      items: items,
      marks: el ? Array.prototype.slice.call(el.querySelectorAll('mark.hl')) : [],
      text: el ? (el.querySelector('.chead').textContent + ' ' + el.querySelector('.ctext').textContent).toLowerCase() : '',
      itemText: items.map(function (li) { return li.textContent.toLowerCase(); })
    };
  });
  var total = clauses.reduce(function (n, c) { return n + c.items.length; }, 0);

  function apply() {
    var min = riskSel && riskSel.value ? RANK[riskSel.value] : -1;
    var cat = catSel ? catSel.value : '';
    var needle = q ? q.value.trim().toLowerCase() : '';
    var all = !!(showAll && showAll.checked);
    var shownF = 0, shownC = 0;
    clauses.forEach(function (c) {
      if (!c.el) return;
      var risk = c.meta.risk;
      var rank = risk == null ? -1 : RANK[risk];
      var riskOk = min < 0 || rank >= min;
      var clauseHit = needle === '' || c.text.indexOf(needle) >= 0;
      var visible = {};
      var n = 0;
      c.items.forEach(function (li, j) {
        var f = c.meta.findings[j] || {};
        var ok = riskOk && (cat === '' || f.category === cat) && (clauseHit || c.itemText[j].indexOf(needle) >= 0);
        li.hidden = !ok;
        if (ok) { visible[j] = true; n++; }
      });
      c.marks.forEach(function (m) {
        var ids = (m.getAttribute('data-f') || '').split(' ');
        var on = ids.some(function (id) { return visible[id]; });
        m.classList.toggle('dim', !on);
      });
      var show = n > 0 || (all && riskOk && cat === '' && clauseHit);
      c.el.hidden = !show;
      if (show) shownC++;
      shownF += n;
    });
    if (status) {
      var msg = 'Showing ' + shownF + ' of ' + total + ' findings in ' + shownC + ' clause' + (shownC === 1 ? '' : 's');
      if (cat) msg += ' · category: ' + (catNames[cat] || cat);
      if (shownC === 0 && !all) msg += ' · tick "Show clauses without findings" to search every clause';
      status.textContent = msg + '.';
    }
  }

  function jump(anchor) {
    var el = byId(anchor);
    if (!el) return;
    el.hidden = false;
    Array.prototype.forEach.call(el.querySelectorAll('li.finding'), function (li) { li.hidden = false; });
    el.scrollIntoView({ block: 'start' });
    el.classList.add('flash');
    setTimeout(function () { el.classList.remove('flash'); }, 1600);
    try { el.focus({ preventScroll: true }); } catch (e) { el.focus(); }
    try { history.replaceState(null, '', '#' + anchor); } catch (e) { /* file: URLs may refuse */ }
    var meta = clauses.filter(function (c) { return c.meta.anchor === anchor; })[0];
    if (status && meta) status.textContent = 'Showing clause ' + meta.meta.label + '.';
  }

  [riskSel, catSel, showAll].forEach(function (el) { if (el) el.addEventListener('change', apply); });
  if (q) q.addEventListener('input', apply);
  if (reset) reset.addEventListener('click', function () {
    if (riskSel) riskSel.value = '';
    if (catSel) catSel.value = '';
    if (q) q.value = '';
    if (showAll) showAll.checked = total === 0;
    apply();
  });

  var heat = document.querySelector('table.heat tbody');
  if (heat) heat.addEventListener('click', function (ev) {
    var row = ev.target && ev.target.closest ? ev.target.closest('tr[data-anchor]') : null;
    if (!row) return;
    ev.preventDefault();
    jump(row.getAttribute('data-anchor'));
  });

  function linkFindings(ev, on) {
    var t = ev.target;
    if (!t || !t.closest) return;
    var li = t.closest('li.finding');
    var art = t.closest('article.clause');
    if (!li || !art) return;
    var j = li.getAttribute('data-fi');
    Array.prototype.forEach.call(art.querySelectorAll('mark.hl'), function (m) {
      var ids = (m.getAttribute('data-f') || '').split(' ');
      m.classList.toggle('active', on && ids.indexOf(j) >= 0);
    });
  }
  document.addEventListener('mouseover', function (ev) { linkFindings(ev, true); });
  document.addEventListener('mouseout', function (ev) { linkFindings(ev, false); });
  document.addEventListener('focusin', function (ev) { linkFindings(ev, true); });
  document.addEventListener('focusout', function (ev) { linkFindings(ev, false); });
  document.addEventListener('click', function (ev) {
    var t = ev.target;
    var m = t && t.closest ? t.closest('mark.hl') : null;
    if (!m) return;
    var art = m.closest('article.clause');
    var ids = (m.getAttribute('data-f') || '').split(' ');
    var first = null;
    Array.prototype.forEach.call(art.querySelectorAll('li.finding'), function (li) {
      var on = ids.indexOf(li.getAttribute('data-fi')) >= 0;
      li.classList.toggle('active', on);
      if (on && !first && !li.hidden) first = li;
    });
    if (first) first.scrollIntoView({ block: 'nearest' });
  });

  var closed = [];
  window.addEventListener('beforeprint', function () {
    closed = Array.prototype.filter.call(document.querySelectorAll('details'), function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    closed.forEach(function (d) { d.open = false; });
    closed = [];
  });

  apply();
  if (location.hash && location.hash.indexOf('#clause-') === 0) jump(location.hash.slice(1));
})();`;

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
  const data = {
    categories: report.categories.map((c) => ({ id: c.id, name: c.name })),
    clauses: report.clauses.map((c, i) => ({
      anchor: `clause-${i}`,
      id: c.id,
      label: `${clauseLabel(c)}${c.heading ? ` ${c.heading}` : ''}`,
      risk: c.risk,
      findings: sortedFindings(ctx, c).map((f) => ({ category: f.category, score: f.score })),
    })),
  };
  const scriptHash = createHash('sha256').update(SCRIPT, 'utf8').digest('base64');
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
<style>${CSS}${report.review ? REVIEW_CSS : ''}</style>
</head>
<body>
<a class="sr" href="#findings">Skip to findings</a>
${renderHeader(ctx)}
<nav aria-label="Sections" class="hint">Sections: <a href="#summary">Summary</a> · ${
    report.review ? '<a href="#review">Reviewer decisions</a> · ' : ''
  }<a href="#heatmap">Heat map</a> · <a href="#findings">Findings</a> · <a href="#coverage">Coverage and failures</a> · <a href="#cost">Cost</a></nav>
<main>
${renderSummary(ctx)}
${renderReviewSection(report, escapeHtml)}
${renderHeatMap(ctx)}
${renderFindings(ctx)}
${renderCoverage(ctx)}
${renderCost(ctx)}
</main>
<footer>Generated by clause-review · report schema version ${escapeHtml(report.schemaVersion)} · job <code>${escapeHtml(
    report.job.jobId,
  )}</code> · finalized ${time(report.timings.finalizedAt)}. Scores: 0 standard, 1 minor, 2 significant, 3 severe. Findings are the analysts' reading of the text and need a lawyer's review.</footer>
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
