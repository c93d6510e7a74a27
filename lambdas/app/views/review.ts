/** A review: each gated finding approved, overridden with a score, or rejected with a note; the trail. */

import type { AppApi, FindingsView } from '../api.js';
import { deciderText } from '../decider.js';
import { announce, errorBox, h, when } from '../dom.js';

type Listed = FindingsView['findings'][number];

const slug = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '-');

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

/** The trail: every decision in force, with who and when. */
function trail(view: FindingsView): HTMLElement {
  const decided = view.findings
    .filter((f) => f.decision)
    .sort((a, b) => (a.decision?.at ?? '').localeCompare(b.decision?.at ?? ''));
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
            ...decided.map((f) =>
              h(
                'tr',
                {},
                h('td', {}, f.id),
                h('td', {}, f.decision?.verdict ?? ''),
                h('td', {}, f.decision?.score === undefined ? '' : String(f.decision.score)),
                h('td', {}, f.decision ? deciderText(f.decision) : ''),
                h('td', {}, when(f.decision?.at)),
                h('td', {}, f.decision?.note ?? ''),
              ),
            ),
          ),
        ),
  );
}

/** The review panel of a job with a gate; `changed` runs after each recorded decision. */
export function reviewPanel(
  jobId: string,
  view: FindingsView,
  api: AppApi,
  changed: () => void,
): HTMLElement {
  const open = view.status === 'awaiting_review' && view.undecided > 0;
  const gated = view.findings.filter((f) => f.gated);
  // Once the review is closed, the findings fold away behind the trail.
  const list = h(
    'ul',
    { class: 'gated-list' },
    ...gated.map((f) => findingItem(jobId, f, api, open && !f.decision, changed)),
  );
  const all = h('button', { type: 'button', id: 'approve-all' }, `Approve all ${view.undecided} undecided`);
  const out = h('div', { 'aria-live': 'polite' });
  all.addEventListener('click', async () => {
    try {
      await api.decide(jobId, { allUndecided: true, verdict: 'approve' });
      announce('Approved every undecided finding.');
      changed();
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
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
        open
          ? `${view.undecided} of ${gated.length} finding(s) wait for a decision`
          : `${gated.length} gated finding(s)`,
        view.reviewDeadline ? h('span', {}, ' · deadline ', when(view.reviewDeadline)) : null,
      ),
      open ? h('p', {}, all) : null,
      out,
      open
        ? list
        : h(
            'details',
            { class: 'gated-done' },
            h('summary', {}, `The ${gated.length} gated finding(s) and their quotes`),
            list,
          ),
    ),
    trail(view),
  );
}
