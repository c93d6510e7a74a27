/**
 * What the stand-in checks of a Converse call before anything is drawn or admitted, as Bedrock
 * does: the model id (decoded, then against the catalogue and its lifecycle), the body, and the
 * request against the model's rules (model-rules.ts), with the request shapes a plan tells it to
 * refuse for a model (`catalogue.refuse`).
 */
import type { Catalogue, CatalogueModel, ModelLifecycle, ResolvedModel } from './catalogue.js';
import { type ConverseRequest, parseConverseRequest } from './converse-request.js';
import { MODEL_MESSAGES } from './errors.js';
import type { CataloguePlan } from './fault-plan.js';
import { type Refusal, refuseRequest } from './model-rules.js';
import { hasCachePoints } from './prompt-cache.js';

/** What the checks read: the caller's region, the catalogue and the plan's part of it. */
export interface RequestCheckContext {
  readonly region: string;
  readonly catalogue: Catalogue;
  readonly plan: CataloguePlan;
  /** A model's lifecycle as the plan overrides it at this moment. */
  readonly lifecycleOf: (model: CatalogueModel) => ModelLifecycle;
}

/** A call's checks: the request to answer, or the refusal Bedrock would give. */
export type CheckedRequest =
  | { readonly ok: false; readonly modelId: string; readonly refusal: Refusal }
  | {
      readonly ok: true;
      readonly modelId: string;
      readonly request: ConverseRequest;
      readonly resolved: ResolvedModel | undefined;
      readonly cachePoints: boolean;
    };

const invalidId = (modelId: string): CheckedRequest => ({
  ok: false,
  modelId,
  refusal: { name: 'ValidationException', message: MODEL_MESSAGES.invalidModelId },
});

/**
 * The checks, in Bedrock's order: model id, body, model rules. Refusals are what the service
 * answers; with `plan.enforce` off only the id's form and the body are checked.
 */
export function checkRequest(rawModelId: string, body: string, ctx: RequestCheckContext): CheckedRequest {
  let modelId: string;
  try {
    modelId = decodeURIComponent(rawModelId);
  } catch {
    // Keep the raw id: it is still the best name for the books.
    return invalidId(rawModelId);
  }
  if (modelId.length === 0) return invalidId(modelId);
  const enforce = ctx.plan.enforce;
  const resolved = ctx.catalogue.resolve(modelId);
  const modelRefusal = enforce ? refuseModel(resolved, ctx) : undefined;
  if (modelRefusal) return { ok: false, modelId, refusal: modelRefusal };
  const parsed = parseConverseRequest(body);
  if (!parsed.ok)
    return { ok: false, modelId, refusal: { name: 'ValidationException', message: parsed.message } };
  const request = parsed.request;
  const cachePoints = hasCachePoints(request);
  const refusedShapes = resolved ? (ctx.plan.refuse?.[resolved.model.modelId] ?? []) : [];
  const requestRefusal =
    enforce && resolved ? refuseRequest(resolved.model, request, cachePoints, refusedShapes) : undefined;
  if (requestRefusal) return { ok: false, modelId, refusal: requestRefusal };
  return { ok: true, modelId, request, resolved, cachePoints };
}

/**
 * What Bedrock answers for a model id it will not serve, before reading the body:
 * - unknown id, or a geographic profile the caller's region cannot use:
 *   ValidationException "The provided model identifier is invalid."
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
 *   lists each profile's source regions);
 * - a model past end of life: ResourceNotFoundException "This model version has reached the
 *   end of its life. ..." (https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html);
 * - the base id (or foundation-model ARN) of a model without ON_DEMAND in
 *   inferenceTypesSupported: ValidationException "Invocation of model ID ... with on-demand
 *   throughput isn’t supported. ..." (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-use.html).
 */
function refuseModel(resolved: ResolvedModel | undefined, ctx: RequestCheckContext): Refusal | undefined {
  if (!resolved) return { name: 'ValidationException', message: MODEL_MESSAGES.invalidModelId };
  const { model, viaProfile } = resolved;
  if (ctx.lifecycleOf(model).status === 'EOL') {
    return { name: 'ResourceNotFoundException', message: MODEL_MESSAGES.endOfLife };
  }
  if (viaProfile) {
    const regions = model.profiles[viaProfile.geography] ?? [];
    if (viaProfile.geography !== 'global' && !regions.includes(ctx.region)) {
      return { name: 'ValidationException', message: MODEL_MESSAGES.invalidModelId };
    }
    return undefined;
  }
  if (!model.inferenceTypesSupported.includes('ON_DEMAND')) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.onDemandUnsupported(model.modelId) };
  }
  return undefined;
}
