/**
 * The weights of the learned classifier as stored: the feature strings, and per label its bias,
 * decision threshold and sparse weights (feature id deltas as varints, each weight an int8 times
 * the label's scale), base64-encoded. Written by the training script, read by intake's relevance
 * screen and by the stand-in's learned analyst.
 */

/** One label's weights as stored. */
export interface StoredLabel {
  /** A risk category id, or a CUAD category name in lower case. */
  readonly name: string;
  readonly kind: 'risk' | 'cuad';
  readonly bias: number;
  /** Probability at or above which the label is taken as present. */
  readonly threshold: number;
  readonly scale: number;
  /** Base64 of (varint id delta, int8 weight) pairs. */
  readonly weights: string;
}

/**
 * The relevance screen's thresholds, beside the weights: per risk category, the probability at or
 * above which a clause may concern it, chosen on the training set's cross-validation so that at
 * least `recallTarget` of the category's labelled clauses reach it.
 */
export interface StoredScreen {
  readonly recallTarget: number;
  /** Risk category id -> threshold. */
  readonly thresholds: Readonly<Record<string, number>>;
  /** How the thresholds did on the cross-validation's out-of-fold probabilities. */
  readonly crossValidation: Readonly<Record<string, unknown>>;
}

/** The whole file. */
export interface StoredModel {
  readonly format: 'clause-review-offline-analyst/1';
  /** What the weights were trained on and how they scored (shown by docs and the bench). */
  readonly training: Readonly<Record<string, unknown>>;
  readonly features: readonly string[];
  readonly labels: readonly StoredLabel[];
  /** The relevance screen's thresholds; absent in weights trained before the screen. */
  readonly screen?: StoredScreen;
}

/** A label's weights unpacked: feature id -> weight. */
export interface DenseLabel {
  readonly name: string;
  readonly kind: 'risk' | 'cuad';
  readonly bias: number;
  readonly threshold: number;
  readonly weights: Float32Array;
}

/** Packs one label's weights, dropping those smaller than `minWeight` in magnitude. */
export function packWeights(
  weights: Float32Array,
  minWeight: number,
): { scale: number; weights: string; kept: number[] } {
  let max = 0;
  for (const w of weights) max = Math.max(max, Math.abs(w));
  const scale = max / 127 || 1;
  const bytes: number[] = [];
  const kept: number[] = [];
  let last = 0;
  for (let f = 0; f < weights.length; f++) {
    const w = weights[f] as number;
    const q = Math.round(w / scale);
    if (Math.abs(w) < minWeight || q === 0) continue;
    let delta = f - last;
    last = f;
    while (delta >= 0x80) {
      bytes.push((delta & 0x7f) | 0x80);
      delta >>>= 7;
    }
    bytes.push(delta);
    bytes.push(q & 0xff);
    kept.push(f);
  }
  return { scale, weights: Buffer.from(bytes).toString('base64'), kept };
}

/** Unpacks one label's weights into a dense array over `dimensions` features. */
export function unpackWeights(label: StoredLabel, dimensions: number): Float32Array {
  const out = new Float32Array(dimensions);
  const bytes = Buffer.from(label.weights, 'base64');
  let f = 0;
  let i = 0;
  while (i < bytes.length) {
    let delta = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[i++] as number;
      delta |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    f += delta;
    const q = bytes[i++] as number;
    out[f] = (q > 127 ? q - 256 : q) * label.scale;
  }
  return out;
}
