/**
 * The options of a review that the upload form and the Word add-in's pane both offer: the cost
 * ceiling, the review gate and the playbook, each a labelled field, and the quote as it is shown
 * before anything is spent.
 */

import { DEFAULT_CEILING_MICROS, dollars, money } from '../../text/money.js';
import { type AppApi, isAppApiError, type QuoteView } from '../api.js';
import { h } from '../dom.js';

/** A labelled field, with a hint the control is described by. */
export function field(label: string, id: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
  );
}

/** The cost ceiling in dollars; `id-hint` describes it. */
export function ceilingInput(id: string): HTMLInputElement {
  return h('input', {
    id,
    name: 'ceiling',
    type: 'number',
    min: '0.01',
    step: '0.01',
    // The ceiling the server gives a job that names none.
    value: String(DEFAULT_CEILING_MICROS / 1_000_000),
    required: true,
    'aria-describedby': `${id}-hint`,
  });
}

/** The review gate: none, high and critical, or critical only. */
export function gateSelect(id: string): HTMLSelectElement {
  return h(
    'select',
    { id, name: 'gate', 'aria-describedby': `${id}-hint` },
    h('option', { value: 'none' }, 'none'),
    h('option', { value: 'high' }, 'high and critical'),
    h('option', { value: 'critical' }, 'critical only'),
  );
}

/**
 * The playbook select: none (the risk categories alone), then the stack's playbooks as they
 * arrive, each pinned to the version listed (`NAME@VERSION`) so the job is reviewed against what
 * was chosen. `data-loaded` says how many arrived, or `failed`.
 */
export function playbookSelect(api: AppApi, id: string): HTMLSelectElement {
  const select = h(
    'select',
    { id, name: 'playbook', 'aria-describedby': `${id}-hint` },
    h('option', { value: '' }, 'none: the twelve risk categories'),
  );
  api.playbooks().then(
    ({ playbooks }) => {
      for (const p of playbooks) {
        select.append(
          h('option', { value: `${p.name}@${p.version}` }, `${p.title} (${p.name}@${p.version})`),
        );
      }
      select.dataset.loaded = String(playbooks.length);
    },
    (error: unknown) => {
      select.dataset.loaded = 'failed';
      select.append(
        h(
          'option',
          { value: '', disabled: true },
          `playbooks could not be listed: ${(error as Error).message}`,
        ),
      );
    },
  );
  return select;
}

/**
 * Whose side the review takes: empty (the playbook's side, matched to the contract's parties)
 * until a quote reads the parties, then each party the contract names, the inferred one chosen.
 */
export function partySelect(id: string): HTMLSelectElement {
  return h(
    'select',
    { id, name: 'party', 'aria-describedby': `${id}-hint` },
    h('option', { value: '' }, "the playbook's side, matched to the contract's parties"),
  );
}

/**
 * The playbook to review against and the party the review is for, each a labelled field, as the
 * upload form and the add-in's pane both offer them (`<prefix>-playbook`, `<prefix>-party`).
 */
export function playbookFields(api: AppApi, prefix: string) {
  const playbook = playbookSelect(api, `${prefix}-playbook`);
  const party = partySelect(`${prefix}-party`);
  const elements = [
    field(
      'Playbook',
      `${prefix}-playbook`,
      playbook,
      "Review against your team's positions, or the risk categories alone.",
    ),
    field(
      'Reviewed for',
      `${prefix}-party`,
      party,
      'With a playbook, the party whose side the review takes; a quote lists the parties the contract names.',
    ),
  ];
  return { playbook, party, elements };
}

/**
 * Fills a party select with the parties a quote read, keeping the choice made. The first option
 * stays the playbook's side, labelled with the party it was matched to, so that an untouched
 * choice is sent as no `party` and the report says the side was inferred.
 */
export function fillParties(select: HTMLSelectElement, parties: QuoteView['parties']): void {
  const chosen = select.value;
  const inferred = parties.source === 'inferred' ? parties.us : undefined;
  select.replaceChildren(
    h(
      'option',
      { value: '' },
      inferred
        ? `the playbook's side: ${inferred.term} (${inferred.name})`
        : "the playbook's side, matched to the contract's parties",
    ),
  );
  for (const p of parties.found) {
    const value = p.defined ?? p.name;
    select.append(h('option', { value }, p.defined ? `${p.defined} (${p.name})` : p.name));
  }
  select.value = [...select.options].some((o) => o.value === chosen) ? chosen : '';
}

/** The quote's line on the parties: whose side the review takes, or why it cannot tell. */
function partiesLine(parties: QuoteView['parties'] | undefined): HTMLElement[] {
  if (!parties) return [];
  if (parties.us) {
    const how = parties.source === 'inferred' ? `, inferred: ${parties.how}` : '';
    return [
      h('p', { class: 'quote-parties' }, `Reviewed for: ${parties.us.term} (${parties.us.name})${how}.`),
    ];
  }
  if (parties.problem) {
    return [h('p', { class: 'warning quote-parties' }, `Whose side: ${parties.problem}.`)];
  }
  return [];
}

/** The quote as shown before a review starts, with a warning when the ceiling is below it. */
export function quoteLines(
  view: Pick<QuoteView, 'quote' | 'wouldStart' | 'options'> & Partial<Pick<QuoteView, 'parties'>>,
): HTMLElement[] {
  const { quote, wouldStart, options } = view;
  return [
    ...partiesLine(view.parties),
    h(
      'p',
      { class: 'quote' },
      h('strong', {}, `Quote: ${money(quote.expectedMicros)} expected`),
      `, ${money(quote.worstCaseMicros)} at worst. Nothing has been spent.`,
    ),
    ...(quote.screened
      ? [
          h(
            'p',
            { class: 'quote-screened' },
            `The relevance screen leaves out ${quote.screened.calls} calls, ${money(quote.screened.expectedMicros)} expected.`,
          ),
        ]
      : []),
    ...(quote.computeUsd
      ? [
          h(
            'p',
            { class: 'quote-compute' },
            `Compute besides: ${dollars(quote.computeUsd.realtime)} on Lambda workers (realtime lane), ` +
              `${dollars(quote.computeUsd.batch)} on Fargate workers (batch lane); the model calls cost the same on either.`,
          ),
        ]
      : []),
    ...(!wouldStart
      ? [
          h(
            'p',
            { class: 'warning' },
            `The ceiling ${dollars(options.ceilingUsd)} is below the quote: raise it, or tick "review as much as the ceiling allows".`,
          ),
        ]
      : []),
  ];
}

/** True when POST /quote refused the file for its size alone: intake reads larger files. */
export function tooLargeToQuote(error: unknown): boolean {
  return (
    isAppApiError(error) &&
    error.status === 422 &&
    (error.context.body as { reason?: string })?.reason === 'too-large'
  );
}
