/** The contract as text: each clause marked by its risk, quotes highlighted, and filters. */
import type { PlaybookReview, ReportClause, Risk } from '../../core/report-types.js';
import { deciderText } from '../../text/decider.js';
import { type ClauseFilter, facets, matches, RISKS, riskOf, segments } from '../clauses.js';
import { h } from '../dom.js';
import { clausePositions, missingClauses } from './playbook.js';

const human = (id: string) => id.replace(/[-_]/g, ' ');

function clauseElement(clause: ReportClause, review: PlaybookReview | undefined): HTMLElement {
  const risk = riskOf(clause);
  const categories = [...new Set(clause.findings.map((f) => f.category))];
  const titleId = `clause-${clause.id}-title`;
  const text = h(
    'p',
    { class: 'clause-text' },
    ...segments(clause).map((s) =>
      s.categories.length === 0 ? s.text : h('mark', { title: s.categories.map(human).join(', ') }, s.text),
    ),
  );
  const findings = clause.findings.map((f) =>
    h(
      'li',
      {},
      h('strong', {}, `${human(f.category)} (score ${f.score ?? '–'})`),
      f.review ? ` · ${f.review.decision} by ${f.review.by ? deciderText(f.review) : 'the deadline'}` : '',
      h('div', {}, f.rationale),
      h('div', { class: 'muted small' }, `Analysts: ${f.analysts.join(', ')}`),
    ),
  );
  return h(
    'article',
    {
      class: `clause risk-${risk}`,
      id: `clause-${clause.id}`,
      'data-risk': risk,
      'aria-labelledby': titleId,
    },
    h(
      'h3',
      { id: titleId },
      h('span', { class: `badge risk-${risk}` }, risk),
      ` ${clause.label ?? clause.id}${clause.heading ? ` · ${clause.heading}` : ''}`,
      categories.length > 0
        ? h('span', { class: 'muted small' }, ` — ${categories.map(human).join(', ')}`)
        : null,
      clause.model && clause.model.risk !== clause.risk
        ? h('span', { class: 'small' }, ` (as decided; the panel said ${clause.model.risk ?? 'none'})`)
        : null,
    ),
    text,
    clausePositions(clause, review),
    findings.length > 0
      ? h('details', {}, h('summary', {}, `${findings.length} finding(s)`), h('ul', {}, ...findings))
      : null,
  );
}

/** The filter controls; `onChange` runs with the filter they describe. */
function filterControls(onChange: (f: ClauseFilter) => void) {
  const riskBoxes = RISKS.map((r) => h('input', { type: 'checkbox', id: `f-risk-${r}`, value: r }));
  const category = h('select', { id: 'f-category' }, h('option', { value: '' }, 'any'));
  const analyst = h('select', { id: 'f-analyst' }, h('option', { value: '' }, 'any'));
  const read = (): ClauseFilter => ({
    risks: new Set(riskBoxes.filter((b) => b.checked).map((b) => b.value as Risk)),
    ...(category.value ? { category: category.value } : {}),
    ...(analyst.value ? { analyst: analyst.value } : {}),
  });
  const element = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter clauses' },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Risk'),
      ...RISKS.map((r, i) =>
        h('span', { class: 'check' }, riskBoxes[i] ?? null, h('label', { for: `f-risk-${r}` }, ` ${r}`)),
      ),
    ),
    h('div', { class: 'field' }, h('label', { for: 'f-category' }, 'Category'), category),
    h('div', { class: 'field' }, h('label', { for: 'f-analyst' }, 'Analyst'), analyst),
  );
  element.addEventListener('change', () => onChange(read()));
  const setOptions = (select: HTMLSelectElement, values: readonly string[]) => {
    const have = new Set([...select.options].map((o) => o.value));
    for (const v of values) if (!have.has(v)) select.append(h('option', { value: v }, human(v)));
  };
  return {
    element,
    read,
    update(clauses: readonly ReportClause[]) {
      const f = facets(clauses);
      setOptions(category, f.categories);
      setOptions(analyst, f.analysts);
    },
  };
}

/** The contract's clauses, re-rendered as clauses arrive or filters change. */
export function contractPanel() {
  const held: ReportClause[] = [];
  const list = h('div', { class: 'clauses', id: 'clauses' });
  const count = h(
    'p',
    { id: 'clause-count', 'aria-live': 'polite', 'data-shown': '0' },
    'No clause has been read yet.',
  );
  const rendered = new Map<string, HTMLElement>();
  const top = h('div', { id: 'playbook-top' });
  let review: PlaybookReview | undefined;
  const render = () => {
    const filter = controls.read();
    const shown = held.filter((c) => matches(c, filter));
    list.replaceChildren(
      ...shown.map((c) => {
        const el = rendered.get(c.id) ?? clauseElement(c, review);
        rendered.set(c.id, el);
        return el;
      }),
    );
    count.dataset.shown = String(shown.length);
    count.dataset.received = String(held.length);
    count.textContent = `${shown.length} clause(s) shown of ${held.length} read so far.`;
  };
  const controls = filterControls(render);
  const element = h(
    'section',
    { 'aria-labelledby': 'contract-title' },
    h('h2', { id: 'contract-title' }, 'Contract'),
    top,
    controls.element,
    count,
    list,
  );
  return {
    element,
    held,
    /** The review against the job's playbook, from report.json: the required clauses missing go on top. */
    setPlaybook(r: PlaybookReview | undefined) {
      review = r;
      top.replaceChildren(...(r ? [missingClauses(r)].filter((e): e is HTMLElement => e !== null) : []));
      rendered.clear();
      render();
    },
    /** Replaces clauses that changed (a decided review) and adds new ones. */
    add(clauses: readonly ReportClause[], replace = false) {
      for (const c of clauses) {
        const at = held.findIndex((x) => x.id === c.id);
        if (at >= 0 && !replace) continue;
        if (at >= 0) held[at] = c;
        else held.push(c);
        rendered.delete(c.id);
      }
      held.sort((a, b) => a.index - b.index);
      controls.update(held);
      render();
    },
  };
}
