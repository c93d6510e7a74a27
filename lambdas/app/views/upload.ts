/**
 * Upload a contract: lane, ceiling, gate, playbook and analysts, a quote before anything is
 * spent, then the review. The quote is POST /quote: the document goes with the options, the API reads and
 * prices it as intake will, and no job is recorded.
 */
import type { FormatExtension } from '../../core/documents/formats.js';
import { money } from '../../text/money.js';
import { base64Of, type SubmitRequest } from '../api.js';
import { announce, errorBox, h } from '../dom.js';
import { submitAndWait } from '../submit.js';
import type { View, ViewContext } from './context.js';
import {
  ceilingInput,
  field,
  fillParties,
  gateSelect,
  playbookFields,
  quoteLines,
  tooLargeToQuote,
} from './review-options.js';
import { type RoundFields, roundFields } from './round-options.js';

/**
 * The extensions the file picker offers: every one intake reads. Keyed by the format registry's
 * extensions (a type only: the app bundles no reader), so the compiler names this list when a
 * format is added or an extension dropped.
 */
const PICKABLE: Readonly<Record<FormatExtension, true>> = {
  txt: true,
  text: true,
  md: true,
  markdown: true,
  html: true,
  htm: true,
  docx: true,
  pdf: true,
};

interface UploadForm {
  readonly form: HTMLFormElement;
  readonly file: HTMLInputElement;
  readonly lane: HTMLSelectElement;
  readonly ceiling: HTMLInputElement;
  readonly gate: HTMLSelectElement;
  readonly playbook: HTMLSelectElement;
  readonly party: HTMLSelectElement;
  readonly partial: HTMLInputElement;
  readonly fullPanel: HTMLInputElement;
  readonly analysts: HTMLInputElement[];
  readonly round: RoundFields;
}

function buildForm(ctx: ViewContext): UploadForm {
  const file = h('input', {
    id: 'up-file',
    name: 'file',
    type: 'file',
    required: true,
    accept: Object.keys(PICKABLE)
      .map((extension) => `.${extension}`)
      .join(','),
  });
  const lane = h(
    'select',
    { id: 'up-lane', name: 'lane' },
    h('option', { value: 'realtime' }, 'realtime (Lambda workers, start at once)'),
    h('option', { value: 'batch' }, 'batch (Fargate workers, for long or many contracts)'),
  );
  const ceiling = ceilingInput('up-ceiling');
  const gate = gateSelect('up-gate');
  const { playbook, party, elements } = playbookFields(ctx.api, 'up');
  const partial = h('input', { id: 'up-partial', name: 'partial', type: 'checkbox' });
  const fullPanel = h('input', { id: 'up-full-panel', name: 'full-panel', type: 'checkbox' });
  const round = roundFields(ctx.api, 'up');
  file.addEventListener('change', () => void round.refresh(file.files?.[0]?.name).catch(() => undefined));
  void round.refresh(undefined).catch(() => undefined);
  const analysts = ctx.config.analysts.map((a) =>
    h('input', { type: 'checkbox', name: 'analyst', value: a.id, id: `up-analyst-${a.id}`, checked: true }),
  );
  const form = h(
    'form',
    { class: 'upload', novalidate: true },
    field('Contract file', 'up-file', file),
    round.element,
    field('Lane', 'up-lane', lane),
    field('Cost ceiling (US dollars)', 'up-ceiling', ceiling, 'The job never spends more than this.'),
    field(
      'Review gate',
      'up-gate',
      gate,
      'Findings at this risk wait for your decision before the report is final.',
    ),
    ...elements,
    h(
      'div',
      { class: 'field' },
      partial,
      h('label', { for: 'up-partial' }, ' Review as much as the ceiling allows when it is below the quote'),
    ),
    h(
      'div',
      { class: 'field' },
      fullPanel,
      h(
        'label',
        { for: 'up-full-panel' },
        ' Ask every analyst about every clause (unticked, each clause goes only to the analysts whose categories it can concern: the same findings for less)',
      ),
    ),
    h(
      'fieldset',
      { class: 'analysts' },
      h('legend', {}, 'Analysts'),
      ...ctx.config.analysts.map((a, i) =>
        h(
          'div',
          { class: 'check' },
          analysts[i] ?? null,
          h('label', { for: `up-analyst-${a.id}` }, ` ${a.name}`),
        ),
      ),
    ),
  );
  return { form, file, lane, ceiling, gate, playbook, party, partial, fullPanel, analysts, round };
}

