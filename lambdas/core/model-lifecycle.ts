/**
 * The model lifecycle guard: asks Bedrock's control plane whether each configured model can be
 * called in this account and region, before any money or time is spent on it.
 *
 * Bedrock retires models on a schedule: a model goes ACTIVE → LEGACY (with an end-of-life
 * date) → end of life, after which "any requests made to this version will fail" and the model
 * is no longer listed (https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html).
 * A deployment pinned to a retired model fails every call, so intake refuses such a job, the
 * CLI refuses to upload it, workers log the finding once per cold start, and `doctor` says what
 * to do.
 */
import {
  type BedrockClient,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
} from '@aws-sdk/client-bedrock';
import { MODELS, PRIMARY_MODEL_ID } from './model-catalogue.js';

/** What the guard found about one model. */
export type LifecycleState = 'ACTIVE' | 'LEGACY' | 'END_OF_LIFE' | 'INACCESSIBLE' | 'UNSUPPORTED';

/** One model's verdict: its state, and a sentence a person can act on. */
export interface ModelVerdict {
  readonly modelId: string;
  readonly state: LifecycleState;
  /** `error` blocks a job; `warning` does not. */
  readonly level: 'ok' | 'warning' | 'error';
  readonly endOfLifeTime?: string;
  readonly message: string;
}

const GEOGRAPHY = /^(us|eu|apac|jp|au|ca|us-gov|global)\./;

/** The foundation model behind an id: the price table's, else the id without a geography prefix. */
export function foundationModelOf(modelId: string): string {
  return MODELS[modelId]?.foundationModelId ?? modelId.replace(GEOGRAPHY, '');
}

const nameOf = (error: unknown) => (error as { name?: string }).name ?? 'Error';
const messageOf = (error: unknown) => (error as Error).message ?? String(error);

function replacementFor(modelId: string): string {
  return modelId === PRIMARY_MODEL_ID
    ? 'choose another model from the Bedrock model catalogue and add its prices to lambdas/core/model-catalogue.ts'
    : `use an active model such as '${PRIMARY_MODEL_ID}' (the default primary)`;
}

function denied(modelId: string, region: string, error: unknown): ModelVerdict {
  return {
    modelId,
    state: 'INACCESSIBLE',
    level: 'error',
    message: `'${modelId}' is not accessible in ${region}: ${nameOf(error)}: ${messageOf(error)}. Enable access to the model in the Bedrock console (Model access), or ${replacementFor(modelId)}`,
  };
}

/**
 * Checks one model: the inference profile (for a profile id), then the foundation model's
 * lifecycle and inference types. Never throws for what Bedrock answers about the model; an
 * unreachable control plane throws.
 */
export async function checkModel(
  bedrock: BedrockClient,
  modelId: string,
  region: string,
): Promise<ModelVerdict> {
  const foundationId = foundationModelOf(modelId);
  const viaProfile = GEOGRAPHY.test(modelId);
  if (viaProfile) {
    try {
      await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: modelId }));
    } catch (error) {
      if (nameOf(error) === 'AccessDeniedException') return denied(modelId, region, error);
      if (nameOf(error) !== 'ResourceNotFoundException') throw error;
      return {
        modelId,
        state: 'END_OF_LIFE',
        level: 'error',
        message: `'${modelId}' has reached end of life or is not offered in ${region}: Bedrock has no such inference profile. ${capitalise(replacementFor(modelId))}`,
      };
    }
  }
  let details: {
    inferenceTypesSupported?: string[];
    modelLifecycle?: { status?: string; endOfLifeTime?: Date | string };
  };
  try {
    const r = await bedrock.send(new GetFoundationModelCommand({ modelIdentifier: foundationId }));
    details = r.modelDetails ?? {};
  } catch (error) {
    if (nameOf(error) === 'AccessDeniedException') return denied(modelId, region, error);
    if (nameOf(error) !== 'ResourceNotFoundException' && nameOf(error) !== 'ValidationException') throw error;
    return {
      modelId,
      state: 'END_OF_LIFE',
      level: 'error',
      message: `'${modelId}' has reached end of life (Bedrock no longer serves ${foundationId} in ${region}), so every call to it would fail. ${capitalise(replacementFor(modelId))}`,
    };
  }
  if (!viaProfile && !details.inferenceTypesSupported?.includes('ON_DEMAND')) {
    return {
      modelId,
      state: 'UNSUPPORTED',
      level: 'error',
      message: `'${modelId}' is served only through inference profiles; use a profile id such as 'us.${modelId}' or 'eu.${modelId}'`,
    };
  }
  if (!MODELS[modelId]) {
    return {
      modelId,
      state: 'UNSUPPORTED',
      level: 'error',
      message: `'${modelId}' is not in the price table of models known to support Converse with tool use; add it with its prices to lambdas/core/model-catalogue.ts`,
    };
  }
  const eol = details.modelLifecycle?.endOfLifeTime;
  const endOfLifeTime = eol ? new Date(eol).toISOString().slice(0, 10) : undefined;
  if (details.modelLifecycle?.status === 'LEGACY') {
    return {
      modelId,
      state: 'LEGACY',
      level: 'warning',
      ...(endOfLifeTime ? { endOfLifeTime } : {}),
      message: `'${modelId}' is LEGACY${endOfLifeTime ? ` and reaches end of life on ${endOfLifeTime}` : ''}; plan a move: ${replacementFor(modelId)}`,
    };
  }
  return { modelId, state: 'ACTIVE', level: 'ok', message: `'${modelId}' is ACTIVE in ${region}` };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Checks every model, in order. */
export async function checkModels(
  bedrock: BedrockClient,
  modelIds: readonly string[],
  region: string,
): Promise<ModelVerdict[]> {
  return Promise.all(modelIds.map((id) => checkModel(bedrock, id, region)));
}

/**
 * The guard as a process keeps it: each model checked once, its verdict remembered for
 * `ttlMs`, so a warm intake function asks the control plane once per model, not per upload.
 */
export class LifecycleGuard {
  private readonly seen = new Map<string, { at: number; verdict: Promise<ModelVerdict> }>();

  constructor(
    private readonly bedrock: BedrockClient,
    /** The region, for messages; a function so that the SDK's own resolution can supply it. */
    private readonly region: string | (() => Promise<string>),
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The verdicts of these models, from memory when fresh. */
  check(modelIds: readonly string[]): Promise<ModelVerdict[]> {
    return Promise.all(
      modelIds.map((id) => {
        const hit = this.seen.get(id);
        if (hit && this.now() - hit.at < this.ttlMs) return hit.verdict;
        const region = this.region;
        const verdict = (typeof region === 'string' ? Promise.resolve(region) : region()).then((r) =>
          checkModel(this.bedrock, id, r),
        );
        this.seen.set(id, { at: this.now(), verdict });
        verdict.catch(() => this.seen.delete(id));
        return verdict;
      }),
    );
  }
}

/** The verdicts that block a job, as one sentence; undefined when none does. */
export function blockingReason(verdicts: readonly ModelVerdict[]): string | undefined {
  const errors = verdicts.filter((v) => v.level === 'error');
  return errors.length > 0 ? errors.map((v) => v.message).join('; ') : undefined;
}
