/**
 * `npm run bench -- --only agreement`: how far the stand-in's offline analysts agree with CUAD's
 * lawyer labels on the development set (`../shared/corpus/contracts`, 40 contracts). Every clause
 * goes to all eleven analysts through the real request builder and answer validation; a
 * clause-category pair is flagged when an analyst covering the category gives it a score, and it
 * is labelled when the clause holds a span of a CUAD category mapped to it
 * (docs/offline-analyst.md has the matching rule). The learned analyst's weights were trained on
 * other contracts only (`../shared/cuad-train/`), so no development contract was seen in
 * training; the weights file's own out-of-fold figures from the training set's contract-level
 * cross-validation are printed beside them. The analysts' CPU per call is measured around the
 * analyst alone.
 */
import { existsSync } from 'node:fs';
import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import { CATEGORIES, CATEGORY_IDS, type CategoryId } from '../../lambdas/core/analysts/categories.js';
import { ANALYSTS, buildConverseInput, parseAnswer } from '../../lambdas/core/analysts/index.js';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { type RelevanceScreen, shippedModel, shippedScreen } from '../../lambdas/core/screen/index.js';
import { analyze } from '../../localstack/bedrock/heuristic-analyst.js';
import type { AnalystRequest, OfflineAnalystName } from '../../localstack/bedrock/heuristic-types.js';
import { type LabelledContract, readLabelledContracts } from '../../localstack/bedrock/learned/cuad-data.js';
import { formatPlaybookAgreement, measurePlaybookAgreement } from './playbook-agreement.js';

/** Default development set, beside the repository. */
export const DEV_SET = '../shared/corpus/contracts';

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

/** One analyst's agreement with the labels. */
export interface AgreementFigures {
  readonly analyst: OfflineAnalystName;
  readonly perCategory: Readonly<Record<CategoryId, Counts>>;
  readonly overall: Counts;
  readonly calls: number;
  /** Answers that failed the pipeline's own validation (quotes not in the clause, schema). */
  readonly invalid: number;
  readonly cpuMicrosPerCall: number;
  /** Clauses scored 2 or more in some category. */
  readonly highClauses: number;
  /**
   * With the relevance screen: the calls it left out, and the labelled clause-category pairs
   * whose category some analyst was still asked about.
   */
  readonly screen?: { readonly screened: number; readonly labelled: number; readonly covered: number };
}

const empty = (): Counts => ({ tp: 0, fp: 0, fn: 0 });

function answerOutput(answer: ReturnType<typeof analyze>): ConverseCommandOutput {
  const content: { text?: string; toolUse?: { toolUseId: string; name: string; input: never } }[] = [
    { text: answer.text },
  ];
  if (answer.tool)
    content.push({ toolUse: { toolUseId: 't', name: answer.tool.name, input: answer.tool.input as never } });
  return {
    output: { message: { role: 'assistant', content } },
    stopReason: 'tool_use',
  } as ConverseCommandOutput;
}

/**
 * Runs every clause of the contracts past the eleven analysts with one offline analyst; with a
 * relevance screen, past the analysts it keeps for the clause only, as intake would ask them.
 */
export function measureAgreement(
  contracts: readonly LabelledContract[],
  analyst: OfflineAnalystName,
  screen?: RelevanceScreen,
): AgreementFigures {
  const perCategory = Object.fromEntries(CATEGORY_IDS.map((id) => [id, empty()])) as Record<
    CategoryId,
    Counts
  >;
  const overall = empty();
  let calls = 0;
  let invalid = 0;
  let cpu = 0;
  let highClauses = 0;
  const screened = { screened: 0, labelled: 0, covered: 0 };
  for (const { clause, risks } of contracts.flatMap((c) => c.clauses)) {
    const flagged = new Set<CategoryId>();
    let high = false;
    const left = new Set(screen?.screenClause(clause.text, ANALYSTS).map((s) => s.analystId));
    const asked = ANALYSTS.filter((a) => !left.has(a.id));
    screened.screened += left.size;
    screened.labelled += risks.size;
    for (const id of risks) if (asked.some((a) => a.categories.includes(id))) screened.covered++;
    for (const definition of asked) {
      const request = buildConverseInput(definition, clause, { modelId: PRIMARY_MODEL_ID });
      const before = process.cpuUsage();
      const answer = analyze(request as AnalystRequest, { analyst, annotate: false });
      const used = process.cpuUsage(before);
      cpu += used.user + used.system;
      calls++;
      try {
        const parsed = parseAnswer(definition, clause, answerOutput(answer));
        for (const [id, assessment] of Object.entries(parsed.assessments)) {
          if (assessment?.score === null || assessment === undefined) continue;
          flagged.add(id as CategoryId);
          if (assessment.score >= 2) high = true;
        }
      } catch {
        invalid++;
      }
    }
    if (high) highClauses++;
    for (const id of CATEGORY_IDS) {
      const row = perCategory[id];
      const isFlagged = flagged.has(id);
      const isHeld = risks.has(id);
      const cell: keyof Counts | undefined = isFlagged ? (isHeld ? 'tp' : 'fp') : isHeld ? 'fn' : undefined;
      if (cell) {
        row[cell]++;
        overall[cell]++;
      }
    }
  }
  return {
    analyst,
    perCategory,
    overall,
    calls,
    invalid,
    cpuMicrosPerCall: cpu / Math.max(1, calls),
    highClauses,
    ...(screen ? { screen: screened } : {}),
  };
}

