/**
 * The fault plan: which failures the stand-in injects, how fast it answers and how much
 * capacity it pretends to have. Plans arrive over HTTP from tests and benchmarks, so every
 * patch is validated with zod and rejected with a readable reason instead of half-applied.
 */
import { z } from 'zod';
import { guardOf } from '../../lambdas/core/error-guard.js';
import type { LifecycleOverride } from './catalogue.js';
import { BEDROCK_ERROR_NAMES, type BedrockErrorName } from './errors.js';
import type { LatencySpec } from './latency.js';

/** Kinds of malformed answers the stand-in can produce. */
export type MalformedKind = 'invalidJson' | 'schemaViolation' | 'badQuote';

/** Fixed order used to turn one uniform draw into a malformed kind. */
export const MALFORMED_KINDS: readonly MalformedKind[] = ['invalidJson', 'schemaViolation', 'badQuote'];

/**
 * Stop reasons the plan can force on an answered call, in the fixed order used to turn one
 * uniform draw into a reason. Values are Converse `stopReason` strings.
 */
export type PlannedStopReason = 'refusal' | 'max_tokens' | 'content_filtered' | 'guardrail_intervened';

/** Fixed order of {@link PlannedStopReason} for the draw. */
export const PLANNED_STOP_REASONS: readonly PlannedStopReason[] = [
  'refusal',
  'max_tokens',
  'content_filtered',
  'guardrail_intervened',
];

/** Probability per answered call of each forced stop reason (sum at most 1). */
export type StopReasonPlan = Partial<Record<PlannedStopReason, number>>;

/**
 * How the stand-in applies its model catalogue (see catalogue.ts). Global only: the catalogue
 * is Bedrock's, not a model's.
 */
export interface CataloguePlan {
  /**
   * Refuse at Converse what Bedrock refuses: unknown ids, end-of-life models, base ids of
   * profile-only models, temperature with topP where the model forbids it, cachePoint on
   * models without prompt caching. On by default, as Bedrock is; a test of something else may
   * turn it off with `setPlan({ catalogue: { enforce: false } })`.
   */
  enforce: boolean;
  /** Lifecycle overrides by base model id, merged over the catalogue's own lifecycle. */
  lifecycle: Record<string, LifecycleOverride>;
  /**
   * Request shapes a model refuses, by base model id, beside its own rules (model-rules.ts):
   * what an account where Bedrock serves the model otherwise would answer, for `doctor --local`
   * and tests to see a refusal named and its fix.
   */
  refuse?: Record<string, RefusedShape[]>;
}

/** A request shape a plan can have a model refuse (see {@link CataloguePlan.refuse}). */
export type RefusedShape = 'forced-tool' | 'cache-point';

/** Every {@link RefusedShape}. */
export const REFUSED_SHAPES: readonly RefusedShape[] = ['forced-tool', 'cache-point'];

/** Capacity limits; absent means unlimited. Enforced per model id, as Bedrock quotas are. */
export interface CapacityPlan {
  /** Requests being processed at once (including latency and hang waits). */
  maxInFlight?: number;
  /** Requests admitted in any sliding 60 s window. */
  requestsPerMinute?: number;
  /**
   * Quota tokens admitted in any sliding 60 s window: input plus `maxTokens` reserved at
   * admission, corrected to input, cache writes and output times the model's burndown.
   */
  tokensPerMinute?: number;
}

/** Probability per answered call of each malformed kind (at most one kind per call). */
export type MalformedPlan = Partial<Record<MalformedKind, number>>;

/** Accept a request and never answer it, or answer only after `ms`. */
export interface HangPlan {
  probability: number;
  ms?: number;
}

/**
 * Answers billed at the model and delivered `ms` late, as a reply held up on its way back (a
 * congested network, a client too busy to read it): a client whose timeout comes first has
 * given up on an answer it was billed for.
 */
export interface LateAnswerPlan {
  probability: number;
  ms: number;
}

/** Every plan setting except per-model overrides. */
export interface FaultPlanCore {
  /** Probability per call of each injected error; the sum must not exceed 1. */
  errorRates: Partial<Record<BedrockErrorName, number>>;
  capacity: CapacityPlan;
  latency: LatencySpec;
  malformed: MalformedPlan;
  hang: HangPlan;
  lateAnswer: LateAnswerPlan;
  stopReasons: StopReasonPlan;
}

/** The whole plan: global settings plus optional per-model overrides merged over them. */
export interface FaultPlan extends FaultPlanCore {
  modelOverrides?: Record<string, FaultPlanCorePatch>;
  catalogue: CataloguePlan;
}

