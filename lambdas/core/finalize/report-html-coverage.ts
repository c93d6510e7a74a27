/**
 * The coverage and cost sections of report.html: where every planned call ended (done, failed,
 * skipped, cancelled, screened, not run: they add up to the calls planned), which chunks did
 * not finish and why, and the money against the ceiling.
 */
import { type Ctx, dataTable, escapeHtml, num, row, time, usd } from './report-html-kit.js';

/** Coverage and failures: counters, failed calls, unfinished chunks, every chunk's stages, the panel. */
export function renderCoverage(ctx: Ctx): string {
  const cov = ctx.report.coverage;
  const counters: [string, number, string][] = [
    ['Calls planned', cov.callsPlanned, 'clauses × assigned analysts'],
    ['Calls done', cov.callsDone, 'answered and validated'],
    ['Calls reused', cov.callsReused, 'answered from the call ledger without a new model call'],
    ['Calls failed', cov.callsFailed, 'no valid answer after retries'],
    ['Skipped for budget', cov.callsSkippedBudget, 'not started: the cost ceiling would have been exceeded'],
    ['Cancelled', cov.callsCancelled, 'not started: the job was cancelled'],
    [
      'Screened',
      cov.callsScreened ?? 0,
      "not asked: the relevance screen found none of the analyst's categories likely in the clause",
    ],
    ['Not run', cov.callsNotRun, 'planned but never finished'],
    ...(cov.callsNotAsked
      ? [
          ['Not asked', cov.callsNotAsked, 'left out: the playbook gives the analyst nothing to judge'] as [
            string,
            number,
            string,
          ],
        ]
      : []),
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
      : dataTable(
          `Failed calls (${num(cov.failedCalls.length)})`,
          ['Chunk', 'Clause', 'Analyst', 'Kind', 'Class', 'Attempts', 'Error'],
          cov.failedCalls.map(
            (f) =>
              `<tr><td>${escapeHtml(f.chunk)}</td><td>${clauseLink(f.clauseId)}</td><td><code title="${escapeHtml(
                ctx.analystName(f.analystId),
              )}">${escapeHtml(f.analystId)}</code></td><td>${escapeHtml(f.failureKind)}</td><td>${escapeHtml(
                f.errorClass,
              )}</td><td>${escapeHtml(f.attempts)}</td><td class="err">${escapeHtml(f.lastError)}</td></tr>`,
          ),
        );
  const unfinished =
    cov.unfinishedChunks.length === 0
      ? '<p class="muted">Every chunk finished.</p>'
      : dataTable(
          `Unfinished chunks (${num(cov.unfinishedChunks.length)})`,
          ['Chunk', 'Stage', 'Status', 'Detail'],
          cov.unfinishedChunks.map(
            (u) =>
              `<tr><td>${escapeHtml(u.chunk)}</td><td>${escapeHtml(u.stage)}</td><td><span class="pill">${escapeHtml(
                u.status,
              )}</span></td><td class="err">${u.detail ? escapeHtml(u.detail) : '<span class="muted">—</span>'}</td></tr>`,
          ),
        );
  const stages = stageRows(ctx);
  const panel = ctx.report.analystPanel.map((a) =>
    row([
      `<code>${escapeHtml(a.id)}</code>`,
      escapeHtml(a.name),
      a.categories.map((id) => escapeHtml(ctx.categoryName(id))).join(', '),
    ]),
  );
  return `<section id="coverage" aria-labelledby="h-coverage">
<h2 id="h-coverage">Coverage and failures</h2>
<dl class="counters">${counterHtml}</dl>${screenedTable(ctx)}
<h3>Failed calls</h3>
${failed}
<h3>Unfinished chunks</h3>
${unfinished}
<details class="stages">
<summary>Stages of every chunk (${num(ctx.report.chunks.length)} chunks)</summary>
${dataTable(
  'Stage checkpoints per chunk',
  ['Chunk', 'Clauses', 'Stage', 'Status', 'Attempts', 'Started', 'Finished', 'Detail'],
  stages,
  true,
)}
</details>
<details class="panel">
<summary>Analyst panel (${num(ctx.report.analystPanel.length)})</summary>
${dataTable('Analysts and the categories they score', ['Id', 'Analyst', 'Categories'], panel, true)}
</details>
</section>`;
}

/** The calls not asked (the playbook's, then the screen's), per analyst and reason, with why; empty when none were. */
function screenedTable(ctx: Ctx): string {
  const cov = ctx.report.coverage;
  const rows = [...(cov.notAsked ?? []), ...(cov.screened ?? [])];
  if (rows.length === 0) return '';
  return `\n${dataTable(
    `Calls not asked (${num((cov.callsNotAsked ?? 0) + (cov.callsScreened ?? 0))})`,
    ['Analyst', 'Reason', 'Calls', 'Why'],
    rows.map((n) =>
      row([
        `<code title="${escapeHtml(ctx.analystName(n.analystId))}">${escapeHtml(n.analystId)}</code>`,
        escapeHtml(n.reason),
        num(n.calls),
        escapeHtml(n.detail),
      ]),
    ),
  )}`;
}

/** Cost against the ceiling: the bar, the counters, the quote and the cache use. */
export function renderCost(ctx: Ctx): string {
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

/** One row per chunk stage; a chunk's first row names it and its clauses. */
function stageRows(ctx: Ctx): string[] {
  return ctx.report.chunks.flatMap((ch) => {
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
  });
}
