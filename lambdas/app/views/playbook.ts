/**
 * The review against a playbook in the app: rungs in words, a redline as the clause's own text
 * with the deleted text struck (`<del>`) and the inserted text marked (`<ins>`), each named in
 * words for a screen reader, never by colour alone; the positions under a clause; the required
 * clauses found nowhere; and the forms a reviewer accepts, rejects or edits a redline with, and an
 * approver decides an escalation with. Every element is built from text nodes.
 */

import type { ListedEscalation, ListedRedline } from '../../core/holds/review.js';
import type {
  EscalationEntry,
  PlaybookReview,
  PositionFinding,
  ProposedRedline,
  ReportClause,
} from '../../core/report-types.js';
import { deciderText } from '../../text/decider.js';
import type { RedlineEdit } from '../../text/redline-edits.js';
import { checkRedlineEdits, editSegments, editsBetween, rungLabel } from '../../text/redline-text.js';
import { shapeText, sourceText } from '../../text/review-terms.js';
import type { AppApi } from '../api.js';
import { announce, errorBox, h, when } from '../dom.js';

/** An id as an element id can hold it. */
export const slug = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, '-');

/** A rung as a badge: its words, with a class for its colour. */
export function rungBadge(r: Pick<PositionFinding, 'rung' | 'fallback'> | { rung: 'missing' }): HTMLElement {
  const text = r.rung === 'missing' ? 'missing' : rungLabel(r);
  return h('span', { class: `rung rung-${r.rung}` }, text);
}

/** The clause with the edits made, as tracked changes read: struck and inserted text, named in words. */
export function redlineDiff(text: string, edits: readonly RedlineEdit[]): HTMLElement {
  return h(
    'p',
    { class: 'redline-text' },
    ...editSegments(text, edits).map((s) =>
      s.kind === 'kept'
        ? s.text
        : h(
            s.kind === 'deleted' ? 'del' : 'ins',
            {},
            h('span', { class: 'visually-hidden' }, s.kind === 'deleted' ? '[deleted: ' : '[inserted: '),
            s.text,
            h('span', { class: 'visually-hidden' }, ']'),
          ),
    ),
  );
}

const REDLINE_STATUS: Readonly<Record<ProposedRedline['decision']['status'], string>> = {
  proposed: 'proposed, not decided',
  accepted: 'accepted',
  rejected: 'rejected: report.docx leaves it out',
  edited: "edited: report.docx carries the reviewer's edit",
};

/** How a redline stands: its decision, by whom and when. */
function redlineDecided(d: ProposedRedline['decision']): HTMLElement {
  return h(
    'p',
    { class: `decided redline-${d.status}` },
    `Redline ${REDLINE_STATUS[d.status]}`,
    d.by ? ` by ${deciderText(d)} ` : '',
    d.at ? when(d.at) : '',
    d.note ? ` · “${d.note}”` : '',
  );
}

/** How an escalation stands, from report.json. */
function escalationLine(e: Pick<EscalationEntry, 'group' | 'reason' | 'review'>): HTMLElement {
  const r = e.review;
  return h(
    'p',
    { class: 'escalation' },
    `Needs the ${e.group} group (${e.reason.replace(/-/g, ' ')})`,
    r && r.decision !== 'unreviewed'
      ? `: ${r.decision} by ${deciderText(r)} `
      : r
        ? ': not decided in time'
        : '',
    r?.at ? when(r.at) : '',
    r?.note ? ` · “${r.note}”` : '',
  );
}

/** The positions a clause addresses, as report.json has them. */
export function clausePositions(
  clause: Pick<ReportClause, 'text' | 'positions'>,
  review: Pick<PlaybookReview, 'escalations'> | undefined,
): HTMLElement | null {
  const positions = clause.positions ?? [];
  if (positions.length === 0) return null;
  const escalations = new Map((review?.escalations ?? []).map((e) => [e.findingId, e]));
  return h(
    'ul',
    { class: 'positions', 'aria-label': 'Against the playbook' },
    ...positions.map((p) => {
      const e = escalations.get(p.id) ?? (p.escalation ? { ...p.escalation, findingId: p.id } : undefined);
      const r = p.redline;
      const edits = r && r.decision.status === 'edited' && r.decision.edits ? r.decision.edits : r?.edits;
      return h(
        'li',
        { class: 'position', 'data-position': p.id },
        h('p', {}, rungBadge(p), ' ', h('strong', {}, p.topic), ` · ${p.question}`),
        h('p', { class: 'muted small' }, p.reason),
        e ? escalationLine(e) : null,
        r && edits
          ? h(
              'div',
              { class: 'redline', 'data-redline': r.id },
              h('p', { class: 'small' }, 'Proposed language, to reach ', rungBadge(r.target), ':'),
              redlineOrigin(r),
              redlineDiff(clause.text, edits),
              r.source === 'model' ? playbookLanguage(r) : null,
              redlineDecided(r.decision),
            )
          : null,
      );
    }),
  );
}

