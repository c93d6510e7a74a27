/**
 * The stand-in's model catalogue: Bedrock's own view of the models clause-review may call, as
 * of November 2026, independent of the product's configuration. It decides which model ids
 * Converse accepts and how (on demand or only through an inference profile), what the control
 * plane (GetFoundationModel, ListFoundationModels, GetInferenceProfile) reports, and the
 * per-model rules the runtime enforces (prompt-caching minimums, temperature/topP).
 *
 * Sources, per behaviour:
 * - Lifecycle states and the `modelLifecycle` field:
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html and
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_FoundationModelLifecycle.html
 *   (status is ACTIVE | LEGACY on the wire; an end-of-life model is no longer listed at all).
 * - Model details shape: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_FoundationModelDetails.html
 * - Cross-region (system-defined) inference profiles and their routed regions:
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
 * - Prompt-caching minimum tokens per checkpoint and cacheable fields:
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html ("Supported models,
 *   Regions, and limits") and each model card: Claude Haiku 4.5 4,096
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-haiku-4-5.html);
 *   Claude Sonnet 4.5 1,024; Claude Sonnet 4.6 2,048, which the minimum table raised from the
 *   1,024 it first listed (Anthropic's table as reproduced at docs.orq.ai/docs/proxy/prompt-caching,
 *   and the observation in github.com/anthropics/anthropic-sdk-python/issues/1194 that a 1,024-token
 *   prefix was not cached on Sonnet 4.6 while 2,048 was); Claude 3.5 Haiku 2,048; Amazon Nova
 *   Micro/Lite/Pro 1,000 with system and messages only (tools not cacheable), 4 checkpoints per
 *   request. The Nova figure was checked against that page's table as reproduced by
 *   portkey.ai/docs/integrations/llms/bedrock/prompt-caching.
 * - Tool use through Converse: https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html.
 *   The control plane has no field for it (FoundationModelDetails carries modalities,
 *   streaming, customizations and inference types only), so `toolUse` below is the stand-in's
 *   own flag, visible only to code that imports this module; the product keeps its own table.
 *
 * - Claude Sonnet 4.6 (`anthropic.claude-sonnet-4-6`, the first dateless Bedrock id): ACTIVE, launched
 *   2026-02-17, no end-of-life date; served through its `us.`, `eu.` and `global.` profiles, not
 *   on demand in us-east-1 (the Claude model table at
 *   https://platform.claude.com/docs/en/build-with-claude/claude-on-amazon-bedrock lists global,
 *   us, eu and jp profiles; the control plane's ACTIVE state and the profile-only refusal as
 *   reported in github.com/browser-use/browser-use/pull/5448 and
 *   github.com/anomalyco/models.dev/pull/6790). Claude Haiku 4.5: ACTIVE, launched 2025-10-16,
 *   "EOL no sooner than 10/1/2026" on its model card, which is a notice policy, not an
 *   `endOfLifeTime` (the API sets that only once a model is LEGACY). Claude Sonnet 4.5: ACTIVE on
 *   Bedrock as far as we could find; Anthropic retires its own API's Sonnet 4.5 on 2026-11-30,
 *   a date that binds Anthropic-operated platforms only ("Partner-operated platforms (Amazon
 *   Bedrock and Vertex AI) set their own retirement schedules",
 *   https://platform.claude.com/docs/en/about-claude/model-deprecations).
 *
 * Lifecycle choices: Claude 3 Haiku (EOL 2026-09-10) and Claude 3 Sonnet are past end of life.
 * Claude 3.5 Haiku is also treated as end of life: a public report of 2026-08-29
 * (github.com/aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws/issues/708)
 * shows Converse answering it with "This model version has reached the end of its life.", so
 * listing it as a still-served LEGACY model would not be faithful. The LEGACY model still
 * served is Amazon Nova Premier, reported Legacy in the same issue; AWS has published no EOL
 * date for it that we could find, so `endOfLifeTime` is left out (the field is optional in the
 * API). Tests set any lifecycle they need through the plan's `catalogue.lifecycle`.
 */

/** Characters a token of English prose in the Claude 4 generation's tokenizer, and for a model without its own. */
export const DEFAULT_CHARS_PER_TOKEN = 4;

/**
 * Tokens of `chars` characters in a tokenizer of `charsPerToken` characters a token (4 for the
 * Claude 4 generation; Claude Haiku 5.5's counts the same text into about 30 % more).
 */
