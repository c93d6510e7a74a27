/**
 * The learned offline analyst's model at run time: the shipped weights (weights.json, written by
 * `npm run train:analyst`), loaded once, and the scores they give a clause or a sentence.
 * Nothing is downloaded. A weights file that is missing, unreadable or short of a risk category
 * is an error when the stand-in starts, naming what is wrong: the heuristic answers only when
 * asked for by name, never in the learned analyst's place.
 */
import { readFileSync } from 'node:fs';
import { CATEGORY_IDS, type CategoryId } from '../../../lambdas/core/analysts/categories.js';
import { featureStrings } from './features.js';
import { type DenseLabel, type StoredModel, unpackWeights } from './weights-format.js';

/** The shipped weights, beside this module. */
export const WEIGHTS_URL = new URL('./weights.json', import.meta.url);

/** The weights file could not be read or is not a model this code understands. */
export class LearnedModelError extends Error {
  override readonly name = 'LearnedModelError';
  readonly path: string;
  constructor(message: string, path: string, options?: { cause?: unknown }) {
    super(message, options);
    this.path = path;
  }
}

/** Whether `e` is a {@link LearnedModelError}. */
export function isLearnedModelError(e: unknown): e is LearnedModelError {
  return e instanceof Error && e.name === 'LearnedModelError';
}

/** A loaded model. */
export interface LearnedModel {
  readonly features: ReadonlyMap<string, number>;
  /** One per risk category, in CATEGORY_IDS order. */
  readonly risk: readonly DenseLabel[];
  /** CUAD categories by lower-case name. */
  readonly cuad: ReadonlyMap<string, DenseLabel>;
  readonly training: Readonly<Record<string, unknown>>;
}

/** Reads and unpacks a weights file. */
export function loadLearnedModel(path: string | URL = WEIGHTS_URL): LearnedModel {
  const where = String(path);
  let stored: StoredModel;
  try {
    stored = JSON.parse(readFileSync(path, 'utf8')) as StoredModel;
  } catch (cause) {
    throw new LearnedModelError(`cannot read the offline analyst's weights at ${where}`, where, { cause });
  }
  if (stored?.format !== 'clause-review-offline-analyst/1' || !Array.isArray(stored.labels)) {
    throw new LearnedModelError(
      `${where} is not a clause-review-offline-analyst/1 weights file (format: ${String(stored?.format)})`,
      where,
    );
  }
  const dimensions = stored.features.length;
  const dense = new Map(
    stored.labels.map((label) => [
      label.name,
      { ...label, weights: unpackWeights(label, dimensions) } satisfies DenseLabel,
    ]),
  );
  const risk = CATEGORY_IDS.map((id) => {
    const label = dense.get(id);
    if (!label) throw new LearnedModelError(`${where} has no weights for risk category '${id}'`, where);
    return label;
  });
  const cuad = new Map([...dense].filter(([, label]) => label.kind === 'cuad'));
  return { features: new Map(stored.features.map((f, i) => [f, i])), risk, cuad, training: stored.training };
}

const loaded = new Map<string, LearnedModel>();

/**
 * The model at `path`, read on first use and kept; a {@link LearnedModelError} (naming the file,
 * and the category when one is missing) every time it cannot be loaded.
 */
export function learnedModelAt(path: string | URL): LearnedModel {
  const key = String(path);
  let model = loaded.get(key);
  if (!model) {
    model = loadLearnedModel(path);
    loaded.set(key, model);
  }
  return model;
}

/** The shipped model ({@link WEIGHTS_URL}), loaded on first use; throws when it cannot be. */
export function shippedModel(): LearnedModel {
  return learnedModelAt(WEIGHTS_URL);
}

/** The label's weight sum over the features, scaled as in training (1/sqrt of the text's feature count). */
export function evidence(label: DenseLabel, ids: Int32Array, featureCount: number): number {
  let sum = 0;
  for (const f of ids) sum += label.weights[f] as number;
  return featureCount === 0 ? 0 : sum / Math.sqrt(featureCount);
}

/** The label's probability for a text. */
export function probability(label: DenseLabel, ids: Int32Array, featureCount: number): number {
  return 1 / (1 + Math.exp(-(label.bias + evidence(label, ids, featureCount))));
}

/** A text's features under a model, and how many distinct features it had (known or not). */
export function featuresOf(model: LearnedModel, text: string): { ids: Int32Array; count: number } {
  const strings = featureStrings(text);
  const ids: number[] = [];
  for (const f of strings) {
    const id = model.features.get(f);
    if (id !== undefined) ids.push(id);
  }
  return { ids: Int32Array.from(ids), count: strings.size };
}

/** Whether a schema's category key is one of the twelve risk categories. */
export function riskIndex(key: string): number {
  return CATEGORY_IDS.indexOf(key as CategoryId);
}
