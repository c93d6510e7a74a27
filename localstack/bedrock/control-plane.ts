/**
 * The Bedrock control plane's read side, as `@aws-sdk/client-bedrock` calls it (restJson1),
 * served from the stand-in's catalogue on the same port as Converse:
 *
 * - GetFoundationModel: GET /foundation-models/{modelIdentifier}
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetFoundationModel.html
 * - ListFoundationModels: GET /foundation-models?byProvider&byCustomizationType&byOutputModality&byInferenceType
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_ListFoundationModels.html
 * - GetInferenceProfile: GET /inference-profiles/{inferenceProfileIdentifier}
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetInferenceProfile.html
 * - ListInferenceProfiles: GET /inference-profiles?typeEquals (one page, no nextToken)
 *   https://docs.aws.amazon.com/bedrock/latest/APIReference/API_ListInferenceProfiles.html
 *
 * The region is the SigV4 credential scope's (default us-east-1), the account 123456789012.
 * A model past end of life is not listed and not found: "After the EOL date, the model version
 * can only be found on this documentation page" (model-lifecycle.html). Timestamps go out as
 * RFC 3339 date-time strings: the Bedrock model declares that format, and the SDK refuses
 * anything else ("RFC-3339 date-times must be expressed as strings").
 *
 * Tool use: no control-plane field says whether a model supports Converse tool use (see
 * FoundationModelDetails), so the stand-in reports none; the product keeps its own table and
 * `CatalogueModel.toolUse` is there for tests that import catalogue.ts.
 */
import {
  type Catalogue,
  type CatalogueModel,
  foundationModelArn,
  inferenceProfileArn,
  type ModelLifecycle,
  type ProfileGeography,
  profileIdOf,
} from './catalogue.js';
import { MODEL_MESSAGES } from './errors.js';

/** What the control plane needs from the engine. */
export interface CatalogueView {
  readonly catalogue: Catalogue;
  lifecycleOf(model: CatalogueModel): ModelLifecycle;
}

/** A control-plane answer: 200 with a body, or a catalogue error. */
export type ControlPlaneResult =
  | { ok: true; body: unknown }
  | { ok: false; name: 'ResourceNotFoundException' | 'ValidationException'; message: string };

const FOUNDATION_PREFIX = '/foundation-models';
const PROFILE_PREFIX = '/inference-profiles';
const SIGV4_SCOPE = /Credential=[^/,\s]+\/\d{8}\/([a-z0-9-]+)\//;
const GEOGRAPHY_NAMES: Readonly<Record<ProfileGeography, string>> = {
  us: 'US',
  eu: 'EU',
  apac: 'APAC',
  global: 'Global',
};

/** The region of a SigV4 `Authorization` header's credential scope, if any. */
export function regionOfAuthorization(authorization: string | string[] | undefined): string | undefined {
  const value = Array.isArray(authorization) ? authorization[0] : authorization;
  return value ? SIGV4_SCOPE.exec(value)?.[1] : undefined;
}

/** True when the path is one of the control-plane operations served here. */
export function isControlPlanePath(path: string): boolean {
  return (
    path === FOUNDATION_PREFIX ||
    path.startsWith(`${FOUNDATION_PREFIX}/`) ||
    path === PROFILE_PREFIX ||
    path.startsWith(`${PROFILE_PREFIX}/`)
  );
}

const dateTime = (iso: string | undefined): string | undefined =>
  iso === undefined ? undefined : new Date(iso).toISOString();

function lifecycleBody(lifecycle: ModelLifecycle): Record<string, unknown> {
  return {
    status: lifecycle.status,
    startOfLifeTime: dateTime(lifecycle.startOfLifeTime),
    endOfLifeTime: dateTime(lifecycle.endOfLifeTime),
    legacyTime: dateTime(lifecycle.legacyTime),
    publicExtendedAccessTime: dateTime(lifecycle.publicExtendedAccessTime),
  };
}

function modelBody(
  model: CatalogueModel,
  lifecycle: ModelLifecycle,
  region: string,
): Record<string, unknown> {
  return {
    modelArn: foundationModelArn(region, model.modelId),
    modelId: model.modelId,
    modelName: model.modelName,
    providerName: model.providerName,
    inputModalities: model.inputModalities,
    outputModalities: model.outputModalities,
    responseStreamingSupported: model.responseStreamingSupported,
    customizationsSupported: model.customizationsSupported,
    inferenceTypesSupported: model.inferenceTypesSupported,
    modelLifecycle: lifecycleBody(lifecycle),
  };
}

