/**
 * The cost quote of a job, computed at intake before any money is spent: what the planned
 * calls are expected to cost, and what they cost at worst.
 *
 * Tokens are estimated at four characters each, as Bedrock's own count of English text comes
 * out and as the stand-in counts exactly. Output is calibrated on the stand-in: about 80 tokens
 * per call plus 50 per category the analyst scores (the README sample averages 179 per call),
 * and 40 per playbook position it judges (most are not addressed: a rung and a short reason).
 *
 * - expected: every call's cacheable prefix read from the prompt cache (one cache write per
 *   analyst and model), the rest of its input at the input price, and the calibrated output.
 * - worst case: no cache hit at all (every prefix written again), every answer as long as its
 *   `maxTokens`, on the primary model. Retries and the fallback model can cost more; the
 *   ceiling still holds them.
 *
 * With a playbook the calls are those of the panel it leaves (each analyst's request carries its
 * positions), and the quote says what the analysts it leaves out would have cost (`notAsked`).
 * Unless the job asks the full panel (`fullPanel`; by default it does not), the relevance screen
 * (core/screen) then leaves out each analyst none of whose categories a clause can concern; the
 * quote prices only the calls that will be asked, and says what the pairs screened would have
 * cost (`screened`).
 */

import {
  type AnalystDefinition,
  buildConverseInput,
  inputChars,
  selectAnalysts,
  withModels,
} from '../analysts/index.js';
import type { ContractNames } from '../analysts/positions.js';
import type { Clause } from '../clause.js';
import { type DocumentContext, findDocumentContext } from '../documents/document-context.js';
import { costOf, tokensOf } from '../model-catalogue.js';
import { type ChangeRecord, contractClauses, pairedScreen, quotedClauses } from '../negotiation/index.js';
import {
  type ContractType,
  contractTypeFor,
  type NotAskedAnalyst,
  type Playbook,
  playbookPanel,
} from '../playbooks/index.js';
import { type DocumentScreen, isScreened, shippedScreen } from '../screen/index.js';
import type { CostQuote } from '../state/job.js';
import type { JobOptions } from './job-options.js';
import { laneComputeCost } from './lane-cost.js';

/**
 * Characters of an answer as calibrated on the stand-in's answers to the development set: the
 * compact answer of a clause that addresses nothing (about 96 characters, the tool call's own
 * wrapper included), a share per category for the few that are scored, and per position judged.
 * The model's tokenizer turns them into tokens.
 */
export const OUTPUT_CHARS = { perCall: 96, perCategory: 12, perPosition: 160 } as const;

/** What one model is expected to take for a job: calls and tokens, as the quote counts them. */
export interface ModelLoad {
  readonly calls: number;
  /** Input tokens not read from the cache. */
  readonly inputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheWriteInputTokens: number;
  /** Output tokens as calibrated ({@link OUTPUT_CHARS}). */
  readonly outputTokens: number;
}

/** A job's quote and, per model id, the load its expected calls put on the model. */
export interface JobEstimate {
  readonly quote: CostQuote;
  readonly loads: Readonly<Record<string, ModelLoad>>;
}

type MutableLoad = { -readonly [K in keyof ModelLoad]: ModelLoad[K] };

/** The quote of `clauses` × `analysts`, with the prompt each call will send. */
export function quoteJob(
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  context: DocumentContext | undefined,
): CostQuote {
  return estimateJob(clauses, analysts, context).quote;
}

/** Which pairs of clause and analyst a walk over the requests counts. */
type PairFilter = (clauseId: string, analystId: string) => boolean;

/**
 * The quote and the expected load per model of `clauses` × `analysts` (the pairs `asks`
 * keeps, all by default): one walk over the requests the calls will send, so the capacity plan
 * and the quote never disagree.
 */
export function estimateJob(
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  context: DocumentContext | undefined,
  asks: PairFilter = () => true,
): JobEstimate {
  let expected = 0;
  let worst = 0;
  const loads: Record<string, MutableLoad> = {};
  for (const analyst of analysts) {
    const modelId = analyst.modelId;
    const load: MutableLoad = loads[modelId] ?? {
      calls: 0,
      inputTokens: 0,
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: 0,
      outputTokens: 0,
    };
    loads[modelId] = load;
    const output = tokensOf(
      modelId,
      OUTPUT_CHARS.perCall +
        OUTPUT_CHARS.perCategory * analyst.categories.length +
        OUTPUT_CHARS.perPosition * (analyst.playbook?.positions.length ?? 0),
    );
    let prefixTokens: number | undefined;
    for (const clause of clauses) {
      if (!asks(clause.id, analyst.id)) continue;
      const input = buildConverseInput(analyst, clause, { modelId, ...(context ? { context } : {}) });
      const all = tokensOf(modelId, inputChars(input, false));
      const cached = input.messages?.[0]?.content?.some((b) => b.cachePoint) ?? false;
      const prefix = cached ? tokensOf(modelId, inputChars(input, true)) : 0;
      prefixTokens ??= prefix;
      expected += costOf(modelId, {
        inputTokens: all - prefix,
        cacheReadInputTokens: prefix,
        outputTokens: output,
      });
      worst += costOf(modelId, {
        inputTokens: all - prefix,
        cacheWriteInputTokens: prefix,
        outputTokens: analyst.maxTokens,
      });
      load.calls++;
      load.inputTokens += all - prefix;
      load.cacheReadInputTokens += prefix;
      load.outputTokens += output;
    }
    // The first call of each analyst writes the prefix instead of reading it.
    if (prefixTokens) {
      expected +=
        costOf(modelId, { inputTokens: 0, outputTokens: 0, cacheWriteInputTokens: prefixTokens }) -
        costOf(modelId, { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: prefixTokens });
      load.cacheReadInputTokens -= prefixTokens;
      load.cacheWriteInputTokens += prefixTokens;
    }
  }
  return { quote: { expectedMicros: expected, worstCaseMicros: worst }, loads };
}

