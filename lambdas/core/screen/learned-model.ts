/**
 * The learned clause classifier at run time: logistic models trained on CUAD lawyer labels
 * (`npm run train:analyst`), one per risk category and one per CUAD category, and the scores
 * they give a clause or a sentence. The shipped weights are a generated module
 * (weights.generated.ts), so the code that reads them, intake's relevance screen as much as the
 * Bedrock stand-in's learned analyst, carries them in its bundle and reads no file.
 * A weights module that cannot be unpacked, or is short of a risk category, is an error on
 * first use, naming what is wrong: the heuristic answers only when asked for by name, never in
 * the learned analyst's place.
 */
import { readFileSync } from 'node:fs';
import { CATEGORY_IDS, type CategoryId } from '../analysts/categories.js';
import { LearnedModelError } from './errors.js';
import { featureStrings } from './features.js';
import { WEIGHTS_JSON } from './weights.generated.js';
import { type DenseLabel, type StoredModel, type StoredScreen, unpackWeights } from './weights-format.js';

/** A loaded model. */
export interface LearnedModel {
  readonly features: ReadonlyMap<string, number>;
  /** One per risk category, in CATEGORY_IDS order. */
  readonly risk: readonly DenseLabel[];
  /** CUAD categories by lower-case name. */
  readonly cuad: ReadonlyMap<string, DenseLabel>;
  readonly training: Readonly<Record<string, unknown>>;
  /** The relevance screen's thresholds, one per risk category in CATEGORY_IDS order; absent in older weights. */
  readonly screen?: { readonly recallTarget: number; readonly thresholds: readonly number[] };
}

/** Reads and unpacks a weights file (the shipped weights: {@link shippedModel}). */
export function loadLearnedModel(path: string | URL): LearnedModel {
  const where = String(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new LearnedModelError(`cannot read the classifier's weights at ${where}`, where, { cause });
  }
  return parseLearnedModel(text, where);
}

/** Unpacks weights given as the JSON text of a weights file; `where` names them in errors. */
export function parseLearnedModel(text: string, where: string): LearnedModel {
  let stored: StoredModel;
  try {
    stored = JSON.parse(text) as StoredModel;
  } catch (cause) {
    throw new LearnedModelError(`the classifier's weights at ${where} are not JSON`, where, { cause });
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
  return {
    features: new Map(stored.features.map((f, i) => [f, i])),
    risk,
    cuad,
    training: stored.training,
    ...(stored.screen ? { screen: screenOf(stored.screen, where) } : {}),
  };
}

/** The screen's thresholds in category order; every risk category must have one in [0, 1]. */
function screenOf(screen: StoredScreen, where: string): NonNullable<LearnedModel['screen']> {
  const thresholds = CATEGORY_IDS.map((id) => {
    const t = screen.thresholds[id];
    if (typeof t !== 'number' || !(t >= 0 && t <= 1))
      throw new LearnedModelError(`${where} has no screen threshold in [0, 1] for '${id}' (got ${t})`, where);
    return t;
  });
  return { recallTarget: screen.recallTarget, thresholds };
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

let shipped: LearnedModel | undefined;

/**
 * The shipped model (weights.generated.ts), unpacked on first use; a {@link LearnedModelError}
 * naming what is wrong every time it cannot be.
 */
export function shippedModel(): LearnedModel {
  shipped ??= parseLearnedModel(WEIGHTS_JSON, 'weights.generated.ts');
  return shipped;
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
