/**
 * Which Bedrock models the pipeline may call, and the IAM grant that allows exactly those.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { FALLBACK_MODEL_ID, MODEL_PRICES, PRIMARY_MODEL_ID } from '../lambdas/core/models.js';

/** The analysts' models: the primary, and the fallback used after repeated throttling. */
export interface ModelIds {
  /** @default PRIMARY_MODEL_ID of lambdas/core/models.ts */
  readonly primary?: string;
  /** @default FALLBACK_MODEL_ID of lambdas/core/models.ts */
  readonly fallback?: string;
}

/** Model ids with the defaults filled in. */
export interface ResolvedModelIds {
  readonly primary: string;
  readonly fallback: string;
}

/** Cross-region inference profile ids start with a geography; their ARNs differ from foundation models'. */
const INFERENCE_PROFILE = /^(us|eu|apac|jp|au|ca|us-gov|global)\./;
const MODEL_ID = /^[a-z0-9-]+\.[A-Za-z0-9._:-]+$/;

/**
 * Fills in defaults and checks each id up front: a Bedrock foundation-model id with an entry in
 * the price table (the runtime refuses to spend on an unpriced model, so deploying one would
 * fail every call).
 */
export function resolveModelIds(ids: ModelIds = {}): ResolvedModelIds {
  const resolved = { primary: ids.primary ?? PRIMARY_MODEL_ID, fallback: ids.fallback ?? FALLBACK_MODEL_ID };
  for (const [role, id] of Object.entries(resolved)) {
    if (!MODEL_ID.test(id) || INFERENCE_PROFILE.test(id)) {
      throw new Error(
        `modelIds.${role} must be a Bedrock foundation-model id such as '${PRIMARY_MODEL_ID}' ` +
          `(inference profiles are not supported); got '${id}'`,
      );
    }
    if (!MODEL_PRICES[id]) {
      throw new Error(
        `modelIds.${role} must be one of the priced models (${Object.keys(MODEL_PRICES).join(', ')}); got '${id}'`,
      );
    }
  }
  return resolved;
}

/** ARN of a foundation model in the stack's region: `arn:<partition>:bedrock:<region>::foundation-model/<id>`. */
export function foundationModelArn(scope: IConstruct, modelId: string): string {
  return Stack.of(scope).formatArn({
    service: 'bedrock',
    account: '',
    resource: 'foundation-model',
    resourceName: modelId,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
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
  const ids = [...new Set([models.primary, models.fallback])];
  return iam.Grant.addToPrincipal({
    grantee,
    actions: ['bedrock:InvokeModel'],
    resourceArns: ids.map((id) => foundationModelArn(scope, id)),
  });
}