/** A read document's context (which rides in every call), its quote and the load per model. */
export interface DocumentQuote extends JobEstimate {
  readonly context: DocumentContext | undefined;
  /** With a playbook: the analysts it asks and leaves out, and the contract type it took. */
  readonly panel?: {
    readonly analysts: readonly string[];
    readonly notAsked: readonly NotAskedAnalyst[];
    readonly contractType?: ContractType;
  };
  /** The relevance screen's pairs not asked, per clause (absent with the full panel). */
  readonly screen?: DocumentScreen;
}

/** The playbook a quote prices a review against, and the file name a contract type may be read from. */
export interface QuotedPlaybook {
  readonly playbook: Playbook;
  readonly fileName?: string;
  /** The contract's names for the two sides, which the analysts' requests carry. */
  readonly names?: ContractNames | undefined;
}

/**
 * Whether intake starts a job quoted `quote` under `options`: its ceiling covers the expected
 * cost, or the submitter allowed a partial review (else intake refuses it as `budget-below-quote`).
 */
export function ceilingCovers(
  quote: Pick<CostQuote, 'expectedMicros'>,
  options: Pick<JobOptions, 'ceilingMicros' | 'allowPartial'>,
): boolean {
  return quote.expectedMicros <= options.ceilingMicros || options.allowPartial;
}

/**
 * The quote of a read document for a job's analysts and models: what intake records on the job
 * (and refuses a ceiling below), what POST /quote answers without a job, and what
 * `clause-review plan` sums, from one computation.
 *
 * @example
 * const { quote } = quoteDocument(await parseDocumentBounded(bytes, input), options);
 */
export function quoteDocument(
  document: {
    readonly text: string;
    readonly clauses: readonly Clause[];
    readonly chunks: readonly unknown[];
    /** A DOCX's own tracked changes: the clauses they alter are priced as they read before too. */
    readonly revisions?: ChangeRecord;
  },
  options: Pick<JobOptions, 'analysts' | 'models'> &
    Partial<Pick<JobOptions, 'contractType' | 'allAnalysts' | 'fullPanel'>>,
  against?: QuotedPlaybook,
): DocumentQuote {
  const { clauses, chunks } = quotedClauses(document);
  // The contract's own clauses make the context: a changed clause's text before (`b0007`) is judged, not read as context.
  const context = findDocumentContext(document.text, contractClauses(clauses));
  const selection = withModels(selectAnalysts(options.analysts), options.models);
  const played =
    against && playbookOf(selection, against, options, { text: document.text, title: context?.title });
  const asked = played?.analysts ?? selection;
  const screen = options.fullPanel ? undefined : screenOf(clauses, asked);
  const estimate = estimateJob(
    clauses,
    asked,
    context,
    (clauseId, analystId) => !isScreened(screen?.screened, clauseId, analystId),
  );
  const left = new Set(played?.notAsked.map((n) => n.analystId));
  const notAsked =
    left.size > 0
      ? {
          calls: clauses.length * left.size,
          expectedMicros: estimateJob(
            clauses,
            selection.filter((a) => left.has(a.id)),
            context,
          ).quote.expectedMicros,
        }
      : undefined;
  // What the screened pairs would have cost: the whole panel's calls less those asked.
  const screened =
    screen && screen.calls > 0
      ? {
          calls: screen.calls,
          expectedMicros:
            estimateJob(clauses, asked, context).quote.expectedMicros - estimate.quote.expectedMicros,
        }
      : undefined;
  const calls = Object.values(estimate.loads).reduce((n, l) => n + l.calls, 0);
  const compute = laneComputeCost(calls, chunks);
  return {
    context,
    ...estimate,
    quote: {
      ...estimate.quote,
      compute,
      ...(notAsked ? { notAsked } : {}),
      ...(screened ? { screened } : {}),
    },
    ...(played
      ? {
          panel: {
            analysts: played.analysts.map((a) => a.id),
            notAsked: played.notAsked,
            ...(played.contractType ? { contractType: played.contractType } : {}),
          },
        }
      : {}),
    ...(screen ? { screen } : {}),
  };
}

/** The relevance screen of the clauses, a changed clause asked the same analysts before and after. */
function screenOf(
  clauses: readonly Clause[],
  asked: readonly AnalystDefinition[],
): DocumentScreen | undefined {
  const screen = shippedScreen()?.screenDocument(clauses, asked);
  return (
    screen &&
    pairedScreen(
      screen.screened,
      clauses.map((c) => c.id),
    )
  );
}

/** The panel a playbook leaves a selection, and the contract type its topics were taken for. */
function playbookOf(
  selection: readonly AnalystDefinition[],
  against: QuotedPlaybook,
  options: Partial<Pick<JobOptions, 'contractType' | 'allAnalysts'>>,
  words: { readonly text: string; readonly title?: string | undefined },
) {
  const contractType = contractTypeFor(against.playbook, options.contractType, {
    text: words.text,
    ...(words.title !== undefined ? { title: words.title } : {}),
    fileName: against.fileName,
  });
  const panel = playbookPanel(
    selection,
    against.playbook,
    contractType?.type,
    options.allAnalysts ?? false,
    against.names,
  );
  return { ...panel, contractType };
}
