/**
 * `npm run train:analyst`: trains the learned clause classifier on CUAD lawyer labels and writes
 * its weights into `lambdas/core/screen/weights.generated.ts`, where intake's relevance screen
 * and the stand-in's learned analyst read them.
 *
 * Data: the training set (default `../shared/cuad-train/contracts`), split into clauses as
 * intake splits them and labelled by docs/offline-analyst.md's matching rule. Model: one
 * logistic regression per risk category (whether a clause addresses it) and one per mapped CUAD
 * category (what kind of clause it is, for reasons and severity), over words and word pairs.
 * Each risk category's threshold is the one with the best F1 on out-of-fold predictions of a
 * contract-level cross-validation over the training set. The development set
 * (`../shared/corpus/contracts`) is only scored, never trained or tuned on.
 * Deterministic: the same data and `--seed` give the same file.
 *
 *   npm run train:analyst [-- --train DIR --dev DIR --seed N --out FILE --cv-cache FILE]
 *
 * `--out` names the module to write (default the shipped one); a FILE ending in `.json` gets the
 * weights file's JSON text instead, for experiments.
 *
 * `--cv-cache` keeps the cross-validation's out-of-fold predictions in FILE and reuses them
 * when FILE exists (same data, seed and settings), so changing only how thresholds are chosen
 * does not repeat the cross-validation.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CATEGORY_IDS } from '../../../lambdas/core/analysts/categories.js';
import {
  featureStrings,
  featuresOf,
  type LearnedModel,
  packWeights,
  parseLearnedModel,
  probability,
  type StoredLabel,
  type StoredModel,
  type StoredScreen,
  screenedTexts,
} from '../../../lambdas/core/screen/index.js';
import { type LabelledContract, RISK_OF_CUAD, readLabelledContracts } from './cuad-data.js';
import { type Example, type LogisticModel, predict, seededRandom, trainLogistic } from './logistic.js';
import { chooseScreenThresholds, screenOutOfFold, tallyShares } from './screen-thresholds.js';
import { WEIGHTS_MODULE, weightsModule } from './weights-module.js';

/** Training settings, recorded in the weights file. */
export const SETTINGS = {
  minDocumentFrequency: 3,
  /** The vocabulary: the most frequent words and word pairs, so every weight can ship. */
  maxFeatures: 20000,
  epochs: 4,
  learningRate: 0.5,
  l2: 1e-6,
  positiveWeight: 2,
  folds: 5,
  /**
   * Each risk category's threshold maximises F-beta of its out-of-fold pairs with this beta:
   * recall weighs more than precision, since a clause a reviewer never sees flagged costs more
   * than one they dismiss.
   */
  beta: 1.5,
  /**
   * The relevance screen's thresholds keep the same share of each risk category's labelled
   * clauses out of fold (screen-thresholds.ts): the lowest share of SCREEN_CANDIDATES at which
   * the labelled pairs whose category some analyst is still asked about reach this share of all
   * labelled pairs, out of fold. The margin above the 0.98 the development set is held to is for
   * contracts the cross-validation did not see.
   */
  screenCoverage: 0.985,
} as const;

/** Per-category recall targets the screen's thresholds are tried at, each recorded with its figures. */
const SCREEN_CANDIDATES = [0.95, 0.96, 0.97, 0.975, 0.98, 0.985, 0.99, 0.995] as const;

const CUAD_LABELS: readonly string[] = [...RISK_OF_CUAD.keys()];
/** Label ids: the twelve risk categories, then the CUAD categories. */
const LABEL_NAMES: readonly string[] = [...CATEGORY_IDS, ...CUAD_LABELS];

interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b);

/** Precision, recall and F1 of pair counts. */
function scoreCounts(c: Counts): { precision: number; recall: number; f1: number } {
  const precision = ratio(c.tp, c.tp + c.fp);
  const recall = ratio(c.tp, c.tp + c.fn);
  return { precision, recall, f1: ratio(2 * precision * recall, precision + recall) };
}

