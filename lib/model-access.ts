/**
 * Which Bedrock models the pipeline may call, and the IAM grant that allows exactly those.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import {
  checkPanelModels,
  FALLBACK_MODEL_ID,
  MODEL_PRICES,
  type ModelChoice,
  modelSpec,
  PRIMARY_MODEL_ID,
  panelModelIds,
} from '../lambdas/stack-interface.js';
import { UnscopedValidationError, ValidationError } from './errors.js';

/** The analysts' models: the primary, the fallback used after repeated throttling, per-analyst overrides. */
export interface ModelIds {
  /** @default PRIMARY_MODEL_ID of lambdas/core/model-catalogue.ts (Claude Haiku 4.5, US profile) */
  readonly primary?: string;
  /** @default FALLBACK_MODEL_ID of lambdas/core/model-catalogue.ts (Claude Sonnet 4.6, US profile) */
  readonly fallback?: string;
  /** Models of single analysts, by analyst id, over the two above. */
  readonly perAnalyst?: Readonly<Record<string, Partial<ModelChoice>>>;
}

/** Model ids with the defaults filled in. */
export interface ResolvedModelIds extends ModelChoice {
  readonly perAnalyst: Readonly<Record<string, Partial<ModelChoice>>>;
}

/**
 * Fills in defaults and checks the configuration up front: every model has an entry in the
 * price table (the runtime refuses to spend on an unpriced model, so deploying one would fail
 * every call) and every override names a known analyst. The error is scoped to `scope`, the
 * construct the ids were given to, when there is one (a context flag is read before any).
 */
export function resolveModelIds(ids: ModelIds = {}, scope?: IConstruct): ResolvedModelIds {
  const resolved = {
    primary: ids.primary ?? PRIMARY_MODEL_ID,
    fallback: ids.fallback ?? FALLBACK_MODEL_ID,
    perAnalyst: ids.perAnalyst ?? {},
  };
  try {
    checkPanelModels(resolved);
  } catch (error) {
    const message = `modelIds: ${(error as Error).message}. Choose priced ids such as '${PRIMARY_MODEL_ID}' (priced: ${Object.keys(MODEL_PRICES).join(', ')}), or add the model's prices to lambdas/core/model-catalogue.ts`;
    throw scope
      ? new ValidationError('BadModelIds', message, scope, { cause: error })
      : new UnscopedValidationError('BadModelIds', message, { cause: error });
  }
  return resolved;
}

/** ARN of a foundation model in a region: `arn:<partition>:bedrock:<region>::foundation-model/<id>`. */
export function foundationModelArn(scope: IConstruct, modelId: string, region?: string): string {
  return Stack.of(scope).formatArn({
    service: 'bedrock',
    account: '',
    ...(region ? { region } : {}),
    resource: 'foundation-model',
    resourceName: modelId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}

/** ARN of a system-defined inference profile in the stack's account and region. */
export function inferenceProfileArn(scope: IConstruct, profileId: string): string {
  return Stack.of(scope).formatArn({
    service: 'bedrock',
    resource: 'inference-profile',
    resourceName: profileId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
}

/**
 * The resources `bedrock:InvokeModel` must name for one model. A cross-region inference profile
 * needs the profile and the foundation model in every region the profile routes to
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-prereq.html); a
 * model invoked in-region needs its foundation model in the stack's region.
 */
export function invokeResourcesOf(scope: IConstruct, modelId: string): string[] {
  const spec = modelSpec(modelId);
  if (!spec.profileRegions) return [foundationModelArn(scope, spec.foundationModelId)];
  return [
    inferenceProfileArn(scope, spec.id),
    ...spec.profileRegions.map((region) => foundationModelArn(scope, spec.foundationModelId, region)),
  ];
}

/**
 * Allows `bedrock:InvokeModel` (which also covers the Converse API) on exactly the given models,
 * nothing else: no streaming, no other model, no wildcard.
 */
export function grantInvokeModels(
  grantee: iam.IGrantable,
  scope: IConstruct,
  models: ResolvedModelIds,
): iam.Grant {
  const arns = panelModelIds(models).flatMap((id) => invokeResourcesOf(scope, id));
  return iam.Grant.addToPrincipal({
    grantee,
    actions: ['bedrock:InvokeModel'],
    resourceArns: [...new Set(arns)],
  });
}

/**
 * Allows the lifecycle guard's reads on exactly the configured models: `bedrock:GetFoundationModel`
 * on each foundation model in the stack's region and `bedrock:GetInferenceProfile` on each
 * profile (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonbedrock.html).
 */
export function grantModelLifecycleReads(
  grantee: iam.IGrantable,
  scope: IConstruct,
  models: ResolvedModelIds,
): void {
  const specs = panelModelIds(models).map((id) => modelSpec(id));
  iam.Grant.addToPrincipal({
    grantee,
    actions: ['bedrock:GetFoundationModel'],
    resourceArns: [...new Set(specs.map((s) => foundationModelArn(scope, s.foundationModelId)))],
  });
  const profiles = specs.filter((s) => s.profileRegions).map((s) => inferenceProfileArn(scope, s.id));
  if (profiles.length > 0) {
    iam.Grant.addToPrincipal({ grantee, actions: ['bedrock:GetInferenceProfile'], resourceArns: profiles });
  }
}
