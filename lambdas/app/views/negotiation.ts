/**
 * The other side's turn on the job page: each of their changes with who made it, the clause, the
 * verdict in words, the reason and our answer, a counter-proposal as tracked changes of their
 * text; their comments with the reply we propose. Changes arrive as their clauses consolidate
 * (the live findings), and the report's replace them once it is written.
 */
import type { Negotiation, NegotiationChange, ReportClause } from '../../core/report-types.js';
import { theirChangesLine, VERDICT_LABELS } from '../../text/their-changes.js';
import { h } from '../dom.js';
import { redlineDiff, rungBadge } from './playbook.js';

/** One change of theirs and our answer. */
function changeItem(c: NegotiationChange, clauses: ReadonlyMap<string, ReportClause>): HTMLElement {
  const clause = c.counter ? clauses.get(c.counter.clauseId) : undefined;
  return h(
    'li',
    { class: 'change', 'data-change': c.id, 'data-verdict': c.verdict },
    h(
      'p',
      {},
      h('span', { class: `verdict verdict-${c.verdict}` }, VERDICT_LABELS[c.verdict]),
      ` ${c.id} · ${c.kind} by ${c.author} · clause ${c.clauseIds.join(', ') || 'outside the clauses'}`,
    ),
    c.deleted !== undefined ? h('p', { class: 'small' }, 'Deleted: ', h('del', {}, c.deleted)) : null,
    c.inserted !== undefined ? h('p', { class: 'small' }, 'Inserted: ', h('ins', {}, c.inserted)) : null,
    ...(c.shifts ?? []).map((s) =>
      h(
        'p',
        { class: 'small' },
        `${s.topic}: `,
        rungBadge(s.before),
        ' before, ',
        rungBadge(s.after),
        ' now',
      ),
    ),
    h('p', {}, c.answer),
    c.counter && clause
      ? h(
          'div',
          {},
          h('p', { class: 'small' }, 'Our counter-proposal, as tracked changes:'),
          redlineDiff(clause.text, c.counter.edits),
        )
      : null,
  );
}

/** The panel: `add` the changes the live findings hand out, `setReport` the report's negotiation. */
export function negotiationPanel(): {
  element: HTMLElement;
  add(changes: readonly NegotiationChange[]): void;
  setReport(negotiation: Negotiation | undefined, clauses: readonly ReportClause[]): void;
} {
  const line = h('p', { id: 'their-changes-line' });
  const list = h('ol', { class: 'changes' });
  const comments = h('div', {});
  const element = h(
    'section',
    { id: 'negotiation', 'aria-labelledby': 'negotiation-title', hidden: true },
    h('h2', { id: 'negotiation-title' }, 'Their changes'),
    line,
    list,
    comments,
  );
  const shown = new Map<string, NegotiationChange>();
  let clauses = new Map<string, ReportClause>();
  const render = (n?: Negotiation) => {
    const changes = [...shown.values()].sort((a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)));
    const count = (v: NegotiationChange['verdict']) => changes.filter((c) => c.verdict === v).length;
    const summary = n?.summary ?? {
      changes: changes.length,
      accept: count('accept'),
      reject: count('reject'),
      counter: count('counter'),
      notJudged: count('not-judged'),
    };
    line.textContent = `${theirChangesLine(summary)}${n ? '' : ' so far'}`;
    list.replaceChildren(...changes.map((c) => changeItem(c, clauses)));
    element.hidden = changes.length === 0 && (n?.comments.length ?? 0) === 0;
  };
  return {
    element,
    add(changes) {
      for (const c of changes) shown.set(c.id, c);
      render();
    },
    setReport(negotiation, reported) {
      if (!negotiation) return;
      clauses = new Map(reported.map((c) => [c.id, c]));
      shown.clear();
      for (const c of negotiation.changes) shown.set(c.id, c);
      comments.replaceChildren(
        ...(negotiation.comments.length > 0
          ? [
              h('h3', {}, 'Their comments'),
              h(
                'ul',
                {},
                ...negotiation.comments.map((c) =>
                  h(
                    'li',
                    { 'data-comment': c.id },
                    h('blockquote', {}, `${c.author}: ${c.text}`),
                    h('p', {}, `Proposed reply: ${c.reply}`),
                  ),
                ),
              ),
            ]
          : []),
      );
      render(negotiation);
    },
  };
}