/** The profiles of a model the caller's region may use: geographic ones from their own regions, global from any. */
function profilesOf(model: CatalogueModel, region: string): ProfileGeography[] {
  return (Object.keys(model.profiles) as ProfileGeography[]).filter(
    (geography) => geography === 'global' || (model.profiles[geography] ?? []).includes(region),
  );
}

function profileBody(
  model: CatalogueModel,
  geography: ProfileGeography,
  region: string,
): Record<string, unknown> {
  const id = profileIdOf(model.modelId, geography);
  const regions = model.profiles[geography] ?? [];
  // A global profile's model ARN carries no region (as its IAM resource does).
  const models =
    geography === 'global'
      ? [{ modelArn: foundationModelArn('', model.modelId) }]
      : regions.map((routed) => ({ modelArn: foundationModelArn(routed, model.modelId) }));
  const created = dateTime(model.lifecycle.startOfLifeTime);
  return {
    inferenceProfileName: `${GEOGRAPHY_NAMES[geography]} ${model.providerName} ${model.modelName}`,
    description: `Routes requests to ${model.modelName} in ${geography === 'global' ? 'commercial AWS Regions' : regions.join(', ')}.`,
    createdAt: created,
    updatedAt: created,
    inferenceProfileArn: inferenceProfileArn(region, id),
    models,
    inferenceProfileId: id,
    status: 'ACTIVE',
    type: 'SYSTEM_DEFINED',
  };
}

function query(search: string): URLSearchParams {
  return new URLSearchParams(search);
}

/** Answers a control-plane GET. `path` is percent-encoded as received. */
export function controlPlane(
  view: CatalogueView,
  path: string,
  search: string,
  region: string,
): ControlPlaneResult {
  const live = (model: CatalogueModel | undefined) =>
    model && view.lifecycleOf(model).status !== 'EOL' ? model : undefined;

  if (path === FOUNDATION_PREFIX) {
    const q = query(search);
    const provider = q.get('byProvider')?.toLowerCase();
    const output = q.get('byOutputModality');
    const inference = q.get('byInferenceType');
    const customization = q.get('byCustomizationType');
    const modelSummaries = view.catalogue.models
      .filter((model) => live(model))
      .filter((model) => !provider || model.providerName.toLowerCase() === provider)
      .filter((model) => !output || model.outputModalities.includes(output))
      .filter(
        (model) => !inference || (model.inferenceTypesSupported as readonly string[]).includes(inference),
      )
      .filter((model) => !customization || model.customizationsSupported.includes(customization))
      .map((model) => modelBody(model, view.lifecycleOf(model), region));
    return { ok: true, body: { modelSummaries } };
  }
  if (path.startsWith(`${FOUNDATION_PREFIX}/`)) {
    const id = safeDecode(path.slice(FOUNDATION_PREFIX.length + 1));
    const resolved = id === undefined ? undefined : view.catalogue.resolve(id);
    // GetFoundationModel takes a model id or foundation-model ARN, not a profile.
    const model = resolved && !resolved.viaProfile ? live(resolved.model) : undefined;
    if (!model)
      return {
        ok: false,
        name: 'ResourceNotFoundException',
        message: MODEL_MESSAGES.foundationModelNotFound,
      };
    return { ok: true, body: { modelDetails: modelBody(model, view.lifecycleOf(model), region) } };
  }
  if (path === PROFILE_PREFIX) {
    const type = query(search).get('type');
    const inferenceProfileSummaries =
      type === 'APPLICATION'
        ? []
        : view.catalogue.models
            .filter((model) => live(model))
            .flatMap((model) =>
              profilesOf(model, region).map((geography) => profileBody(model, geography, region)),
            );
    return { ok: true, body: { inferenceProfileSummaries } };
  }
  const id = safeDecode(path.slice(PROFILE_PREFIX.length + 1)) ?? '';
  const resolved = view.catalogue.resolve(id);
  const profile = resolved?.viaProfile;
  if (
    !resolved ||
    !profile ||
    !live(resolved.model) ||
    !profilesOf(resolved.model, region).includes(profile.geography)
  ) {
    return {
      ok: false,
      name: 'ResourceNotFoundException',
      message: MODEL_MESSAGES.inferenceProfileNotFound(id),
    };
  }
  return { ok: true, body: profileBody(resolved.model, profile.geography, region) };
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}
