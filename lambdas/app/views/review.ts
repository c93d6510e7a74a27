/**
 * A review: each gated finding approved, overridden with a score, or rejected with a note; in a
 * review against a playbook, each escalated finding decided by its approver group and each
 * proposed redline accepted, rejected or edited; the trail.
 */

import { deciderText } from '../../text/decider.js';
import type { AppApi, FindingsView } from '../api.js';
import { announce, errorBox, h, when } from '../dom.js';
import { escalationItem, redlineItem, slug } from './playbook.js';

type Listed = FindingsView['findings'][number];

function decisionForm(jobId: string, finding: Listed, api: AppApi, done: () => void): HTMLElement {
  const key = slug(finding.id);
  const radios = (['approve', 'override', 'reject'] as const).map((v) =>
    h('input', {
      type: 'radio',
      name: `verdict-${key}`,
      id: `v-${key}-${v}`,
      value: v,
      checked: v === 'approve',
    }),
  );
  const score = h(
    'select',
    { id: `score-${key}`, disabled: true },
    ...[0, 1, 2, 3].map((s) => h('option', { value: String(s) }, String(s))),
  );
  const note = h('input', { id: `note-${key}`, type: 'text', maxlength: '2000' });
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'decision', 'data-finding': finding.id },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Decision'),
      ...radios.map((r) => h('span', { class: 'check' }, r, h('label', { for: r.id }, ` ${r.value}`))),
    ),
    h('div', { class: 'field' }, h('label', { for: score.id }, 'Score (override)'), score),
    h('div', { class: 'field' }, h('label', { for: note.id }, 'Note'), note),
    h('button', { type: 'submit' }, `Record decision on ${finding.id}`),
    out,
  );
  form.addEventListener('change', () => {
    score.disabled = !radios[1]?.checked;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const verdict = radios.find((r) => r.checked)?.value as 'approve' | 'override' | 'reject';
    try {
      const r = await api.decide(jobId, {
        findings: [finding.id],
        verdict,
        ...(verdict === 'override' ? { score: Number(score.value) } : {}),
        ...(note.value.trim() ? { note: note.value.trim() } : {}),
      });
      announce(`Recorded: ${verdict} on ${finding.id}. ${r.undecided} finding(s) left.`);
      done();
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  return form;
}

function findingItem(jobId: string, f: Listed, api: AppApi, open: boolean, done: () => void): HTMLElement {
  return h(
    'li',
    { class: 'gated', id: `finding-${slug(f.id)}` },
    h(
      'h3',
      {},
      `${f.label ?? f.clauseId} · ${f.category.replace(/-/g, ' ')} · score ${f.score} · ${f.clauseRisk}`,
    ),
    ...f.quotes.map((q) => h('blockquote', {}, h('mark', {}, q.quote))),
    h('p', {}, f.rationale),
    h('p', { class: 'muted small' }, `Analysts: ${f.analysts.join(', ')}`),
    f.decision
      ? h(
          'p',
          { class: 'decided' },
          `Decided: ${f.decision.verdict}${f.decision.score !== undefined ? ` (score ${f.decision.score})` : ''} by ${deciderText(f.decision)} `,
          when(f.decision.at),
        )
      : null,
    open ? decisionForm(jobId, f, api, done) : null,
  );
}

/** One row of the trail: what was decided, how, the score, who, when and the note. */
interface TrailRow {
  readonly id: string;
  readonly decision: string;
  readonly score: string;
  readonly who: string;
  readonly at: string;
  readonly note: string;
}

/** Every decision in force, findings, escalations and redlines alike, oldest first. */
function trailRows(view: FindingsView): TrailRow[] {
  const rows: TrailRow[] = [];
  for (const f of [...view.findings, ...(view.escalations ?? [])]) {
    const d = f.decision;
    if (!d) continue;
    rows.push({
      id: f.id,
      decision: d.verdict,
      score: d.score === undefined ? '' : String(d.score),
      who: deciderText(d),
      at: d.at,
      note: d.note ?? '',
    });
  }
  for (const r of view.redlines ?? []) {
    const d = r.decision;
    if (d.status === 'proposed') continue;
    rows.push({
      id: r.id,
      decision: d.status,
      score: '',
      who: deciderText(d),
      at: d.at ?? '',
      note: d.note ?? '',
    });
  }
  return rows.sort((a, b) => a.at.localeCompare(b.at));
}

/** The trail: every decision in force, with who and when. */
function trail(view: FindingsView): HTMLElement {
  const decided = trailRows(view);
  return h(
    'section',
    { 'aria-labelledby': 'trail-title' },
    h('h2', { id: 'trail-title' }, 'Decisions'),
    decided.length === 0
      ? h('p', { class: 'muted' }, 'No decision yet.')
      : h(
          'table',
          { class: 'trail', id: 'trail' },
          h('caption', { class: 'visually-hidden' }, 'Decisions, oldest first'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ...['Finding', 'Decision', 'Score', 'Who', 'When', 'Note'].map((t) =>
                h('th', { scope: 'col' }, t),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            ...decided.map((r) =>
              h(
                'tr',
                {},
                h('td', {}, r.id),
                h('td', {}, r.decision),
                h('td', {}, r.score),
                h('td', {}, r.who),
                h('td', {}, when(r.at)),
                h('td', {}, r.note),
              ),
            ),
          ),
        ),
  );
}

/** A button that decides every undecided item of a kind the caller may decide, and says what it did. */
function allButton(
  id: string,
  label: string,
  run: () => Promise<unknown>,
  said: string,
  out: HTMLElement,
  changed: () => void,
) {
  const button = h('button', { type: 'button', id }, label);
  button.addEventListener('click', async () => {
    try {
      await run();
      announce(said);
      changed();
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  return button;
}

/**
 * What the review holds, each list under its heading: a playbook's proposed redlines and
 * escalations first (what only the team's positions say), then the findings at the gate's risk.
 */
function heldLists(jobId: string, view: FindingsView, api: AppApi, open: boolean, changed: () => void) {
  const gated = view.findings.filter((f) => f.gated);
  const escalations = view.escalations ?? [];
  const redlines = view.redlines ?? [];
  const playbook = escalations.length + redlines.length > 0;
  return h(
    'div',
    {},
    redlines.length > 0
      ? h(
          'section',
          { 'aria-labelledby': 'redlines-title' },
          h('h3', { id: 'redlines-title' }, 'Proposed redlines'),
          h(
            'ul',
            { class: 'gated-list', id: 'redlines' },
            ...redlines.map((r) => redlineItem(jobId, r, api, open, changed)),
          ),
        )
      : null,
    escalations.length > 0
      ? h(
          'section',
          { 'aria-labelledby': 'escalations-title' },
          h('h3', { id: 'escalations-title' }, 'Escalated to approvers'),
          h(
            'ul',
            { class: 'gated-list', id: 'escalations' },
            ...escalations.map((e) => escalationItem(jobId, e, api, open, changed, view.ownJob === true)),
          ),
        )
      : null,
    gated.length > 0
      ? h(
          'section',
          playbook ? { 'aria-labelledby': 'gated-title' } : { 'aria-label': "Findings at the gate's risk" },
          playbook ? h('h3', { id: 'gated-title' }, "Findings at the gate's risk") : null,
          h(
            'ul',
            { class: 'gated-list' },
            ...gated.map((f) => findingItem(jobId, f, api, open && f.mayDecide && !f.decision, changed)),
          ),
        )
      : null,
  );
}

/** The buttons that decide at once what the caller may: every undecided finding, every undecided redline. */
function bulkButtons(jobId: string, view: FindingsView, api: AppApi, out: HTMLElement, changed: () => void) {
  const mine =
    view.findings.filter((f) => f.gated && f.mayDecide && !f.decision).length +
    (view.escalations ?? []).filter((e) => e.mayDecide && !e.decision).length;
  const myRedlines = (view.redlines ?? []).filter(
    (r) => r.mayDecide && r.decision.status === 'proposed',
  ).length;
  const all =
    mine > 0
      ? allButton(
          'approve-all',
          `Approve all ${mine} undecided finding(s) you may decide`,
          () => api.decide(jobId, { allUndecided: true, verdict: 'approve' }),
          'Approved every undecided finding you may decide.',
          out,
          changed,
        )
      : null;
  const redlines =
    myRedlines > 0
      ? allButton(
          'accept-all-redlines',
          `Accept all ${myRedlines} undecided redline(s)`,
          () => api.decideRedlines(jobId, { allUndecided: true, decision: 'accept' }),
          'Accepted every undecided redline.',
          out,
          changed,
        )
      : null;
  return all || redlines ? h('p', {}, all, all && redlines ? ' ' : null, redlines) : null;
}

/** The review panel of a job with a gate; `changed` runs after each recorded decision. */
export function reviewPanel(
  jobId: string,
  view: FindingsView,
  api: AppApi,
  changed: () => void,
): HTMLElement {
  const open = view.status === 'awaiting_review' && view.undecided > 0;
  const held =
    view.findings.filter((f) => f.gated).length +
    (view.escalations?.length ?? 0) +
    (view.redlines?.length ?? 0);
  const out = h('div', { 'aria-live': 'polite' });
  // Once the review is closed, what it held folds away behind the trail.
  const body = heldLists(jobId, view, api, open, changed);
  return h(
    'div',
    { class: 'review' },
    h(
      'section',
      { 'aria-labelledby': 'review-title' },
      h('h2', { id: 'review-title' }, `Review (gate ${view.gate})`),
      h(
        'p',
        {},
        open ? `${view.undecided} of ${held} item(s) wait for a decision` : `${held} item(s) held`,
        view.reviewDeadline ? h('span', {}, ' · deadline ', when(view.reviewDeadline)) : null,
      ),
      open ? bulkButtons(jobId, view, api, out, changed) : null,
      out,
      open
        ? body
        : h(
            'details',
            { class: 'gated-done' },
            h('summary', {}, `The ${held} held item(s) and their quotes`),
            body,
          ),
    ),
    trail(view),
  );
}