/** The plan a fresh stand-in starts with: no faults, no latency, unlimited capacity. */
export const DEFAULT_FAULT_PLAN: Readonly<FaultPlan> = Object.freeze<FaultPlan>({
  errorRates: {},
  capacity: {},
  latency: { kind: 'fixed', ms: 0 },
  malformed: {},
  hang: { probability: 0 },
  lateAnswer: { probability: 0, ms: 0 },
  stopReasons: {},
  modelOverrides: {},
  catalogue: { enforce: true, lifecycle: {}, refuse: {} },
});

const probability = z.number().min(0).max(1);
const nonNegative = z.number().finite().min(0);
const scale = nonNegative.optional();

const latencySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('fixed'), ms: nonNegative, scale }),
  z
    .strictObject({ kind: z.literal('uniform'), minMs: nonNegative, maxMs: nonNegative, scale })
    .refine((l) => l.minMs <= l.maxMs, { message: 'latency.minMs must not exceed latency.maxMs' }),
  z.strictObject({ kind: z.literal('lognormal'), medianMs: nonNegative, sigma: nonNegative, scale }),
]);

const errorRatesSchema = z.strictObject(
  Object.fromEntries(BEDROCK_ERROR_NAMES.map((name) => [name, probability.optional()])) as Record<
    BedrockErrorName,
    z.ZodOptional<typeof probability>
  >,
);

// null clears a limit, so a patch can lift capacity limits it set earlier.
const limit = z.number().int().positive().nullable().optional();

const corePatchShape = {
  errorRates: errorRatesSchema.optional(),
  capacity: z
    .strictObject({ maxInFlight: limit, requestsPerMinute: limit, tokensPerMinute: limit })
    .optional(),
  latency: latencySchema.optional(),
  malformed: z
    .strictObject({
      invalidJson: probability.optional(),
      schemaViolation: probability.optional(),
      badQuote: probability.optional(),
    })
    .optional(),
  hang: z
    .strictObject({ probability: probability.optional(), ms: z.number().int().min(0).nullable().optional() })
    .optional(),
  lateAnswer: z
    .strictObject({ probability: probability.optional(), ms: z.number().int().min(0).optional() })
    .optional(),
  stopReasons: z
    .strictObject(
      Object.fromEntries(PLANNED_STOP_REASONS.map((reason) => [reason, probability.optional()])) as Record<
        PlannedStopReason,
        z.ZodOptional<typeof probability>
      >,
    )
    .optional(),
};

// An ISO 8601 date or date-time; null removes the field from the catalogue's lifecycle.
const lifecycleTime = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}/.test(value) && Number.isFinite(Date.parse(value)), {
    message: 'must be an ISO 8601 date or date-time',
  })
  .nullable()
  .optional();

const lifecycleOverrideSchema = z.strictObject({
  status: z.enum(['ACTIVE', 'LEGACY', 'EOL']).optional(),
  legacyTime: lifecycleTime,
  publicExtendedAccessTime: lifecycleTime,
  endOfLifeTime: lifecycleTime,
});

const cataloguePatchSchema = z.strictObject({
  enforce: z.boolean().optional(),
  // null removes one model's override.
  lifecycle: z.record(z.string().min(1), lifecycleOverrideSchema.nullable()).optional(),
  // A model's shapes replace its earlier ones; null (or an empty list) refuses none again.
  refuse: z
    .record(
      z.string().min(1),
      z.array(z.enum(REFUSED_SHAPES as [RefusedShape, ...RefusedShape[]])).nullable(),
    )
    .optional(),
});

const corePatchSchema = z.strictObject(corePatchShape);

const planPatchSchema = z.strictObject({
  ...corePatchShape,
  // null removes one model's override.
  modelOverrides: z.record(z.string().min(1), corePatchSchema.nullable()).optional(),
  catalogue: cataloguePatchSchema.optional(),
});

/** A partial plan for one model; fields merge over the global plan. */
export type FaultPlanCorePatch = z.infer<typeof corePatchSchema>;

/**
 * A partial plan as accepted by `setPlan` and `PUT /_stand-in/plan`. Sections merge field by
 * field (`errorRates`, `capacity`, `malformed`, `hang`, `stopReasons`), `latency` is replaced
 * whole, `modelOverrides` merge per model id, `catalogue.lifecycle` merges per model id and
 * field, `catalogue.refuse` replaces a model's refused shapes; `null` clears a capacity limit, a
 * hang duration, a model's override, a model's lifecycle override or its refused shapes; a `null` lifecycle field (e.g. `endOfLifeTime: null`) removes that field
 * from the catalogue's lifecycle.
 */
export type FaultPlanPatch = z.infer<typeof planPatchSchema>;

/** A plan or patch that does not validate; `message` says why (with the offending path). */
export class FaultPlanError extends Error {
  override readonly name = 'FaultPlanError';
}

/** Type guard for {@link FaultPlanError}, e.g. to answer 400 rather than 500. */
export const isFaultPlanError = guardOf(FaultPlanError);

