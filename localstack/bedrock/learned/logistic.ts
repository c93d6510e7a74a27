/**
 * Logistic regression over sparse binary features, one independent model per label, trained
 * with AdaGrad on the log loss plus an L2 penalty, in a fixed order drawn from a seed: the same
 * data and seed always give the same weights.
 */

/** One training example: sorted feature ids and the labels it holds. */
export interface Example {
  readonly features: Int32Array;
  /** Distinct features of the text, known to the model or not: the scale is 1/sqrt of it. */
  readonly count: number;
  readonly labels: ReadonlySet<number>;
}

/** Settings of {@link trainLogistic}. */
export interface LogisticOptions {
  readonly labels: number;
  readonly dimensions: number;
  readonly epochs: number;
  readonly learningRate: number;
  readonly l2: number;
  /** Weight of a positive example's loss, so rare labels are not drowned by negatives. */
  readonly positiveWeight: number;
  readonly seed: number;
}

/** Weights per label: `bias[l]` and `weights[l * dimensions + f]`. */
export interface LogisticModel {
  readonly labels: number;
  readonly dimensions: number;
  readonly bias: Float64Array;
  readonly weights: Float32Array;
}

/** A small deterministic generator (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The examples' indices in an order shuffled by `random` (Fisher-Yates). */
function shuffled(n: number, random: () => number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  return order;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** Each example's features are scaled by 1/sqrt(count), so long clauses do not dominate. */
export const featureScale = (count: number): number => (count === 0 ? 0 : 1 / Math.sqrt(count));

/** Trains one logistic model per label on the examples. */
export function trainLogistic(examples: readonly Example[], options: LogisticOptions): LogisticModel {
  const { labels, dimensions, epochs, learningRate, l2, positiveWeight } = options;
  const weights = new Float32Array(labels * dimensions);
  const squares = new Float32Array(labels * dimensions).fill(1e-6);
  const bias = new Float64Array(labels);
  const biasSquares = new Float64Array(labels).fill(1e-6);
  const random = seededRandom(options.seed);
  for (let epoch = 0; epoch < epochs; epoch++) {
    for (const e of shuffled(examples.length, random)) {
      const example = examples[e] as Example;
      const x = featureScale(example.count);
      for (let l = 0; l < labels; l++) {
        const base = l * dimensions;
        let z = bias[l] as number;
        for (const f of example.features) z += (weights[base + f] as number) * x;
        const positive = example.labels.has(l);
        const gradient = (sigmoid(z) - (positive ? 1 : 0)) * (positive ? positiveWeight : 1);
        for (const f of example.features) {
          const at = base + f;
          const g = gradient * x + l2 * (weights[at] as number);
          squares[at] = (squares[at] as number) + g * g;
          weights[at] = (weights[at] as number) - (learningRate * g) / Math.sqrt(squares[at] as number);
        }
        biasSquares[l] = (biasSquares[l] as number) + gradient * gradient;
        bias[l] = (bias[l] as number) - (learningRate * gradient) / Math.sqrt(biasSquares[l] as number);
      }
    }
  }
  return { labels, dimensions, bias, weights };
}

/** The probability of each label for one example. */
export function predict(model: LogisticModel, features: Int32Array, count: number): Float64Array {
  const out = new Float64Array(model.labels);
  const x = featureScale(count);
  for (let l = 0; l < model.labels; l++) {
    const base = l * model.dimensions;
    let z = model.bias[l] as number;
    for (const f of features) z += (model.weights[base + f] as number) * x;
    out[l] = sigmoid(z);
  }
  return out;
}
