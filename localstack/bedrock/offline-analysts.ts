/**
 * The stand-in's two offline analysts and which one answers: `learned` (the shipped weights,
 * localstack/bedrock/learned/) by default, `heuristic` (the keyword lexicon) when asked for, for
 * fault tests. Weights that cannot be loaded are an error, not a reason to answer otherwise.
 */

import { shippedModel } from '../../lambdas/core/screen/index.js';
import {
  HEURISTIC_LABEL_NAME,
  LEARNED_LABEL,
  type OfflineAnalyst,
  type OfflineAnalystName,
  STAND_IN_LABEL,
} from './heuristic-types.js';
import { learnedMatch } from './learned/learned-analyst.js';
import { matchCategory } from './risk-lexicon.js';

/** The keyword heuristic. */
export const HEURISTIC_ANALYST: OfflineAnalyst = {
  name: HEURISTIC_LABEL_NAME,
  label: STAND_IN_LABEL,
  match: matchCategory,
};

let learned: OfflineAnalyst | undefined;

/** The learned analyst; throws a `LearnedModelError` when its weights cannot be loaded. */
export function learnedAnalyst(): OfflineAnalyst {
  if (!learned) {
    const model = shippedModel();
    learned = {
      name: 'learned',
      label: LEARNED_LABEL,
      match: (index, category) => learnedMatch(model, index, category),
    };
  }
  return learned;
}

/** The analyst for a name (default `learned`). */
export function offlineAnalyst(name: OfflineAnalystName = 'learned'): OfflineAnalyst {
  return name === 'learned' ? learnedAnalyst() : HEURISTIC_ANALYST;
}

/** The line local reports and the CLI print: which offline analyst answered. */
export function offlineAnalystNotice(name: OfflineAnalystName = 'learned'): string {
  const analyst = offlineAnalyst(name);
  return analyst.name === 'learned'
    ? 'Local run: answers come from the offline learned analyst of the Bedrock stand-in (logistic models trained on CUAD lawyer labels), not from a legal-grade model.'
    : 'Local run: answers come from the offline heuristic analyst of the Bedrock stand-in (keyword matching), not from a legal-grade model.';
}
