/**
 * Bedrock models the analysts may use, with their on-demand prices. Money is integer
 * micro-dollars (1 USD = 1,000,000) everywhere in clause-review; prices here are
 * micro-dollars per 1,000 tokens so that cost = ceil(tokens × price / 1000) stays integral.
 */

/** Price of one model, in micro-dollars per 1,000 tokens. */
export interface ModelPrice {
  readonly inputPer1k: number;
  readonly outputPer1k: number;
}

/** Default primary model of the analysts. */
export const PRIMARY_MODEL_ID = 'anthropic.claude-3-haiku-20240307-v1:0';

/** Default fallback after repeated throttling of the primary model (a separate quota). */
export const FALLBACK_MODEL_ID = 'amazon.nova-lite-v1:0';

/**
 * On-demand prices (us-east-1, per 1,000 tokens). Claude 3 Haiku: $0.00025 in, $0.00125 out;
 * Nova Lite: $0.00006 in, $0.00024 out; Nova Micro: $0.000035 in, $0.00014 out.
 */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'anthropic.claude-3-haiku-20240307-v1:0': { inputPer1k: 250, outputPer1k: 1250 },
  'amazon.nova-lite-v1:0': { inputPer1k: 60, outputPer1k: 240 },
  'amazon.nova-micro-v1:0': { inputPer1k: 35, outputPer1k: 140 },
};

/** Raised when a model has no price: spending on an unpriced model could break the cost ceiling. */
export class UnpricedModelError extends Error {
  constructor(readonly modelId: string) {
    super(
      `model '${modelId}' has no entry in the price table (known: ${Object.keys(MODEL_PRICES).join(', ')})`,
    );
    this.name = 'UnpricedModelError';
  }
}

/** The price of a model; throws {@link UnpricedModelError} for an unknown one. */
export function priceOf(
  modelId: string,
  prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES,
): ModelPrice {
  const price = prices[modelId];
  if (!price) throw new UnpricedModelError(modelId);
  return price;
}

/**
 * Cost of a call in micro-dollars, rounded up so that estimates never undershoot.
 *
 * @example
 * costOf(PRIMARY_MODEL_ID, { inputTokens: 1000, outputTokens: 200 }); // 250 + 250 = 500
 */
export function costOf(
  modelId: string,
  usage: { inputTokens: number; outputTokens: number },
  prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES,
): number {
  const p = priceOf(modelId, prices);
  return (
    Math.ceil((usage.inputTokens * p.inputPer1k) / 1000) +
    Math.ceil((usage.outputTokens * p.outputPer1k) / 1000)
  );
}