function vocabularyOf(contracts: readonly LabelledContract[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const c of contracts)
    for (const clause of c.clauses)
      for (const f of featureStrings(clause.text)) df.set(f, (df.get(f) ?? 0) + 1);
  const frequent = [...df]
    .filter(([, n]) => n >= SETTINGS.minDocumentFrequency)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, SETTINGS.maxFeatures);
  return new Map(frequent.map(([f], i) => [f, i]));
}

/** A text's known features (sorted ids) and how many distinct features it had. */
function encode(text: string, vocab: Map<string, number>): { features: Int32Array; count: number } {
  const ids: number[] = [];
  const strings = featureStrings(text);
  for (const f of strings) {
    const id = vocab.get(f);
    if (id !== undefined) ids.push(id);
  }
  return { features: Int32Array.from(ids).sort(), count: strings.size };
}

function examplesOf(contracts: readonly LabelledContract[], vocab: Map<string, number>): Example[] {
  return contracts.flatMap((c) =>
    c.clauses.map((clause) => {
      const labels = new Set<number>();
      for (const r of clause.risks) labels.add(LABEL_NAMES.indexOf(r));
      for (const k of clause.cuad) labels.add(LABEL_NAMES.indexOf(k));
      return { ...encode(clause.text, vocab), labels };
    }),
  );
}

/** The relevance screen's probabilities of a clause: the highest of the clause's and its sentences' (screen.ts). */
function screenProbabilities(model: LogisticModel, text: string, vocab: Map<string, number>): Float64Array {
  const out = new Float64Array(model.labels);
  for (const part of screenedTexts(text)) {
    const { features, count } = encode(part, vocab);
    predict(model, features, count).forEach((p, l) => {
      out[l] = Math.max(out[l] as number, p);
    });
  }
  return out;
}

const trainModels = (
  examples: readonly Example[],
  dimensions: number,
  labels: number,
  seed: number,
): LogisticModel => trainLogistic(examples, { ...SETTINGS, labels, dimensions, seed });

/** Out-of-fold predictions of a cross-validation: labels, and the clause's and the screen's probabilities. */
interface OutOfFold {
  truth: Set<number>[];
  probs: Float64Array[];
  screenProbs: Float64Array[];
}

/** Out-of-fold risk probabilities by contract-level cross-validation, for the clause and for the screen. */
function crossValidate(contracts: readonly LabelledContract[], vocab: Map<string, number>, seed: number) {
  const random = seededRandom(seed ^ 0x9e3779b9);
  const fold = new Map(contracts.map((c) => [c.name, Math.floor(random() * SETTINGS.folds)]));
  const cv: OutOfFold = { truth: [], probs: [], screenProbs: [] };
  for (let k = 0; k < SETTINGS.folds; k++) {
    const trainSet = contracts.filter((c) => fold.get(c.name) !== k);
    const testSet = contracts.filter((c) => fold.get(c.name) === k);
    const model = trainModels(examplesOf(trainSet, vocab), vocab.size, CATEGORY_IDS.length, seed + k);
    for (const clause of testSet.flatMap((c) => c.clauses)) {
      const { features, count } = encode(clause.text, vocab);
      cv.probs.push(predict(model, features, count));
      cv.screenProbs.push(screenProbabilities(model, clause.text, vocab));
      cv.truth.push(new Set([...clause.risks].map((r) => CATEGORY_IDS.indexOf(r))));
    }
    console.error(`fold ${k + 1}/${SETTINGS.folds}: ${testSet.length} contracts held out`);
  }
  return cv;
}

/** The out-of-fold predictions, read from `file` when it has them, else computed (and written there). */
function cachedCrossValidation(file: string | undefined, compute: () => OutOfFold): OutOfFold {
  const arrays = (rows: readonly number[][]) => rows.map((p) => Float64Array.from(p));
  if (file && existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<keyof OutOfFold, number[][]>;
    if (saved.screenProbs)
      return {
        truth: saved.truth.map((t) => new Set(t)),
        probs: arrays(saved.probs),
        screenProbs: arrays(saved.screenProbs),
      };
  }
  const cv = compute();
  if (file) {
    const lists = (rows: readonly Float64Array[]) => rows.map((p) => Array.from(p));
    const json = {
      truth: cv.truth.map((t) => [...t]),
      probs: lists(cv.probs),
      screenProbs: lists(cv.screenProbs),
    };
    writeFileSync(file, JSON.stringify(json));
  }
  return cv;
}

