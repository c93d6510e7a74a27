/**
 * The signed-in person's jobs: status, progress and cost, newest first; above them, the jobs
 * whose review waits for an approver group they are in.
 */

import { money } from '../../text/money.js';
import { isAppApiError, type JobSummary } from '../api.js';
import { describeError, errorBox, h, when } from '../dom.js';
import { MOVING, type View, type ViewContext } from './context.js';

const POLL_MS = 2000;

/** A listed job; one read by its id, where GET /jobs is not served, may lack its lane and times. */
type ListedJob = Omit<JobSummary, 'lane' | 'createdAt' | 'updatedAt'> &
  Partial<Pick<JobSummary, 'lane' | 'createdAt' | 'updatedAt'>>;

/** A page of GET /jobs, or, where the API does not serve it yet, the jobs this page submitted. */
async function loadJobs(
  ctx: ViewContext,
  after?: string,
): Promise<{ jobs: readonly ListedJob[]; cursor?: string }> {
  try {
    return await ctx.api.jobs(after ? { after } : {});
  } catch (error) {
    if (!(isAppApiError(error) && error.status === 404)) throw error;
    const views = await Promise.all(ctx.submitted.map((id) => ctx.api.status(id)));
    const jobs = views.map((v) => ({
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
    return { jobs };
  }
}

function row(job: ListedJob): HTMLTableRowElement {
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
      job.status === 'queued' ? h('div', { class: 'muted small' }, 'waits for its turn to start') : null,
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

const HEADS = ['Contract', 'Status', 'Progress', 'Cost', 'Submitted'];

function jobsTable(caption: string, body: HTMLElement): HTMLElement {
  return h(
    'table',
    { class: 'jobs' },
    h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, ...HEADS.map((t) => h('th', { scope: 'col' }, t)))),
    body,
  );
}

/** The jobs waiting for the person as an approver: shown only when there are some. */
function approvals(ctx: ViewContext): HTMLElement {
  const section = h('section', { 'aria-labelledby': 'approvals-title', id: 'approvals', hidden: true });
  ctx.api.jobs({ awaiting: 'approval' }).then(
    ({ jobs }) => {
      if (jobs.length === 0) return;
      section.append(
        h('h2', { id: 'approvals-title' }, 'Waiting for your decision as an approver'),
        jobsTable('Jobs whose review waits for a group you are in', h('tbody', {}, ...jobs.map(row))),
      );
      section.hidden = false;
    },
    // A stack that cannot say leaves the list of one's own jobs as it was.
    () => {},
  );
  return section;
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
    approvals(ctx),
    note,
    jobsTable('Your jobs, newest first', body),
  );
  // GET /jobs pages newest first; older pages are read on request and kept below the first.
  const older = h('button', { type: 'button', id: 'older-jobs', hidden: true }, 'Show older jobs');
  element.append(older);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let first: readonly ListedJob[] = [];
  let rest: ListedJob[] = [];
  let cursor: string | undefined;
  const render = () => {
    const jobs = [...first, ...rest.filter((j) => !first.some((f) => f.jobId === j.jobId))];
    body.replaceChildren(...jobs.map(row));
    note.textContent = jobs.length === 0 ? 'No jobs yet.' : `${jobs.length} job(s).`;
    older.hidden = cursor === undefined;
  };
  const refresh = async () => {
    try {
      const page = await loadJobs(ctx);
      if (stopped) return;
      first = page.jobs;
      if (rest.length === 0) cursor = page.cursor;
      render();
      if (first.some((j) => MOVING.has(j.status))) timer = setTimeout(refresh, POLL_MS);
    } catch (error) {
      note.replaceWith(errorBox(error));
      note.textContent = describeError(error);
    }
  };
  older.addEventListener('click', async () => {
    try {
      const page = await loadJobs(ctx, cursor);
      rest = [...rest, ...page.jobs];
      cursor = page.cursor;
      render();
    } catch (error) {
      older.after(errorBox(error));
    }
  });
  void refresh();
  return {
    element,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