export const tokensFor = (chars: number, charsPerToken = DEFAULT_CHARS_PER_TOKEN): number =>
  Math.ceil(chars / charsPerToken);

/** How a model may be invoked, as `inferenceTypesSupported` reports it. */
export type InferenceType = 'ON_DEMAND' | 'INFERENCE_PROFILE' | 'PROVISIONED';

/** Lifecycle state. `EOL` never goes on the wire: an end-of-life model simply is not found. */
export type LifecycleStatus = 'ACTIVE' | 'LEGACY' | 'EOL';

/** A model's lifecycle; times are ISO 8601 dates or date-times (UTC). */
export interface ModelLifecycle {
  readonly status: LifecycleStatus;
  readonly startOfLifeTime?: string;
  readonly legacyTime?: string;
  readonly publicExtendedAccessTime?: string;
  readonly endOfLifeTime?: string;
}

/** Geographic prefix of a system-defined cross-region inference profile. */
export type ProfileGeography = 'us' | 'eu' | 'apac' | 'global';

/** Fields a cache checkpoint may be placed in, in Bedrock's prefix order. */
export type CacheField = 'tools' | 'system' | 'messages';

/** Prompt-caching limits of a model that supports explicit cache checkpoints. */
export interface PromptCachingSpec {
  /** Tokens each checkpoint needs since the previous one (the prefix, for the first). */
  readonly minTokensPerCheckpoint: number;
  readonly maxCheckpoints: number;
  readonly fields: readonly CacheField[];
}

/** One foundation model as Bedrock knows it. */
export interface CatalogueModel {
  readonly modelId: string;
  readonly modelName: string;
  readonly providerName: string;
  readonly inputModalities: readonly string[];
  readonly outputModalities: readonly string[];
  readonly responseStreamingSupported: boolean;
  readonly customizationsSupported: readonly string[];
  readonly inferenceTypesSupported: readonly InferenceType[];
  readonly lifecycle: ModelLifecycle;
  /**
   * System-defined inference profiles of this model: geography -> regions the profile routes
   * to. A `global` profile routes to every commercial region; its list is empty and its
   * model ARN has no region.
   */
  readonly profiles: Readonly<Partial<Record<ProfileGeography, readonly string[]>>>;
  /** Converse tool use (toolConfig) is supported. Stand-in only: no API reports it. */
  readonly toolUse: boolean;
  /** Explicit prompt caching (cachePoint blocks); absent when the model rejects them. */
  readonly promptCaching?: PromptCachingSpec;
  /**
   * True when the model refuses `temperature` and `topP` together (Claude 4.5 generation:
   * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html).
   */
  readonly temperatureTopPExclusive: boolean;
  /** True when the model refuses `temperature` and `topP` altogether (Claude Haiku 5.5). */
  readonly samplingRefused?: boolean;
  /**
   * True when the model thinks unless the request turns it off
   * (`additionalModelRequestFields.thinking.type` `disabled`): Claude Haiku 5.5's adaptive thinking.
   */
  readonly thinksByDefault?: boolean;
  /** Characters of English prose a token in the model's tokenizer; {@link DEFAULT_CHARS_PER_TOKEN} when absent. */
  readonly charsPerToken?: number;
  /**
   * Quota tokens each output token costs against tokens per minute: 5 for Claude 3.7 Sonnet and
   * the Claude 4 generation, 1 when absent
   * (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html).
   */
  readonly outputBurndown?: number;
}

/** Default region when a request carries no SigV4 credential scope, and the stand-in's account. */
export const DEFAULT_REGION = 'us-east-1';
export const STAND_IN_ACCOUNT = '123456789012';

/** Geography prefixes, as they start a profile id (`us.`, `eu.`, ...). */
const GEOGRAPHIES: readonly ProfileGeography[] = ['us', 'eu', 'apac', 'global'];

/** A Converse model id resolved against the catalogue. */
export interface ResolvedModel {
  readonly model: CatalogueModel;
  /** Set when the id named a system-defined inference profile (by id or ARN). */
  readonly viaProfile?: { readonly geography: ProfileGeography; readonly profileId: string };
}