function countsAt(truth: Set<number>[], probs: Float64Array[], label: number, threshold: number): Counts {
  const c = { tp: 0, fp: 0, fn: 0 };
  probs.forEach((p, i) => {
    const flagged = (p[label] as number) >= threshold;
    const held = truth[i]?.has(label) ?? false;
    if (flagged && held) c.tp++;
    else if (flagged) c.fp++;
    else if (held) c.fn++;
  });
  return c;
}

/** F-beta of pair counts. */
function fBeta(c: Counts): number {
  const { precision, recall } = scoreCounts(c);
  const b2 = SETTINGS.beta * SETTINGS.beta;
  return ratio((1 + b2) * precision * recall, b2 * precision + recall);
}

/** Per risk category, the threshold with the best out-of-fold F-beta, and the figures at it. */
function chooseThresholds(truth: Set<number>[], probs: Float64Array[]) {
  return CATEGORY_IDS.map((id, label) => {
    let best = { threshold: 0.5, score: -1, counts: countsAt(truth, probs, label, 0.5) };
    for (let step = 2; step <= 18; step++) {
      const threshold = step / 20;
      const counts = countsAt(truth, probs, label, threshold);
      const score = fBeta(counts);
      if (score > best.score) best = { threshold, score, counts };
    }
    return { id, threshold: best.threshold, counts: best.counts };
  });
}

function figures(rows: readonly { id: string; counts: Counts }[]) {
  const all = { tp: 0, fp: 0, fn: 0 };
  const perCategory: Record<string, unknown> = {};
  for (const { id, counts } of rows) {
    all.tp += counts.tp;
    all.fp += counts.fp;
    all.fn += counts.fn;
    const s = scoreCounts(counts);
    perCategory[id] = {
      precision: round(s.precision),
      recall: round(s.recall),
      labelled: counts.tp + counts.fn,
    };
  }
  const s = scoreCounts(all);
  return { precision: round(s.precision), recall: round(s.recall), pairs: all, perCategory };
}

const FORMAT = 'clause-review-offline-analyst/1';

/** The screen's thresholds at the chosen recall target, with every candidate's out-of-fold figures. */
function screenOf(truth: Set<number>[], probs: Float64Array[]): StoredScreen {
  const candidates = SCREEN_CANDIDATES.map((recallTarget) => {
    const thresholds = chooseScreenThresholds(truth, probs, recallTarget);
    return { recallTarget, thresholds, ...tallyShares(screenOutOfFold(truth, probs, thresholds)) };
  });
  const chosen =
    candidates.find((c) => c.coverage >= SETTINGS.screenCoverage) ??
    (candidates.at(-1) as (typeof candidates)[number]);
  return {
    recallTarget: chosen.recallTarget,
    thresholds: Object.fromEntries(CATEGORY_IDS.map((id, i) => [id, chosen.thresholds[i] as number])),
    crossValidation: {
      rule: `the lowest recall target whose out-of-fold coverage is at least ${SETTINGS.screenCoverage}`,
      coverage: chosen.coverage,
      screenedShare: chosen.screenedShare,
      candidates: candidates.map(({ recallTarget, coverage, screenedShare }) => ({
        recallTarget,
        coverage,
        screenedShare,
      })),
    },
  };
}

