/**
 * The Bedrock models the analysts may use: how each is invoked, what it costs, and what it
 * accepts. Money is integer micro-dollars (1 USD = 1,000,000) everywhere in clause-review;
 * prices here are micro-dollars per 1,000 tokens so that cost = ceil(tokens × price / 1000)
 * stays integral.
 *
 * Claude 4.5 and 4.6 models on Bedrock are invoked through cross-region inference profiles only:
 * the `us.` / `eu.` id is what Converse receives, and the profile routes each call to one of its
 * regions. IAM must allow the profile and the foundation model in every region it routes to
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html).
 *
 * The prices below are what the `us.` and `eu.` (geographic) profiles cost. From the Claude 4.5
 * generation on, Bedrock prices a geographic profile 10% above the global profile, whose prices
 * are the model's list prices ("approximately 10% savings on both input and output token pricing
 * compared to geographic cross-Region inference",
 * https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html); the
 * cost ceiling is kept against what the call is billed, so the table carries the premium.
 */

/** Price of one model, in micro-dollars per 1,000 tokens. */
export interface ModelPrice {
  readonly inputPer1k: number;
  readonly outputPer1k: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheReadPer1k: number;
  /** Input tokens written to the prompt cache (5-minute entries). */
  readonly cacheWritePer1k: number;
  /**
   * A long prompt's price: a request whose prompt (input, cache reads and cache writes together)
   * is over `aboveTokens` is billed whole at these rates.
   */
  readonly longPrompt?: { readonly aboveTokens: number } & Omit<ModelPrice, 'longPrompt'>;
}

/** One model the pipeline can call. */
export interface ModelSpec {
  /** The id Converse is called with: an inference profile id, or a foundation-model id. */
  readonly id: string;
  /** The foundation model behind it. */
  readonly foundationModelId: string;
  /** Regions a cross-region inference profile routes to; absent for a model invoked in-region. */
  readonly profileRegions?: readonly string[];
  readonly price: ModelPrice;
  /** Fewest tokens a prompt-cache checkpoint must close (per the model card); absent: no caching. */
  readonly cacheMinTokens?: number;
  /** The model refuses `temperature` and `topP` in one request. */
  readonly samplingExclusive: boolean;
  /** The model refuses `temperature` (and `topP`) altogether: the request leaves them out. */
  readonly samplingRefused?: boolean;
  /**
   * The model thinks unless told not to. A forced tool call cannot be combined with thinking, so
   * the request turns it off (`additionalModelRequestFields.thinking`).
   */
  readonly thinksByDefault?: boolean;
  /**
   * Characters of English prose per token in the model's tokenizer: 4 for the Claude 4
   * generation, about 3.1 for Claude Haiku 5.5, whose tokenizer counts the same text into about
   * 30 % more tokens.
   */
  readonly charsPerToken: number;
  /**
   * Quota tokens one output token costs against the model's tokens per minute once the call
   * ends: 5 for Claude 3.7 Sonnet and the Claude 4 generation, 1 for most others
   * (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html).
   */
  readonly outputBurndown: number;
}