const FOUNDATION_MODEL_ARN = /^arn:aws:bedrock:([a-z0-9-]*):(\d{12})?:foundation-model\/(.+)$/;
const PROFILE_ARN = /^arn:aws:bedrock:([a-z0-9-]*):(\d{12}):inference-profile\/(.+)$/;

/** Profile id of a model in a geography, e.g. `us.anthropic.claude-haiku-4-5-20251001-v1:0`. */
export function profileIdOf(modelId: string, geography: ProfileGeography): string {
  return `${geography}.${modelId}`;
}

/** `arn:aws:bedrock:<region>::foundation-model/<id>` (region empty for a global profile's model). */
export function foundationModelArn(region: string, modelId: string): string {
  return `arn:aws:bedrock:${region}::foundation-model/${modelId}`;
}

/** `arn:aws:bedrock:<region>:<account>:inference-profile/<profileId>`. */
export function inferenceProfileArn(region: string, profileId: string, account = STAND_IN_ACCOUNT): string {
  return `arn:aws:bedrock:${region}:${account}:inference-profile/${profileId}`;
}

/** Splits a profile id into geography and model id, if it has a known prefix. */
function splitProfileId(id: string): { geography: ProfileGeography; modelId: string } | undefined {
  const dot = id.indexOf('.');
  if (dot <= 0) return undefined;
  const prefix = id.slice(0, dot) as ProfileGeography;
  if (!GEOGRAPHIES.includes(prefix)) return undefined;
  return { geography: prefix, modelId: id.slice(dot + 1) };
}

/**
 * A catalogue with fast lookup. Pure data: lifecycle overrides and the clock are applied by
 * {@link effectiveLifecycle}, so one instance can be shared.
 */
export class Catalogue {
  private readonly byId: ReadonlyMap<string, CatalogueModel>;

  constructor(readonly models: readonly CatalogueModel[]) {
    this.byId = new Map(models.map((model) => [model.modelId, model]));
  }

  /** The entry of a base model id. */
  model(modelId: string): CatalogueModel | undefined {
    return this.byId.get(modelId);
  }

  /**
   * Resolves a Converse `modelId`: a base model id, a system-defined profile id (`us.x`,
   * `eu.x`, `global.x`), or the ARN of either. Undefined for anything the catalogue does not
   * know, including a profile prefix the model has no profile for. Lifecycle is not checked.
   */
  resolve(modelId: string): ResolvedModel | undefined {
    const foundation = FOUNDATION_MODEL_ARN.exec(modelId);
    if (foundation) {
      const model = this.byId.get(foundation[3] as string);
      return model && { model };
    }
    const profileArn = PROFILE_ARN.exec(modelId);
    const id = profileArn ? (profileArn[3] as string) : modelId;
    const direct = profileArn ? undefined : this.byId.get(id);
    if (direct) return { model: direct };
    const split = splitProfileId(id);
    if (!split) return undefined;
    const model = this.byId.get(split.modelId);
    if (!model || model.profiles[split.geography] === undefined) return undefined;
    return { model, viaProfile: { geography: split.geography, profileId: id } };
  }
}

/** Lifecycle fields a plan may set for a model (see the plan's `catalogue.lifecycle`). */
export interface LifecycleOverride {
  status?: LifecycleStatus;
  legacyTime?: string | null;
  publicExtendedAccessTime?: string | null;
  endOfLifeTime?: string | null;
}

/**
 * A model's lifecycle at `nowMs` (epoch milliseconds), with a plan override merged in: a
 * LEGACY (or ACTIVE) model whose `endOfLifeTime` has passed is EOL, since "any requests made
 * to this version will fail" after that date (model-lifecycle.html).
 */
export function effectiveLifecycle(
  model: CatalogueModel,
  override: LifecycleOverride | undefined,
  nowMs: number,
): ModelLifecycle {
  const merged: Record<string, string | undefined> = { ...model.lifecycle };
  if (override) {
    for (const [key, value] of Object.entries(override)) {
      if (value === null) delete merged[key];
      else if (value !== undefined) merged[key] = value;
    }
  }
  const lifecycle = merged as unknown as ModelLifecycle;
  if (lifecycle.status !== 'EOL' && lifecycle.endOfLifeTime !== undefined) {
    const eol = Date.parse(lifecycle.endOfLifeTime);
    if (Number.isFinite(eol) && eol <= nowMs) return { ...lifecycle, status: 'EOL' };
  }
  return lifecycle;
}