/** Pair counts per risk category of a loaded model on labelled contracts. */
function scoreStored(model: LearnedModel, contracts: readonly LabelledContract[]) {
  const rows = CATEGORY_IDS.map((id) => ({ id, counts: { tp: 0, fp: 0, fn: 0 } }));
  for (const clause of contracts.flatMap((c) => c.clauses)) {
    const { ids, count } = featuresOf(model, clause.text);
    model.risk.forEach((label, l) => {
      const row = rows[l] as (typeof rows)[number];
      const flagged = probability(label, ids, count) >= label.threshold;
      const held = clause.risks.has(row.id);
      if (flagged && held) row.counts.tp++;
      else if (flagged) row.counts.fp++;
      else if (held) row.counts.fn++;
    });
  }
  return rows;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** Packs every label's weights (each as int8 steps of its own scale) over the whole vocabulary. */
function store(model: LogisticModel, vocab: Map<string, number>, thresholds: readonly number[]) {
  const labels: StoredLabel[] = LABEL_NAMES.map((name, l) => {
    const dense = model.weights.subarray(l * model.dimensions, (l + 1) * model.dimensions);
    const packed = packWeights(dense, 0);
    return {
      name,
      kind: l < CATEGORY_IDS.length ? 'risk' : 'cuad',
      bias: round(model.bias[l] as number),
      threshold: thresholds[l] ?? 0.5,
      scale: packed.scale,
      weights: packed.weights,
    };
  });
  return { features: [...vocab.keys()], labels };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      train: { type: 'string', default: '../shared/cuad-train/contracts' },
      dev: { type: 'string', default: '../shared/corpus/contracts' },
      seed: { type: 'string', default: '20251126' },
      out: { type: 'string', default: WEIGHTS_MODULE },
      'cv-cache': { type: 'string' },
    },
  });
  const seed = Number(values.seed);
  const train = await readLabelledContracts(values.train);
  const vocab = vocabularyOf(train);
  console.error(`${train.length} training contracts, ${vocab.size} features`);
  const cv = cachedCrossValidation(values['cv-cache'], () => crossValidate(train, vocab, seed));
  const chosen = chooseThresholds(cv.truth, cv.probs);
  const final = trainModels(examplesOf(train, vocab), vocab.size, LABEL_NAMES.length, seed);
  const thresholds = LABEL_NAMES.map((_, l) => chosen[l]?.threshold ?? 0.5);
  const stored = { ...store(final, vocab, thresholds), screen: screenOf(cv.truth, cv.screenProbs) };
  const training = {
    data: `CUAD v1 training set: ${train.length} contracts, ${train.reduce((n, c) => n + c.clauses.length, 0)} clauses`,
    seed,
    settings: SETTINGS,
    features: `the ${vocab.size} most frequent words and word pairs of the training clauses`,
    thresholds: Object.fromEntries(chosen.map((c) => [c.id, c.threshold])),
    crossValidation: { folds: SETTINGS.folds, ...figures(chosen) },
  };
  // The development set is scored with the weights as stored, never trained or tuned on.
  const asStored = parseLearnedModel(JSON.stringify({ format: FORMAT, training, ...stored }), 'training');
  const dev = await readLabelledContracts(values.dev);
  const development = {
    data: `CUAD v1 development set: ${dev.length} contracts, ${dev.reduce((n, c) => n + c.clauses.length, 0)} clauses (scored only)`,
    ...figures(scoreStored(asStored, dev)),
  };
  const model: StoredModel = { format: FORMAT, training: { ...training, development }, ...stored };
  const json = JSON.stringify(model);
  writeFileSync(values.out, values.out.endsWith('.json') ? `${json}\n` : weightsModule(json));
  const cvFig = model.training.crossValidation as { precision: number; recall: number };
  const devFig = model.training.development as { precision: number; recall: number };
  const screen = stored.screen.crossValidation as { coverage: number; screenedShare: number };
  console.log(
    `wrote ${values.out}: ${stored.features.length} features, ${LABEL_NAMES.length} labels; ` +
      `cross-validation P ${cvFig.precision} R ${cvFig.recall}; development P ${devFig.precision} R ${devFig.recall}; ` +
      `screen at recall ${stored.screen.recallTarget}: out-of-fold coverage ${screen.coverage}, calls screened ${screen.screenedShare}`,
  );
}

await main();
