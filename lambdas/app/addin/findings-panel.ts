/**
 * The task pane's list of a job's findings as its chunks consolidate: each clause at or above the
 * chosen risk, where its Word comment went, and its proposed redlines, each to apply in Word as
 * tracked changes or to accept or reject in the job's trail.
 */
import type { ReportClause, Risk } from '../../core/report-types.js';
import { shapeText, sourceText } from '../../text/review-terms.js';
import { riskOf } from '../clauses.js';
import { announce, errorBox, h } from '../dom.js';
import { commentText } from './finding-comments.js';
import type { PaneContext } from './pane-context.js';
import { type PaneRedline, recordRedlineDecision, redlinesOf } from './redlines.js';
import type { CommentOutcome } from './word-document.js';

/** What a placement outcome means, in a line under the clause. */
function placementText(o: CommentOutcome): string {
  switch (o.outcome) {
    case 'added':
      return 'Comment added in the document.';
    case 'present':
      return 'Commented in the document already.';
    case 'refused':
      return 'Listed here only.';
    default: {
      const why = o.detail ?? o.outcome;
      return `Not placed in the document: ${why}${/[.?!]$/.test(why) ? '' : '.'}`;
    }
  }
}

/** A redline of a clause, with buttons to apply it in Word and to record a decision. */
function redlineItem(ctx: PaneContext, jobId: string, clause: ReportClause, r: PaneRedline): HTMLElement {
  const out = h('div', { 'aria-live': 'polite' });
  const act = (label: string, run: () => Promise<string>) => {
    const b = h('button', { type: 'button' }, label);
    b.addEventListener('click', async () => {
      b.disabled = true;
      try {
        out.replaceChildren(h('p', {}, await run()));
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
    { class: 'redline', 'data-redline': r.id },
    h('p', {}, `Proposed: ${r.edits.map((e) => (e.insert ? `“${e.insert}”` : 'a deletion')).join(', ')}`),
    h(
      'p',
      { class: `small rl-${r.source ?? 'playbook'}` },
      `${sourceText(r.source)}. ${shapeText(r.shape)}.`,
    ),
    r.source === 'model' && r.language
      ? h('p', { class: 'small' }, `The playbook's language: “${r.language}”`)
      : null,
    h(
      'div',
      { class: 'actions' },
      act('Apply in Word', async () => {
        const done = await ctx.host.word.applyRedline(clause.text, r);
        return done.applied ? `Applied as ${done.edits} tracked change(s).` : `Not applied: ${done.why}.`;
      }),
      act('Accept', async () => recordRedlineDecision(ctx.api, jobId, r.id, 'accepted')),
      act('Reject', async () => recordRedlineDecision(ctx.api, jobId, r.id, 'rejected')),
    ),
    out,
  );
}

/** One listed clause: its risk, label and categories, where its comment went, its redlines. */
function clauseItem(
  ctx: PaneContext,
  jobId: string,
  clause: ReportClause,
): { element: HTMLElement; placed: HTMLElement } {
  const risk = riskOf(clause);
  const placed = h('p', { class: 'placement small', 'data-placement': 'pending' }, 'Placing the comment…');
  const categories = [...new Set(clause.findings.map((f) => f.category.replace(/-/g, ' ')))];
  const redlines = redlinesOf(clause);
  const element = h(
    'li',
    { class: `clause risk-${risk}`, id: `finding-${clause.id}`, 'data-risk': risk },
    h(
      'h3',
      {},
      h('span', { class: `badge risk-${risk}` }, risk),
      ` ${clause.label ?? clause.id}${clause.heading ? ` · ${clause.heading}` : ''}`,
    ),
    h('p', { class: 'small' }, categories.join(', ')),
    placed,
    redlines.length > 0
      ? h(
          'ul',
          { class: 'redlines', 'aria-label': 'Proposed redlines' },
          ...redlines.map((r) => redlineItem(ctx, jobId, clause, r)),
        )
      : null,
  );
  return { element, placed };
}

/** The listed clauses of a job: `add` lists clauses and comments on them in the document. */
export function findingsPanel(ctx: PaneContext, jobId: string, threshold: Risk) {
  const support = ctx.host.word.support();
  const note = h(
    'p',
    { id: 'comment-support', class: 'warning', hidden: support.ok },
    support.ok ? '' : support.why,
  );
  const list = h('ul', { class: 'findings', id: 'findings' });
  const count = h('p', { id: 'finding-count', 'data-shown': '0' }, 'No finding yet.');
  let shown = 0;
  const listed: ReportClause[] = [];
  const add = async (clauses: readonly ReportClause[]) => {
    listed.push(...clauses);
    if (listed.some((c) => redlinesOf(c).length > 0)) all.hidden = false;
    const items = clauses.map((c) => ({ clause: c, ...clauseItem(ctx, jobId, c) }));
    list.append(...items.map((i) => i.element));
    shown += items.length;
    count.dataset.shown = String(shown);
    count.textContent = `${shown} clause(s) so far.`;
    announce(`${items.length} new finding(s) at ${threshold} risk or above.`);
    const outcomes = await ctx.host.word.comment(
      jobId,
      clauses.map((c) => ({ clauseId: c.id, text: c.text, comment: commentText(jobId, c) })),
    );
    for (const o of outcomes) {
      const item = items.find((i) => i.clause.id === o.clauseId);
      if (!item) continue;
      item.placed.dataset.placement = o.outcome;
      item.placed.textContent = placementText(o);
    }
    const now = ctx.host.word.support();
    if (!now.ok) {
      note.hidden = false;
      note.textContent = now.why;
    }
  };
  // Every listed redline at once, each whole or not at all.
  const all = h('button', { type: 'button', id: 'apply-all', hidden: true }, 'Apply every redline in Word');
  const allOut = h('div', { 'aria-live': 'polite' });
  all.addEventListener('click', async () => {
    all.disabled = true;
    try {
      const outcomes = await ctx.host.word.applyRedlines(
        listed.flatMap((clause) =>
          redlinesOf(clause).map((redline) => ({ clauseText: clause.text, redline })),
        ),
      );
      const applied = outcomes.filter((o) => o.applied).length;
      allOut.replaceChildren(
        h('p', {}, `${applied} of ${outcomes.length} redline(s) applied as tracked changes.`),
      );
    } catch (error) {
      allOut.replaceChildren(errorBox(error));
    } finally {
      all.disabled = false;
    }
  });
  const element = h(
    'div',
    {},
    note,
    h('h2', {}, `Findings at ${threshold} risk or above`),
    count,
    h('p', {}, all),
    allOut,
    list,
  );
  return { element, add };
}
