/**
 * The Word add-in's task pane: sign in through Office's dialog; review the open document (the
 * playbook, gate, ceiling and the risk worth a comment chosen here, the quote shown first), or
 * follow the review it already had; and, as chunks consolidate, each clause at or above that
 * risk listed here and commented on in the document, its redlines applied as tracked changes on
 * request, and the gate's decisions taken here, as in the reviewer app.
 */
import type { Risk } from '../../core/report-types.js';
import { money } from '../../text/money.js';
import { coverageText, reviewedForText } from '../../text/review-terms.js';
import { AppApi, base64Of, type JobSummary, type SubmitRequest } from '../api.js';
import { RISKS } from '../clauses.js';
import type { AppConfig } from '../config.js';
import { announce, describeError, errorBox, h } from '../dom.js';
import { followJob as follow } from '../follow.js';
import { submitAndWait } from '../submit.js';
import { reviewPanel } from '../views/review.js';
import {
  ceilingInput,
  field,
  fillParties,
  gateSelect,
  playbookFields,
  quoteLines,
  tooLargeToQuote,
} from '../views/review-options.js';
import { roundFields } from '../views/round-options.js';
import { atOrAbove } from './finding-comments.js';
import { findingsPanel } from './findings-panel.js';
import type { AddinHost } from './host.js';
import type { PaneContext } from './pane-context.js';
import { isSignInEndedError, type PaneSession, readSignInMessage } from './sign-in-message.js';
import { theirChangesPanel } from './their-changes-panel.js';

/** Pages of GET /jobs looked through for an earlier review of the same file. */
const PAGES_SEARCHED = 4;

/** SHA-256 (hex) of bytes, as intake records a document's. */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new Uint8Array(bytes));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Jobs of the signed-in person on this very file (same hash), newest first. */
async function sameFileJobs(api: AppApi, sha256: string): Promise<JobSummary[]> {
  const found: JobSummary[] = [];
  let after: string | undefined;
  for (let page = 0; page < PAGES_SEARCHED; page++) {
    const list = await api.jobs(after ? { after } : {});
    found.push(...list.jobs.filter((j) => j.sha256 === sha256));
    if (!list.cursor) break;
    after = list.cursor;
  }
  return found;
}

/** The sign-in view: one button that opens Office's dialog. */
function signedOutView(host: AddinHost, signedIn: (s: PaneSession) => void, why?: string): HTMLElement {
  const out = h('div', { 'aria-live': 'polite' }, why ? h('p', { class: 'warning' }, why) : null);
  const button = h('button', { type: 'button', id: 'sign-in' }, 'Sign in');
  button.addEventListener('click', async () => {
    button.disabled = true;
    out.replaceChildren(h('p', {}, 'Signing in, in the window that opened…'));
    try {
      const message = await host.openDialog(new URL('sign-in.html', location.href).href);
      signedIn(readSignInMessage(message));
    } catch (error) {
      out.replaceChildren(errorBox(error));
      button.disabled = false;
    }
  });
  return h(
    'section',
    { 'aria-labelledby': 'pane-title' },
    h('h1', { id: 'pane-title', tabindex: '-1' }, 'Review this contract'),
    h(
      'p',
      {},
      'clause-review reviews the open document: each finding arrives as a comment on its clause while the review runs.',
    ),
    h('p', {}, button),
    out,
  );
}

/** The risk a clause must reach to be listed and commented on. */
function thresholdSelect(id: string): HTMLSelectElement {
  return h(
    'select',
    { id, name: 'threshold', 'aria-describedby': `${id}-hint` },
    ...RISKS.filter((r) => r !== 'none').map((r) =>
      h('option', { value: r, selected: r === 'medium' }, `${r} and above`),
    ),
  );
}