const US = ['us-east-1', 'us-east-2', 'us-west-2'] as const;
const EU = ['eu-central-1', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-3'] as const;

/**
 * A list price per million tokens with the geographic profile's 10% on top, per 1,000 tokens in
 * µ$, to a tenth of a µ$ ($0.125 a million is 137.5 µ$ per 1,000 through `us.`); a call's cost is
 * still rounded up to a whole µ$.
 */
const geographic = (usdPerMillion: number): number => Math.round(usdPerMillion * 11_000) / 10;

/**
 * Claude Haiku 4.5: ACTIVE, "EOL no sooner than 10/1/2026" on its card (read 2026-12-01: the date
 * has passed, no end-of-life date is set; `doctor` reads the live lifecycle); list prices $1 in, $5
 * out, $1.25 cache write, $0.10 cache read per million tokens (through `us.`/`eu.`: $1.10,
 * $5.50, $1.375, $0.11); cache checkpoints of at least 4,096 tokens
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-haiku-4-5.html,
 * https://aws.amazon.com/bedrock/pricing/).
 */
const HAIKU_4_5 = {
  foundationModelId: 'anthropic.claude-haiku-4-5-20251001-v1:0',
  price: {
    inputPer1k: geographic(1),
    outputPer1k: geographic(5),
    cacheReadPer1k: geographic(0.1),
    cacheWritePer1k: geographic(1.25),
  },
  cacheMinTokens: 4096,
  samplingExclusive: true,
  outputBurndown: 5,
  charsPerToken: 4,
} as const;

/**
 * Claude Sonnet 4.5: ACTIVE on Bedrock (Anthropic retires its own API's Sonnet 4.5 on 2026-11-30,
 * a date Bedrock does not follow); list prices $3 in, $15 out, $3.75 cache write, $0.30 cache read
 * per million tokens (through `us.`/`eu.`: $3.30, $16.50, $4.125, $0.33); cache checkpoints of at
 * least 1,024 tokens
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-sonnet-4-5.html).
 * Priced so that stacks deployed with it keep working; no longer a default.
 */
const SONNET_4_5 = {
  foundationModelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  price: {
    inputPer1k: geographic(3),
    outputPer1k: geographic(15),
    cacheReadPer1k: geographic(0.3),
    cacheWritePer1k: geographic(3.75),
  },
  cacheMinTokens: 1024,
  samplingExclusive: true,
  outputBurndown: 5,
  charsPerToken: 4,
} as const;

/**
 * Claude Sonnet 4.6: ACTIVE, launched 2026-02-17, no end-of-life date; the first dateless
 * Bedrock id (`anthropic.claude-sonnet-4-6`, profiles `us.`, `eu.`, `global.`); the same prices
 * as Sonnet 4.5, geographic premium included; cache checkpoints of at least 2,048 tokens, twice Sonnet 4.5's
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-sonnet-4-6.html,
 * https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html).
 */
const SONNET_4_6 = {
  foundationModelId: 'anthropic.claude-sonnet-4-6',
  price: {
    inputPer1k: geographic(3),
    outputPer1k: geographic(15),
    cacheReadPer1k: geographic(0.3),
    cacheWritePer1k: geographic(3.75),
  },
  cacheMinTokens: 2048,
  samplingExclusive: true,
  outputBurndown: 5,
  charsPerToken: 4,
} as const;

/**
 * Claude Haiku 5.5: Anthropic's current Haiku, released 2026-10-07 ("Latest" on
 * https://platform.claude.com/docs/en/models/haiku-5-5/overview, where Haiku 4.5 is now "Legacy …
 * consider migrating to Claude Haiku 5.5"). Bedrock serves it as `anthropic.claude-haiku-5-5`
 * (Anthropic's migration guide, "Use the Claude Haiku 5.5 model ID": Amazon Bedrock
 * `anthropic.claude-haiku-5-5`, https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide)
 * through its `global.`, `us.`, `eu.`, `au.` and `jp.` profiles only, ACTIVE with EOL no sooner
 * than 2027-10-07 (model card:
 * https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-haiku-5-5.html).
 * List prices per million tokens for prompts up to 100,000 tokens: $0.10 in, $0.50 out, $0.125
 * cache write (5 minutes), $0.01 cache read; a longer prompt is billed whole at $0.50, $2.50,
 * $0.625 and $0.05 (the overview's pricing block); through `us.`/`eu.` 10% more. Cache checkpoints
 * of at least 512 tokens. The migration guide's checklist: no `temperature`, `top_p` or `top_k`;
 * adaptive thinking on unless disabled; about 30% more tokens for the same text.
 */
const HAIKU_5_5 = {
  foundationModelId: 'anthropic.claude-haiku-5-5',
  price: {
    inputPer1k: geographic(0.1),
    outputPer1k: geographic(0.5),
    cacheReadPer1k: geographic(0.01),
    cacheWritePer1k: geographic(0.125),
    longPrompt: {
      aboveTokens: 100_000,
      inputPer1k: geographic(0.5),
      outputPer1k: geographic(2.5),
      cacheReadPer1k: geographic(0.05),
      cacheWritePer1k: geographic(0.625),
    },
  },
  cacheMinTokens: 512,
  samplingExclusive: true,
  samplingRefused: true,
  thinksByDefault: true,
  outputBurndown: 5,
  charsPerToken: 4 / 1.3,
} as const;

/** Every model with a price, by the id Converse is called with. */
export const MODELS: Readonly<Record<string, ModelSpec>> = Object.fromEntries(
  [
    { id: 'us.anthropic.claude-haiku-5-5', profileRegions: US, ...HAIKU_5_5 },
    { id: 'eu.anthropic.claude-haiku-5-5', profileRegions: EU, ...HAIKU_5_5 },
    { id: 'us.anthropic.claude-haiku-4-5-20251001-v1:0', profileRegions: US, ...HAIKU_4_5 },
    { id: 'eu.anthropic.claude-haiku-4-5-20251001-v1:0', profileRegions: EU, ...HAIKU_4_5 },
    { id: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', profileRegions: US, ...SONNET_4_5 },
    { id: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0', profileRegions: EU, ...SONNET_4_5 },
    { id: 'us.anthropic.claude-sonnet-4-6', profileRegions: US, ...SONNET_4_6 },
    { id: 'eu.anthropic.claude-sonnet-4-6', profileRegions: EU, ...SONNET_4_6 },
  ].map((m) => [m.id, m]),
);

/**
 * Default primary model of the analysts: Claude Haiku 5.5 through the US cross-region profile,
 * the current Haiku, which calls tools reliably at a tenth of Haiku 4.5's price: a contract's
 * thousands of calls cost cents, not dollars.
 */
export const PRIMARY_MODEL_ID = 'us.anthropic.claude-haiku-5-5';

/**
 * Default fallback after repeated throttling of the primary: Claude Sonnet 4.6, the newest ACTIVE
 * Sonnet, a separate per-model quota with the same tool-use behaviour. Per token it costs thirty
 * times the primary, Claude Haiku 5.5 (three times Haiku 4.5, the primary before): a fallback
 * decision weighs that, and the budget reserves its price for the calls that use it.
 */
export const FALLBACK_MODEL_ID = 'us.anthropic.claude-sonnet-4-6';

/** Prices by model id, as the worker's cost accounting reads them. */
export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = Object.fromEntries(
  Object.values(MODELS).map((m) => [m.id, m.price]),
);

/** Raised when a model has no price: spending on an unpriced model could break the cost ceiling. */
export class UnpricedModelError extends Error {
  override readonly name = 'UnpricedModelError';
  constructor(readonly modelId: string) {
    super(
      `model '${modelId}' has no entry in the price table, so its cost cannot be kept under the ceiling (priced: ${Object.keys(MODEL_PRICES).join(', ')})`,
    );
  }
}

/** The model with this id; throws {@link UnpricedModelError} for one without a price. */
export function modelSpec(modelId: string): ModelSpec {
  const spec = MODELS[modelId];
  if (!spec) throw new UnpricedModelError(modelId);
  return spec;
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

/** Tokens of one answered call as Bedrock bills them; `inputTokens` excludes cached tokens. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/**
 * Cost of a call in micro-dollars, each part rounded up so that estimates never undershoot; a
 * prompt over the model's long-prompt threshold is priced whole at its long-prompt rates.
 *
 * @example
 * costOf(PRIMARY_MODEL_ID, { inputTokens: 1000, outputTokens: 200 }); // 110 + 110 = 220
 */
export function costOf(
  modelId: string,
  usage: TokenUsage,
  prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES,
): number {
  const listed = priceOf(modelId, prices);
  const prompt = usage.inputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
  const p = listed.longPrompt && prompt > listed.longPrompt.aboveTokens ? listed.longPrompt : listed;
  const part = (tokens: number | undefined, per1k: number) => Math.ceil(((tokens ?? 0) * per1k) / 1000);
  return (
    part(usage.inputTokens, p.inputPer1k) +
    part(usage.outputTokens, p.outputPer1k) +
    part(usage.cacheReadInputTokens, p.cacheReadPer1k) +
    part(usage.cacheWriteInputTokens, p.cacheWritePer1k)
  );
}

/**
 * What the totals of many calls cost, each call's prompt under the model's long-prompt threshold
 * (as every analyst call's is: a clause and the document context come to a few thousand tokens).
 * {@link costOf} prices one call, whose prompt decides the rates; summed tokens would cross the
 * threshold that no single call does.
 */
export function costOfTotals(
  modelId: string,
  usage: TokenUsage,
  prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES,
): number {
  const { longPrompt: _perCall, ...standard } = priceOf(modelId, prices);
  return costOf(modelId, usage, { [modelId]: standard });
}

/**
 * The tokens `chars` characters of English prose come to in the model's tokenizer, as the
 * estimates count them; a model without an entry is taken at four characters a token.
 */
export function tokensOf(modelId: string, chars: number): number {
  return Math.ceil(chars / charsPerTokenOf(modelId));
}

/** Characters a token in the model's tokenizer; four for a model without an entry. */
export function charsPerTokenOf(modelId: string): number {
  return MODELS[modelId]?.charsPerToken ?? 4;
}

/**
 * Tokens one answered call leaves counted against its model's tokens per minute: input, cache
 * writes, and output at the model's burndown rate; cache reads are not among them. At the start
 * of a request Bedrock reserves every input token plus `maxTokens`, and corrects the
 * reservation to this figure when the call ends
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html). A model
 * without an entry is taken at a burndown of 1.
 */
export function quotaTokens(modelId: string, usage: TokenUsage): number {
  const burndown = MODELS[modelId]?.outputBurndown ?? 1;
  return usage.inputTokens + (usage.cacheWriteInputTokens ?? 0) + usage.outputTokens * burndown;
}