/** The screen's figures beside the full panel's, for the learned analyst. */
export function formatScreenAgreement(
  full: AgreementFigures,
  screened: AgreementFigures,
  recallTarget: number,
): string {
  const s = screened.screen;
  if (!s) return '';
  const all = full.calls;
  const p = (c: Counts) =>
    `P ${(c.tp / Math.max(1, c.tp + c.fp)).toFixed(3)} R ${(c.tp / Math.max(1, c.tp + c.fn)).toFixed(3)} (${c.tp} found, ${c.fp} not labelled, ${c.fn} missed)`;
  return [
    `relevance screen (shipped thresholds, per-category recall target ${recallTarget} on the training set's cross-validation):`,
    `  calls asked ${screened.calls.toLocaleString('en-US')} of ${all.toLocaleString('en-US')}, screened ${s.screened.toLocaleString('en-US')} (${pct(s.screened, all)})`,
    `  labelled pairs whose analyst was still asked: ${s.covered} of ${s.labelled} (${(s.covered / Math.max(1, s.labelled)).toFixed(3)})`,
    `  learned analyst: full panel ${p(full.overall)}; with the screen ${p(screened.overall)}`,
  ].join('\n');
}

const pct = (a: number, b: number): string => (b === 0 ? '   -' : (a / b).toFixed(2));
const precision = (c: Counts) => pct(c.tp, c.tp + c.fp);
const recall = (c: Counts) => pct(c.tp, c.tp + c.fn);

/** The table: per category and overall, each analyst's precision and recall of flagged pairs. */
export function formatAgreement(figures: readonly AgreementFigures[]): string {
  const head = [
    'category'.padEnd(28),
    'labelled',
    ...figures.flatMap((f) => [`${f.analyst} P`, 'R', 'flagged']),
  ];
  const lines = [head.join('  ')];
  const row = (name: string, pick: (f: AgreementFigures) => Counts) => {
    const first = figures[0] ? pick(figures[0]) : empty();
    const cells = figures.flatMap((f) => {
      const c = pick(f);
      return [precision(c).padStart(`${f.analyst} P`.length), recall(c), String(c.tp + c.fp).padStart(7)];
    });
    lines.push([name.padEnd(28), String(first.tp + first.fn).padStart(8), ...cells].join('  '));
  };
  for (const category of CATEGORIES) row(category.id, (f) => f.perCategory[category.id]);
  row('overall', (f) => f.overall);
  for (const f of figures) {
    lines.push(
      `${f.analyst}: ${f.calls} calls, ${f.invalid} answers failing validation, ` +
        `${f.cpuMicrosPerCall.toFixed(0)} µs CPU per call, ${f.highClauses} clauses scored 2 or more`,
    );
  }
  return lines.join('\n');
}

/** Reads the development set and measures both analysts; undefined when the set is absent. */
export async function runAgreementBench(
  dir = process.env.CUAD_DEV_SET ?? DEV_SET,
): Promise<string | undefined> {
  if (!existsSync(dir)) return undefined;
  const contracts = await readLabelledContracts(dir);
  // The stand-in loads the weights once at start; so does the bench, before it measures calls.
  shippedModel();
  const figures = (['learned', 'heuristic'] as const).map((name) => measureAgreement(contracts, name));
  const screen = shippedScreen();
  const learned = figures[0];
  const withScreen = screen && learned ? measureAgreement(contracts, 'learned', screen) : undefined;
  const cv = shippedModel().training.crossValidation as { precision?: number; recall?: number } | undefined;
  const clauses = contracts.flatMap((c) => c.clauses);
  const pairs = clauses.reduce((n, c) => n + c.risks.size, 0);
  const playbook = (['learned', 'heuristic'] as const).map((name) =>
    measurePlaybookAgreement(contracts, name),
  );
  return [
    `${contracts.length} contracts, ${clauses.length} clauses, ${pairs} labelled pairs`,
    formatAgreement(figures),
    `learned weights, out-of-fold on the training set (contract-level cross-validation): P ${cv?.precision ?? '-'} R ${cv?.recall ?? '-'}`,
    '',
    ...(screen && learned && withScreen
      ? [formatScreenAgreement(learned, withScreen, screen.recallTarget), '']
      : []),
    "playbook column: the default playbook's liability positions against CUAD labels",
    formatPlaybookAgreement(playbook),
  ].join('\n');
}