/** The required clauses found in no clause, with the language to insert: shown at the top. */
export function missingClauses(review: PlaybookReview): HTMLElement | null {
  if (review.missing.length === 0) return null;
  const escalations = new Map(review.escalations.map((e) => [e.findingId, e]));
  return h(
    'section',
    { class: 'missing', 'aria-labelledby': 'missing-title', id: 'missing-clauses' },
    h('h3', { id: 'missing-title' }, 'Required clauses missing'),
    h(
      'ul',
      {},
      ...review.missing.map((m) =>
        h(
          'li',
          { 'data-missing': m.id },
          h('p', {}, rungBadge({ rung: 'missing' }), ' ', h('strong', {}, m.topic), ` · ${m.question}`),
          h('p', { class: 'small' }, `No clause addresses it. It would go ${m.placement.note}`),
          h(
            'p',
            { class: 'redline-text' },
            h(
              'ins',
              {},
              h('span', { class: 'visually-hidden' }, '[inserted: '),
              m.language,
              h('span', { class: 'visually-hidden' }, ']'),
            ),
          ),
          escalationLine(escalations.get(m.id) ?? { ...m.escalation, findingId: m.id }),
        ),
      ),
    ),
  );
}

/** The form that accepts, rejects or edits a held redline; edits are the words that differ from the clause. */
export function redlineForm(jobId: string, r: ListedRedline, api: AppApi, done: () => void): HTMLElement {
  const key = slug(r.id);
  const choices = (['accept', 'reject', 'edit'] as const).map((v) =>
    h('input', { type: 'radio', name: `rl-${key}`, id: `rl-${key}-${v}`, value: v, checked: v === 'accept' }),
  );
  const text = h('textarea', { id: `rl-text-${key}`, rows: 5, disabled: true }, r.text);
  const note = h('input', { id: `rl-note-${key}`, type: 'text', maxlength: '2000' });
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'redline-decision', 'data-redline': r.id },
    h(
      'fieldset',
      {},
      h('legend', {}, `Redline of ${r.clause.label ?? r.clause.id} (${r.topic})`),
      ...choices.map((c) => h('span', { class: 'check' }, c, h('label', { for: c.id }, ` ${c.value}`))),
    ),
    h('div', { class: 'field' }, h('label', { for: text.id }, 'The clause as it should read (edit)'), text),
    h('div', { class: 'field' }, h('label', { for: note.id }, 'Note'), note),
    h('button', { type: 'submit' }, `Record decision on ${r.id}`),
    out,
  );
  form.addEventListener('change', () => {
    text.disabled = !choices[2]?.checked;
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const decision = (choices.find((c) => c.checked)?.value ?? 'accept') as 'accept' | 'reject' | 'edit';
    try {
      let edits: RedlineEdit[] | undefined;
      if (decision === 'edit') {
        edits = editsBetween(r.clause.text, text.value);
        const checked = checkRedlineEdits(r.clause.text, edits);
        if (checked.problems)
          throw new Error(`The edit does not fit the clause: ${checked.problems.join('; ')}.`);
      }
      const res = await api.decideRedlines(jobId, {
        redlines: [r.id],
        decision,
        ...(edits ? { edits } : {}),
        ...(note.value.trim() ? { note: note.value.trim() } : {}),
      });
      announce(`Recorded: ${decision} on ${r.id}. ${res.undecided} item(s) left.`);
      done();
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  return form;
}

/**
 * Where a redline's words came from and how it changes the clause, said in words (model-drafted
 * language is never shown as if the playbook wrote it).
 */
function redlineOrigin(r: Pick<ProposedRedline, 'source' | 'shape'>): HTMLElement {
  return h(
    'p',
    { class: `small rl-source rl-${r.source ?? 'playbook'}` },
    r.source === 'model' ? h('strong', {}, `${sourceText(r.source)}.`) : `${sourceText(r.source)}.`,
    ` ${shapeText(r.shape)}.`,
  );
}

/** The playbook's own language for the rung a redline reaches, beside what is proposed. */
function playbookLanguage(r: Pick<ProposedRedline, 'language' | 'target'>): HTMLElement {
  return h(
    'div',
    { class: 'rl-lang' },
    h('p', { class: 'small' }, "The playbook's language for ", rungBadge(r.target), ':'),
    h('blockquote', { class: 'small' }, r.language),
  );
}

/** A held redline: the clause's own text with the proposed language as tracked changes, and its form. */
export function redlineItem(
  jobId: string,
  r: ListedRedline,
  api: AppApi,
  open: boolean,
  done: () => void,
): HTMLElement {
  const d = r.decision;
  const edits = d.status === 'edited' && d.edits ? d.edits : r.edits;
  return h(
    'li',
    { class: 'held-redline', id: `redline-${slug(r.id)}` },
    h(
      'h4',
      {},
      `${r.clause.label ?? r.clause.id} · ${r.topic} · `,
      rungBadge(r.rung),
      ' → ',
      rungBadge(r.target),
    ),
    h('p', { class: 'small' }, r.question),
    h(
      'p',
      { class: 'small muted' },
      'Proposed language, with the deleted text struck through and the inserted text underlined:',
    ),
    redlineOrigin(r),
    redlineDiff(r.clause.text, edits),
    playbookLanguage(r),
    d.status === 'proposed' ? null : redlineDecided(d),
    open && r.mayDecide && d.status === 'proposed' ? redlineForm(jobId, r, api, done) : null,
  );
}

/** The approve or reject form of an escalated finding, for its group's members. */
function escalationForm(jobId: string, e: ListedEscalation, api: AppApi, done: () => void): HTMLElement {
  const key = slug(e.id);
  const choices = (['approve', 'reject'] as const).map((v) =>
    h('input', {
      type: 'radio',
      name: `esc-${key}`,
      id: `esc-${key}-${v}`,
      value: v,
      checked: v === 'approve',
    }),
  );
  const note = h('input', { id: `esc-note-${key}`, type: 'text', maxlength: '2000' });
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'escalation-decision', 'data-finding': e.id },
    h(
      'fieldset',
      {},
      h('legend', {}, `Decision for ${e.escalation.group}`),
      ...choices.map((c) => h('span', { class: 'check' }, c, h('label', { for: c.id }, ` ${c.value}`))),
    ),
    h('div', { class: 'field' }, h('label', { for: note.id }, 'Note'), note),
    h('button', { type: 'submit' }, `Record decision on ${e.id}`),
    out,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const verdict = (choices.find((c) => c.checked)?.value ?? 'approve') as 'approve' | 'reject';
    try {
      const res = await api.decide(jobId, {
        findings: [e.id],
        verdict,
        ...(note.value.trim() ? { note: note.value.trim() } : {}),
      });
      announce(`Recorded: ${verdict} on ${e.id}. ${res.undecided} item(s) left.`);
      done();
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  return form;
}

/** Why the submitter sees no form: an escalation is for someone else to accept the risk. */
const ownJobNote =
  ': you submitted this job, so another member of the group or another administrator decides it';

/** A held escalation: what the clause reaches, who must decide it, and their form. */
export function escalationItem(
  jobId: string,
  e: ListedEscalation,
  api: AppApi,
  open: boolean,
  done: () => void,
  ownJob = false,
): HTMLElement {
  return h(
    'li',
    { class: 'held-escalation', id: `escalation-${slug(e.id)}` },
    h(
      'h4',
      {},
      `${e.clause ? (e.clause.label ?? e.clause.id) : 'The contract'} · ${e.topic} · `,
      e.rung ? rungBadge(e.rung) : rungBadge({ rung: 'missing' }),
    ),
    h('p', { class: 'small' }, e.question),
    ...e.quotes.slice(0, 1).map((q) => h('blockquote', {}, h('mark', {}, q.quote))),
    h('p', {}, e.rationale),
    e.language
      ? h(
          'p',
          { class: 'redline-text' },
          h(
            'ins',
            {},
            h('span', { class: 'visually-hidden' }, '[inserted: '),
            e.language,
            h('span', { class: 'visually-hidden' }, ']'),
          ),
        )
      : null,
    h(
      'p',
      { class: 'escalation' },
      `For the ${e.escalation.group} group to decide`,
      e.mayDecide || e.decision ? '' : ownJob ? ownJobNote : ' (you are not in it)',
    ),
    e.decision
      ? h(
          'p',
          { class: 'decided' },
          `Decided: ${e.decision.verdict} by ${deciderText(e.decision)} `,
          when(e.decision.at),
        )
      : null,
    open && e.mayDecide && !e.decision ? escalationForm(jobId, e, api, done) : null,
  );
}