/** Earlier reviews of this document: its comments' jobs, and the person's jobs on the same file. */
function earlierReviews(
  ctx: PaneContext,
  hash: Promise<string>,
  follow: (jobId: string) => void,
): HTMLElement {
  const earlier = h(
    'div',
    { id: 'earlier', 'aria-live': 'polite' },
    h('p', { class: 'muted' }, 'Reading the document…'),
  );
  void (async () => {
    try {
      const [sha256, commented] = await Promise.all([hash, ctx.host.word.commentedJobs()]);
      const same = await sameFileJobs(ctx.api, sha256);
      const ids = [...new Set([...commented, ...same.map((j) => j.jobId)])];
      earlier.dataset.checked = String(ids.length);
      if (ids.length === 0) {
        earlier.replaceChildren(h('p', { class: 'muted' }, 'No earlier review of this document.'));
        return;
      }
      const item = (id: string) => {
        const job = same.find((j) => j.jobId === id);
        const button = h('button', { type: 'button', class: 'follow', 'data-job': id }, `Follow ${id}`);
        button.addEventListener('click', () => follow(id));
        const why = job ? `${job.status.replace('_', ' ')}, the same file` : 'its comments in this document';
        return h('li', {}, button, h('span', { class: 'muted small' }, ` (${why})`));
      };
      earlier.replaceChildren(
        h('h2', {}, 'Reviewed before'),
        h('ul', { class: 'earlier' }, ...ids.map(item)),
        h('p', { class: 'small' }, 'Or start a new review below.'),
      );
    } catch (error) {
      earlier.replaceChildren(errorBox(error));
    }
  })();
  return earlier;
}

