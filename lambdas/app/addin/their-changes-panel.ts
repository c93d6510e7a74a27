/**
 * The pane's list of the other side's changes in the open document: each with who made it, the
 * clause, the verdict in words, our answer, and, where Word lets an add-in decide tracked changes
 * (WordApi 1.6), Accept theirs and Reject theirs, which accept or reject that change's tracked
 * pieces in the document. Elsewhere the list says to decide them in Word's Review tab.
 */
import type { NegotiationChange } from '../../core/report-types.js';
import { theirChangesLine, VERDICT_LABELS } from '../../text/their-changes.js';
import { announce, errorBox, h } from '../dom.js';
import type { PaneContext } from './pane-context.js';
import type { ChangeDecision } from './their-changes.js';

/** One change, with the buttons that decide it in the document. */
function changeItem(ctx: PaneContext, c: NegotiationChange, canDecide: boolean): HTMLElement {
  const out = h('p', { class: 'small', 'aria-live': 'polite' });
  const act = (decision: ChangeDecision, label: string) => {
    const b = h('button', { type: 'button', 'data-decide': decision }, label);
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        const o = await ctx.host.changes.decide(c, decision);
        out.dataset.outcome = o.done ? decision : 'refused';
        out.textContent = o.done
          ? `${decision === 'accept' ? 'Accepted' : 'Rejected'} in the document (${o.pieces} tracked change(s)).`
          : `Not ${decision}ed: ${o.why}`;
        announce(out.textContent);
      } catch (error) {
        out.replaceChildren(errorBox(error));
      } finally {
        b.disabled = false;
      }
    });
    return b;
  };
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
    h('p', {}, c.answer),
    canDecide && c.source === 'tracked'
      ? h('div', { class: 'actions' }, act('accept', 'Accept theirs'), act('reject', 'Reject theirs'))
      : null,
    out,
  );
}

/** The panel: `add` lists the changes the live findings hand out, each once. */
export function theirChangesPanel(ctx: PaneContext): {
  element: HTMLElement;
  add(changes: readonly NegotiationChange[]): void;
} {
  const support = ctx.host.changes.support();
  const note = h(
    'p',
    { id: 'decide-support', class: 'warning', hidden: support.ok },
    support.ok ? '' : support.why,
  );
  const line = h('p', { id: 'their-changes-line' });
  const list = h('ul', { class: 'changes', id: 'their-changes' });
  const element = h('div', { hidden: true }, h('h2', {}, 'Their changes'), line, note, list);
  const shown = new Map<string, NegotiationChange>();
  return {
    element,
    add(changes) {
      const fresh = changes.filter((c) => !shown.has(c.id));
      for (const c of fresh) shown.set(c.id, c);
      const all = [...shown.values()];
      const count = (v: NegotiationChange['verdict']) => all.filter((c) => c.verdict === v).length;
      line.textContent = `${theirChangesLine({ changes: all.length, accept: count('accept'), reject: count('reject'), counter: count('counter'), notJudged: count('not-judged') })} so far`;
      list.append(...fresh.map((c) => changeItem(ctx, c, support.ok)));
      element.hidden = all.length === 0;
      if (fresh.length > 0) announce(`${fresh.length} change(s) of theirs judged.`);
    },
  };
}
