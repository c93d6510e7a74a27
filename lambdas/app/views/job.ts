/** One job: status, cost, controls, the contract filling in live, its review and its reports. */

import { dollars, money } from '../../text/money.js';
import { coverageText, reviewedForText } from '../../text/review-terms.js';
import type { JobView, Negotiation, PlaybookReview, ReportClause, ReportLinks } from '../api.js';
import { announce, errorBox, h, when } from '../dom.js';
import { followJob } from '../follow.js';
import type { View, ViewContext } from './context.js';
import { contractPanel } from './contract.js';
import { negotiationPanel } from './negotiation.js';
import { reviewPanel } from './review.js';

const ENDED = new Set(['completed', 'incomplete', 'cancelled', 'budget_exceeded', 'rejected']);

function summary(view: JobView): HTMLElement {
  const p = view.progress;
  const quote = view.cost.quote;
  return h(
    'dl',
    { class: 'summary' },
    h('dt', {}, 'Status'),
    h(
      'dd',
      { id: 'job-status', 'data-status': view.status },
      h('span', { class: `status status-${view.status}` }, view.status.replace('_', ' ')),
      view.reason && view.status !== 'running' ? ` (${view.reason})` : '',
    ),
    h('dt', {}, 'Progress'),
    h(
      'dd',
      {},
      h('progress', {
        max: Math.max(p.chunksTotal, 1),
        value: p.chunksTerminal,
        'aria-label': 'Chunks finished',
      }),
      ` ${p.chunksTerminal}/${p.chunksTotal} chunks · ${p.clauses} clauses · ${p.callsPlanned} calls planned`,
      p.callsScreened > 0 ? ` · ${p.callsScreened} screened` : '',
    ),
    h('dt', {}, 'Cost'),
    h(
      'dd',
      {},
      `${money(view.cost.spentMicros)} spent of ${money(view.cost.ceilingMicros)}`,
      quote ? ` · quoted ${dollars(quote.expectedUsd)} (worst ${dollars(quote.worstCaseUsd)})` : '',
    ),
    h('dt', {}, 'Submitted'),
    h('dd', {}, when(view.createdAt), view.lane ? ` · lane ${view.lane}` : ''),
    h('dt', {}, 'Reviewed against'),
    h(
      'dd',
      { id: 'job-playbook' },
      view.playbook
        ? `${view.playbook.title} (${view.playbook.name}@${view.playbook.version})`
        : 'the risk categories (no playbook)',
    ),
    ...forWhom(view),
  );
}

/** Whose side a review against a playbook took, and whether the playbook covers the contract. */
function forWhom(view: JobView): HTMLElement[] {
  const text = reviewedForText(view.parties);
  const coverage = view.playbook ? coverageText(view.contractType, view.playbook) : undefined;
  return [
    ...(text
      ? [
          h('dt', {}, 'Reviewed for'),
          h('dd', { id: 'job-reviewed-for' }, text.replace(/^Reviewed for: /, '')),
        ]
      : []),
    ...(coverage
      ? [h('dt', {}, 'Contract type'), h('dd', { id: 'job-coverage', class: 'warn' }, coverage)]
      : []),
  ];
}

function controls(ctx: ViewContext, view: JobView, refresh: () => void): HTMLElement {
  const out = h('div', { 'aria-live': 'polite' });
  const act = (action: 'pause' | 'resume' | 'cancel', label: string) => {
    const b = h('button', { type: 'button', id: `job-${action}` }, label);
    b.addEventListener('click', async () => {
      try {
        const v = await ctx.api.act(view.jobId, action);
        announce(`The job is ${v.status.replace('_', ' ')}.`);
        refresh();
      } catch (error) {
        out.replaceChildren(errorBox(error));
      }
    });
    return b;
  };
  const ended = ENDED.has(view.status);
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Job controls' },
    view.status === 'running' ? act('pause', 'Pause') : null,
    view.status === 'paused' ? act('resume', 'Resume') : null,
    !ended && view.status !== 'queued' ? act('cancel', 'Cancel') : null,
    out,
  );
}

/**
 * The report's clauses, which carry the reviewer's decisions and the risk they make, and the
 * positions of a review against a playbook with their redlines; and that review over the whole
 * contract.
 */
async function reportedClauses(
  url: string,
): Promise<{ clauses: readonly ReportClause[]; playbookReview?: PlaybookReview; negotiation?: Negotiation }> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`report.json could not be read (HTTP ${r.status})`);
  return (await r.json()) as {
    clauses: readonly ReportClause[];
    playbookReview?: PlaybookReview;
    negotiation?: Negotiation;
  };
}

async function downloads(
  ctx: ViewContext,
  jobId: string,
): Promise<{ element: HTMLElement; links: ReportLinks }> {
  const links = await ctx.api.report(jobId);
  const file = (name: string, l: { url: string } | undefined) =>
    l
      ? h(
          'li',
          {},
          h('a', { href: l.url, download: name, class: 'download', 'data-file': name }, `Download ${name}`),
        )
      : null;
  const element = h(
    'section',
    { 'aria-labelledby': 'reports-title' },
    h('h2', { id: 'reports-title' }, 'Reports'),
    h(
      'ul',
      { class: 'downloads' },
      file('report.json', links.json),
      file('report.html', links.html),
      file('report.docx', links.docx),
    ),
  );
  return { element, links };
}

/** The job page; polls while the job moves and reads findings as chunks consolidate. */
export function jobView(ctx: ViewContext, jobId: string): View {
  const title = h('h1', { id: 'job-title', tabindex: '-1' }, jobId);
  const head = h('div', {});
  const bar = h('div', {});
  const review = h('div', { id: 'review' });
  const reports = h('div', { id: 'reports' });
  const contract = contractPanel();
  const round = negotiationPanel();
  const element = h(
    'section',
    { 'aria-labelledby': 'job-title' },
    title,
    head,
    bar,
    reports,
    round.element,
    review,
    contract.element,
  );
  let shownStatus = '';
  const following = followJob(ctx.api, jobId, {
    shown(view) {
      title.textContent = view.document.key.split('/').at(-1) ?? jobId;
      head.replaceChildren(summary(view));
      if (view.status !== shownStatus) {
        shownStatus = view.status;
        bar.replaceChildren(controls(ctx, view, () => following.again()));
      }
    },
    clauses: (clauses) => contract.add(clauses),
    changes: (changes) => round.add(changes),
    review: (findings, again) => review.replaceChildren(reviewPanel(jobId, findings, ctx.api, again)),
    async settled(view) {
      if (!view.reportReady) return false;
      if (reports.childElementCount > 0) return true;
      const d = await downloads(ctx, jobId);
      // A reviewed job, or one reviewed against a playbook: the clauses as reported (decided,
      // with their positions and redlines) replace the panel's before the reports are offered,
      // so a report downloaded from the page never disagrees with the page.
      const reported = await reportedClauses(d.links.json.url);
      if (view.review?.startedAt || view.playbook) {
        contract.add(reported.clauses, true);
        contract.setPlaybook(reported.playbookReview);
      }
      round.setReport(reported.negotiation, reported.clauses);
      reports.replaceChildren(d.element);
      return true;
    },
    failed(error) {
      bar.replaceChildren(errorBox(error));
      return true;
    },
  });
  return { element, stop: following.stop };
}