/** The options of a new review of the open document, its quote, and the start. */
function reviewForm(
  ctx: PaneContext,
  read: () => Promise<Uint8Array>,
  start: (jobId: string, threshold: Risk) => void,
): HTMLFormElement {
  const { playbook, party, elements } = playbookFields(ctx.api, 'rv');
  const gate = gateSelect('rv-gate');
  const ceiling = ceilingInput('rv-ceiling');
  const threshold = thresholdSelect('rv-threshold');
  const round = roundFields(ctx.api, 'rv');
  void round.refresh(ctx.host.documentName()).catch(() => undefined);
  const quoteOut = h('div', { id: 'quote', 'aria-live': 'polite' });
  const quoteButton = h('button', { type: 'button', id: 'get-quote' }, 'Get a quote');
  const startButton = h('button', { type: 'submit', id: 'start-review', disabled: true }, 'Start the review');
  const form = h(
    'form',
    { class: 'upload', novalidate: true },
    ...elements,
    field(
      'Review gate',
      'rv-gate',
      gate,
      'Findings at this risk wait for your decision before the report is final.',
    ),
    field('Cost ceiling (US dollars)', 'rv-ceiling', ceiling, 'The job never spends more than this.'),
    round.element,
    field(
      'Comment on clauses at',
      'rv-threshold',
      threshold,
      'Clauses at this risk or above get a comment in the document.',
    ),
    h('div', { class: 'actions' }, quoteButton, startButton),
    quoteOut,
  );
  const request = (): SubmitRequest => {
    const usd = Number(ceiling.value);
    if (!(Number.isFinite(usd) && usd > 0))
      throw new Error('Cost ceiling: enter a number of dollars above 0.');
    return {
      filename: ctx.host.documentName(),
      lane: 'realtime',
      ceilingUsd: usd,
      analysts: ctx.config.analysts.map((a) => a.id),
      ...(gate.value === 'high' || gate.value === 'critical' ? { gate: gate.value } : {}),
      ...(playbook.value ? { playbook: playbook.value } : {}),
      ...(playbook.value && party.value ? { party: party.value } : {}),
    };
  };
  form.addEventListener('input', () => {
    delete quoteOut.dataset.expected;
    startButton.disabled = true;
  });
  quoteButton.addEventListener('click', async () => {
    quoteButton.disabled = true;
    quoteOut.replaceChildren(h('p', {}, 'Reading the document and pricing every call…'));
    try {
      const view = await ctx.api.quote({ ...request(), document: base64Of((await read()).slice().buffer) });
      quoteOut.dataset.expected = String(view.quote.expectedUsd);
      fillParties(party, view.parties);
      quoteOut.replaceChildren(...quoteLines(view));
      announce(`Quote ready: ${money(view.quote.expectedMicros)} expected.`);
    } catch (error) {
      quoteOut.replaceChildren(errorBox(error));
      // Intake quotes a document too large for POST /quote itself, and refuses a ceiling below it.
      if (tooLargeToQuote(error)) quoteOut.dataset.expected = 'at intake';
    } finally {
      quoteButton.disabled = false;
      startButton.disabled = !quoteOut.dataset.expected;
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    startButton.disabled = true;
    quoteButton.disabled = true;
    quoteOut.append(h('p', {}, 'Sending the document…'));
    try {
      const chosen = round.chosen();
      const version = chosen.version ? await chosen.version.arrayBuffer() : undefined;
      const view = await submitAndWait(
        ctx.api,
        (await read()).slice().buffer,
        { ...request(), ...chosen.request },
        version,
      );
      start(view.jobId, threshold.value as Risk);
    } catch (error) {
      quoteOut.replaceChildren(errorBox(error));
      quoteButton.disabled = false;
    }
  });
  return form;
}

/** The review of the open document: earlier reviews of the same file, then a new one. */
function documentView(ctx: PaneContext): HTMLElement {
  let bytes: Promise<Uint8Array> | undefined;
  const read = () => {
    bytes ??= ctx.host.readDocument();
    return bytes;
  };
  const form = reviewForm(ctx, read, (jobId, threshold) => followJob(ctx, jobId, threshold));
  const threshold = () => (form.querySelector('#rv-threshold') as HTMLSelectElement).value as Risk;
  return h(
    'section',
    { 'aria-labelledby': 'doc-title' },
    h('h1', { id: 'doc-title', tabindex: '-1' }, `Review ${ctx.host.documentName()}`),
    earlierReviews(ctx, read().then(sha256Hex), (jobId) => followJob(ctx, jobId, threshold())),
    h('h2', {}, 'A new review'),
    h('p', {}, 'Get a quote first: nothing is spent until you start the review.'),
    form,
  );
}

/** Follows a job: status, the clauses at or above `threshold` as they come, and its review. */
function followJob(ctx: PaneContext, jobId: string, threshold: Risk): void {
  const title = h('h1', { id: 'job-title', tabindex: '-1' }, `Review ${jobId}`);
  const status = h('p', { id: 'job-status', role: 'status', 'data-status': '' }, 'Starting…');
  const forWhom = h('p', { id: 'job-for-whom', class: 'small' });
  const findings = findingsPanel(ctx, jobId, threshold);
  const theirs = theirChangesPanel(ctx);
  const review = h('div', { id: 'review' });
  const back = h('button', { type: 'button', class: 'link', id: 'back' }, 'Back to this document');
  back.addEventListener('click', () => ctx.show(documentView(ctx)));
  const element = h(
    'section',
    { 'aria-labelledby': 'job-title' },
    title,
    status,
    forWhom,
    theirs.element,
    findings.element,
    review,
    h('p', {}, back),
  );
  const following = follow(ctx.api, jobId, {
    shown(view) {
      title.textContent = view.document.key.split('/').at(-1) ?? jobId;
      const p = view.progress;
      status.dataset.status = view.status;
      status.textContent = `${view.status.replace('_', ' ')} · ${p.chunksTerminal}/${p.chunksTotal} chunks · ${money(view.cost.spentMicros)} of ${money(view.cost.ceilingMicros)}`;
      forWhom.textContent = [
        reviewedForText(view.parties),
        view.playbook ? coverageText(view.contractType, view.playbook) : undefined,
      ]
        .filter(Boolean)
        .join(' ');
    },
    async clauses(clauses) {
      const wanted = clauses.filter((c) => c.findings.length > 0 && atOrAbove(c, threshold));
      if (wanted.length > 0) await findings.add(wanted);
    },
    changes: (changes) => theirs.add(changes),
    review: (gated, again) => review.replaceChildren(reviewPanel(jobId, gated, ctx.api, again)),
    failed(error) {
      if (isSignInEndedError(error)) {
        ctx.signOut(describeError(error));
        return false;
      }
      status.replaceChildren(errorBox(error));
      return true;
    },
  });
  ctx.show(element, following.stop);
}

/** Starts the pane in `main`, with the signed-in person and Sign out in `header`. */
export function startPane(host: AddinHost, config: AppConfig, main: HTMLElement, header: HTMLElement): void {
  let stop: (() => void) | undefined;
  const show = (view: HTMLElement, onStop?: () => void) => {
    stop?.();
    stop = onStop;
    main.replaceChildren(view);
    view.querySelector<HTMLElement>('h1')?.focus();
  };
  const signOut = (why?: string) => {
    header.replaceChildren();
    show(signedOutView(host, signedIn, why));
  };
  const signedIn = (session: PaneSession) => {
    const api = new AppApi({ url: config.apiUrl, region: config.region, credentials: session.credentials });
    const out = h('button', { type: 'button', class: 'link', id: 'sign-out' }, 'Sign out');
    out.addEventListener('click', () => signOut());
    header.replaceChildren(h('p', { class: 'who' }, `Signed in as ${session.who} `, out));
    show(documentView({ host, config, api, session, show, signOut }));
  };
  signOut();
}
