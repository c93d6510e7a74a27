/**
 * The agreement bench's playbook column: the stand-in's judgement of the `default` playbook's
 * liability positions against CUAD's lawyer labels on the development set. Every clause goes to
 * the analysts that score liability, with the playbook's positions, through the real request
 * builder, answer validation and consolidation, as a job against the playbook runs them.
 *
 * - Cap on the liability: a clause judged to deal with `limitation-of-liability` (any rung)
 *   against a clause holding a *Cap on Liability* span; and the rungs those clauses reach.
 * - Carve-outs: `uncapped-liabilities` dealt with against *Uncapped Liability* spans.
 * - The required-clause finding per contract: `limitation-of-liability` missing (no clause
 *   deals with it) against a contract with no *Cap on Liability* span at all.
 */
import type { ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import {
  ANALYSTS,
  buildConverseInput,
  consolidateClause,
  type PositionVerdict,
  parseAnswer,
  withPositions,
} from '../../lambdas/core/analysts/index.js';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { type Playbook, positionBriefs, shippedPlaybooks } from '../../lambdas/core/playbooks/index.js';
import { analyze } from '../../localstack/bedrock/heuristic-analyst.js';
import type { AnalystRequest, OfflineAnalystName } from '../../localstack/bedrock/heuristic-types.js';
import type { LabelledContract } from '../../localstack/bedrock/learned/cuad-data.js';

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

/** What one offline analyst's playbook answers came to. */
export interface PlaybookFigures {
  readonly analyst: OfflineAnalystName;
  /** Clause level: the cap position dealt with, against Cap on Liability spans. */
  readonly cap: Counts;
  /** Clause level: the carve-outs position dealt with, against Uncapped Liability spans. */
  readonly carveOuts: Counts;
  /** Rungs the cap position reached in clauses holding a Cap on Liability span, and how many stated a number. */
  readonly capRungs: Readonly<Record<string, number>>;
  readonly capMeasured: number;
  /** Contract level: the required limitation of liability found missing, against no Cap on Liability span. */
  readonly missing: Counts;
  readonly contracts: number;
  readonly calls: number;
  readonly invalid: number;
}

const empty = (): Counts => ({ tp: 0, fp: 0, fn: 0 });
const tally = (c: Counts, predicted: boolean, actual: boolean) => {
  if (predicted && actual) c.tp++;
  else if (predicted) c.fp++;
  else if (actual) c.fn++;
};

function output(reply: ReturnType<typeof analyze>): ConverseCommandOutput {
  return {
    output: {
      message: {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 't', name: reply.tool?.name ?? '', input: reply.tool?.input as never } },
        ],
      },
    },
    stopReason: 'tool_use',
    $metadata: {},
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    metrics: { latencyMs: 0 },
  };
}

const rungName = (v: PositionVerdict) => (v.rung === 'fallback' ? `fallback ${v.fallback}` : v.rung);

/** Runs the development set's clauses past the liability analysts, with the `default` playbook's positions. */
export function measurePlaybookAgreement(
  contracts: readonly LabelledContract[],
  analyst: OfflineAnalystName,
): PlaybookFigures {
  const playbook = shippedPlaybooks().find((p) => p.playbook.name === 'default')?.playbook as Playbook;
  const panel = withPositions(
    ANALYSTS.filter((a) => a.categories.includes('liability')),
    { party: playbook.party, positions: positionBriefs(playbook, undefined) },
  );
  const figures = {
    analyst,
    cap: empty(),
    carveOuts: empty(),
    capRungs: {} as Record<string, number>,
    capMeasured: 0,
    missing: empty(),
    contracts: contracts.length,
    calls: 0,
    invalid: 0,
  };
  for (const contract of contracts) {
    let capFound = false;
    let capLabelled = false;
    for (const { clause, cuad } of contract.clauses) {
      const answers = [];
      for (const a of panel) {
        const request = buildConverseInput(a, clause, { modelId: PRIMARY_MODEL_ID });
        figures.calls++;
        try {
          answers.push(
            parseAnswer(a, clause, output(analyze(request as AnalystRequest, { analyst, annotate: false }))),
          );
        } catch {
          figures.invalid++;
        }
      }
      const positions = consolidateClause(clause, answers).positions ?? [];
      const cap = positions.find((p) => p.topic === 'limitation-of-liability');
      const carveOuts = positions.find((p) => p.topic === 'uncapped-liabilities');
      const labelledCap = cuad.has('cap on liability');
      tally(figures.cap, cap !== undefined, labelledCap);
      tally(figures.carveOuts, carveOuts !== undefined, cuad.has('uncapped liability'));
      if (labelledCap && cap) {
        figures.capRungs[rungName(cap)] = (figures.capRungs[rungName(cap)] ?? 0) + 1;
        if (cap.measured !== undefined) figures.capMeasured++;
      }
      capFound ||= cap !== undefined;
      capLabelled ||= labelledCap;
    }
    tally(figures.missing, !capFound, !capLabelled);
  }
  return figures;
}

const ratio = (a: number, b: number) => (b === 0 ? '   -' : (a / b).toFixed(2));
const pr = (c: Counts) =>
  `P ${ratio(c.tp, c.tp + c.fp)} R ${ratio(c.tp, c.tp + c.fn)} (${c.tp + c.fn} labelled, ${c.tp + c.fp} found)`;

/** The playbook column as lines of text. */
export function formatPlaybookAgreement(figures: readonly PlaybookFigures[]): string {
  return figures
    .flatMap((f) => [
      `${f.analyst}: playbook 'default', liability analysts only: ${f.calls} calls, ${f.invalid} answers failing validation`,
      `  limitation-of-liability dealt with vs Cap on Liability spans (clauses)      ${pr(f.cap)}`,
      `  uncapped-liabilities dealt with vs Uncapped Liability spans (clauses)       ${pr(f.carveOuts)}`,
      `  rungs of labelled caps it found: ${
        Object.entries(f.capRungs)
          .sort()
          .map(([r, n]) => `${r} ${n}`)
          .join(', ') || 'none'
      }; a number read in ${f.capMeasured}`,
      `  required limitation of liability missing vs no Cap on Liability span (${f.contracts} contracts)  ${pr(f.missing)}`,
    ])
    .join('\n');
}