/** The request the form describes. @throws Error naming the field at fault */
function requestOf(f: UploadForm, file: File): SubmitRequest {
  const ceiling = Number(f.ceiling.value);
  if (!(Number.isFinite(ceiling) && ceiling > 0))
    throw new Error('Cost ceiling: enter a number of dollars above 0.');
  const analysts = f.analysts.filter((a) => a.checked).map((a) => a.value);
  if (analysts.length === 0) throw new Error('Analysts: choose at least one.');
  return {
    filename: file.name,
    lane: f.lane.value === 'batch' ? 'batch' : 'realtime',
    ceilingUsd: ceiling,
    analysts,
    ...(f.gate.value === 'high' || f.gate.value === 'critical' ? { gate: f.gate.value } : {}),
    ...(f.playbook.value ? { playbook: f.playbook.value } : {}),
    ...(f.playbook.value && f.party.value ? { party: f.party.value } : {}),
    ...(f.partial.checked ? { allowPartial: true } : {}),
    ...(f.fullPanel.checked ? { fullPanel: true } : {}),
  };
}

/** The upload form with its quote and start buttons. */
export function uploadView(ctx: ViewContext): View {
  const f = buildForm(ctx);
  const quoteOut = h('div', { id: 'quote', 'aria-live': 'polite' });
  const quoteButton = h('button', { type: 'button', id: 'get-quote' }, 'Get a quote');
  const startButton = h('button', { type: 'submit', id: 'start-review', disabled: true }, 'Start the review');
  f.form.append(h('div', { class: 'actions' }, quoteButton, startButton), quoteOut);
  const chosen = (): File => {
    const file = f.file.files?.[0];
    if (!file) throw new Error('Contract file: choose the document to review.');
    return file;
  };
  const busy = (on: boolean) => {
    quoteButton.disabled = on;
    startButton.disabled = on || !quoteOut.dataset.expected;
  };
  f.form.addEventListener('input', () => {
    delete quoteOut.dataset.expected;
    startButton.disabled = true;
  });
  quoteButton.addEventListener('click', async () => {
    busy(true);
    quoteOut.replaceChildren(h('p', {}, 'Reading the document and pricing every call…'));
    try {
      const file = chosen();
      const view = await ctx.api.quote({
        ...requestOf(f, file),
        document: base64Of(await file.arrayBuffer()),
      });
      quoteOut.dataset.expected = String(view.quote.expectedUsd);
      fillParties(f.party, view.parties);
      quoteOut.replaceChildren(...quoteLines(view));
      announce(`Quote ready: ${money(view.quote.expectedMicros)} expected.`);
    } catch (error) {
      quoteOut.replaceChildren(errorBox(error));
      if (tooLargeToQuote(error)) {
        // Intake still quotes it when it arrives, and refuses a ceiling below the quote.
        quoteOut.dataset.expected = 'at intake';
        quoteOut.append(
          h(
            'p',
            {},
            'You can still start the review: the ceiling is checked against the quote before any call.',
          ),
        );
      }
    } finally {
      busy(false);
    }
  });
  f.form.addEventListener('submit', async (event) => {
    event.preventDefault();
    busy(true);
    try {
      const file = chosen();
      const round = f.round.chosen();
      const request = { ...requestOf(f, file), ...round.request };
      const version = round.version ? await round.version.arrayBuffer() : undefined;
      const view = await submitAndWait(ctx.api, await file.arrayBuffer(), request, version);
      ctx.submitted.unshift(view.jobId);
      ctx.go(`#/jobs/${view.jobId}`);
    } catch (error) {
      quoteOut.replaceChildren(errorBox(error));
      busy(false);
    }
  });
  const element = h(
    'section',
    { 'aria-labelledby': 'upload-title' },
    h('h1', { id: 'upload-title', tabindex: '-1' }, 'Review a new contract'),
    h(
      'p',
      {},
      'Get a quote first: the document is read and every model call priced, and nothing is spent until you start the review.',
    ),
    f.form,
  );
  return { element, stop() {} };
}