/** Validates untrusted input (e.g. an HTTP body) as a plan patch. */
export function parseFaultPlanPatch(input: unknown): FaultPlanPatch {
  const result = planPatchSchema.safeParse(input);
  if (!result.success) throw new FaultPlanError(z.prettifyError(result.error), { cause: result.error });
  return result.data;
}

function mergeCore(base: FaultPlanCore, patch: FaultPlanCorePatch): FaultPlanCore {
  const capacity: CapacityPlan = { ...base.capacity };
  for (const key of ['maxInFlight', 'requestsPerMinute', 'tokensPerMinute'] as const) {
    const value = patch.capacity?.[key];
    if (value === null) delete capacity[key];
    else if (value !== undefined) capacity[key] = value;
  }
  const hang: HangPlan = { ...base.hang };
  if (patch.hang?.probability !== undefined) hang.probability = patch.hang.probability;
  if (patch.hang?.ms === null) delete hang.ms;
  else if (patch.hang?.ms !== undefined) hang.ms = patch.hang.ms;
  return {
    errorRates: { ...base.errorRates, ...stripUndefined(patch.errorRates) },
    capacity,
    latency: patch.latency ? { ...patch.latency } : base.latency,
    malformed: { ...base.malformed, ...stripUndefined(patch.malformed) },
    hang,
    lateAnswer: { ...base.lateAnswer, ...stripUndefined(patch.lateAnswer) },
    stopReasons: { ...base.stopReasons, ...stripUndefined(patch.stopReasons) },
  };
}

function mergeCatalogue(base: CataloguePlan, patch: FaultPlanPatch['catalogue']): CataloguePlan {
  const lifecycle: Record<string, LifecycleOverride> = { ...base.lifecycle };
  for (const [modelId, override] of Object.entries(patch?.lifecycle ?? {})) {
    if (override === null) {
      delete lifecycle[modelId];
      continue;
    }
    // A null field stays in the override: it clears that field of the catalogue's lifecycle.
    lifecycle[modelId] = { ...lifecycle[modelId], ...stripUndefined(override) } as LifecycleOverride;
  }
  const refuse: Record<string, RefusedShape[]> = { ...base.refuse };
  for (const [modelId, shapes] of Object.entries(patch?.refuse ?? {})) {
    if (shapes === null || shapes.length === 0) delete refuse[modelId];
    else refuse[modelId] = [...new Set(shapes)];
  }
  return { enforce: patch?.enforce ?? base.enforce, lifecycle, refuse };
}

function stripUndefined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function checkSums(plan: FaultPlanCore, where: string): void {
  const errorSum = Object.values(plan.errorRates).reduce((sum, rate) => sum + (rate ?? 0), 0);
  if (errorSum > 1 + 1e-9) {
    throw new FaultPlanError(`${where}errorRates must sum to at most 1 (got ${errorSum})`);
  }
  const malformedSum = Object.values(plan.malformed).reduce((sum, rate) => sum + (rate ?? 0), 0);
  if (malformedSum > 1 + 1e-9) {
    throw new FaultPlanError(`${where}malformed rates must sum to at most 1 (got ${malformedSum})`);
  }
  const stopSum = Object.values(plan.stopReasons).reduce((sum, rate) => sum + (rate ?? 0), 0);
  if (stopSum > 1 + 1e-9) {
    throw new FaultPlanError(`${where}stopReasons rates must sum to at most 1 (got ${stopSum})`);
  }
}

/**
 * Applies a (validated or typed) patch to a plan and returns the new plan; the input plan is
 * not modified. Throws `FaultPlanError` when the result is inconsistent, e.g. error rates that
 * sum above 1 for some model.
 */
export function mergeFaultPlan(base: FaultPlan, patch: FaultPlanPatch): FaultPlan {
  const overrides: Record<string, FaultPlanCorePatch> = { ...base.modelOverrides };
  for (const [modelId, override] of Object.entries(patch.modelOverrides ?? {})) {
    if (override === null) delete overrides[modelId];
    else overrides[modelId] = override;
  }
  const merged: FaultPlan = {
    ...mergeCore(base, patch),
    modelOverrides: overrides,
    catalogue: mergeCatalogue(base.catalogue ?? DEFAULT_FAULT_PLAN.catalogue, patch.catalogue),
  };
  checkSums(merged, '');
  for (const modelId of Object.keys(overrides)) {
    checkSums(resolveModelPlan(merged, modelId), `modelOverrides[${JSON.stringify(modelId)}]: `);
  }
  return merged;
}

/** The settings that apply to calls for one model: the global plan with its override merged in. */
export function resolveModelPlan(plan: FaultPlan, modelId: string): FaultPlanCore {
  const override = plan.modelOverrides?.[modelId];
  return override ? mergeCore(plan, override) : plan;
}
