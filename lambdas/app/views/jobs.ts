/** The signed-in person's jobs: status, progress and cost, newest first. */
import { isAppApiError, type JobSummary } from '../api.js';
import { money } from '../clauses.js';
import { describeError, errorBox, h, when } from '../dom.js';
import { MOVING, type View, type ViewContext } from './context.js';

const POLL_MS = 2000;

/** GET /jobs, or, where the API does not serve it yet, the jobs this page submitted. */
async function loadJobs(ctx: ViewContext): Promise<readonly JobSummary[]> {
  try {
    return (await ctx.api.listJobs()).jobs;
  } catch (error) {
    if (!(isAppApiError(error) && error.status === 404)) throw error;
    const views = await Promise.all(ctx.submitted.map((id) => ctx.api.status(id)));
    return views.map((v) => ({
      jobId: v.jobId,
      status: v.status,
      document: v.document.key,
      ...(v.lane ? { lane: v.lane } : {}),
      ...(v.createdAt ? { createdAt: v.createdAt } : {}),
      chunks: { total: v.progress.chunksTotal, done: v.progress.chunksDone },
      clauses: v.progress.clauses,
      cost: { spentMicros: v.cost.spentMicros, ceilingMicros: v.cost.ceilingMicros },
      ...(v.review ? { gate: v.review.gate } : {}),
      ...(v.reason ? { reason: v.reason } : {}),
    }));
  }
}

function row(job: JobSummary): HTMLTableRowElement {
  const name = job.document.split('/').at(-1) ?? job.document;
  const { done, total } = job.chunks;
  return h(
    'tr',
    {},
    h(
      'th',
      { scope: 'row' },
      h('a', { href: `#/jobs/${job.jobId}` }, name),
      h('div', { class: 'muted' }, job.jobId),
    ),
    h(
      'td',
      {},
      h('span', { class: `status status-${job.status}` }, job.status.replace('_', ' ')),
      job.reason && job.status === 'rejected' ? h('div', { class: 'muted small' }, job.reason) : null,
    ),
    h(
      'td',
      {},
      h('progress', {
        max: Math.max(total, 1),
        value: done,
        'aria-label': `${name}: ${done} of ${total} chunks`,
      }),
      ` ${done}/${total} chunks · ${job.clauses} clauses`,
    ),
    h('td', {}, `${money(job.cost.spentMicros)} of ${money(job.cost.ceilingMicros)}`),
    h('td', {}, when(job.createdAt)),
  );
}

/** The jobs table, refreshed while any job moves. */
export function jobsView(ctx: ViewContext): View {
  const body = h('tbody', {});
  const note = h('p', { class: 'muted' }, 'Loading your jobs…');
  const element = h(
    'section',
    { 'aria-labelledby': 'jobs-title' },
    h('h1', { id: 'jobs-title', tabindex: '-1' }, 'Your jobs'),
    h('p', {}, h('a', { href: '#/new', class: 'button' }, 'Review a new contract')),
    note,
    h(
      'table',
      { class: 'jobs' },
      h('caption', { class: 'visually-hidden' }, 'Your jobs, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Contract', 'Status', 'Progress', 'Cost', 'Submitted'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      body,
    ),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const refresh = async () => {
    try {
      const jobs = await loadJobs(ctx);
      if (stopped) return;
      body.replaceChildren(...jobs.map(row));
      note.textContent = jobs.length === 0 ? 'No jobs yet.' : `${jobs.length} job(s).`;
      if (jobs.some((j) => MOVING.has(j.status))) timer = setTimeout(refresh, POLL_MS);
    } catch (error) {
      note.replaceWith(errorBox(error));
      note.textContent = describeError(error);
    }
  };
  void refresh();
  return {
    element,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
