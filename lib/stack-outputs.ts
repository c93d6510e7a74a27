/**
 * Names of the outputs the deployed stack publishes, and the reading of those outputs back
 * into the same shape the local provisioner returns, so the CLI can treat a deployed stack
 * and a local emulator alike.
 *
 * Plain data and pure functions: no aws-cdk-lib import, so the CLI loads it cheaply.
 */

import { byRole } from '../lambdas/stack-interface.js';
import type { QueueRole } from './topology.js';

/** A stack's resources by name, as the local provisioner creates them and a deployed stack's outputs give them. */
export interface ProvisionedResources {
  readonly prefix: string;
  readonly queueUrls: Readonly<Record<QueueRole, string>>;
  readonly queueArns: Readonly<Record<QueueRole, string>>;
  readonly dlqUrls: Readonly<Record<QueueRole, string>>;
  readonly dlqArns: Readonly<Record<QueueRole, string>>;
  readonly tableName: string;
  readonly intakeBucket: string;
  readonly intakePrefix: string;
  readonly resultsBucket: string;
  readonly resultsPrefix: string;
  readonly alertsTopicArn: string;
}

const pascal = (role: QueueRole) => `${role[0]?.toUpperCase() ?? ''}${role.slice(1)}`;

/** Output keys of the stack. Queue outputs are per role: `RealtimeQueueUrl`, `RealtimeDlqArn`, … */
export const STACK_OUTPUTS = {
  prefix: 'Prefix',
  tableName: 'TableName',
  intakeBucket: 'IntakeBucketName',
  intakePrefix: 'IntakePrefix',
  resultsBucket: 'ResultsBucketName',
  resultsPrefix: 'ResultsPrefix',
  alertsTopicArn: 'AlertsTopicArn',
  apiUrl: 'ApiUrl',
  /** The reviewer app's CloudFront URL. */
  appUrl: 'AppUrl',
  /** The Word add-in's manifest.xml, beside the app. */
  addinManifestUrl: 'AddinManifestUrl',
  /** Sign-in: the Cognito user pool, its app client, and the identity pool. */
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  identityPoolId: 'IdentityPoolId',
  /** The analysts' models as JSON (primary, fallback, perAnalyst), for `clause-review doctor`. */
  models: 'Models',
  queueUrl: (role: QueueRole) => `${pascal(role)}QueueUrl`,
  queueArn: (role: QueueRole) => `${pascal(role)}QueueArn`,
  dlqUrl: (role: QueueRole) => `${pascal(role)}DlqUrl`,
  dlqArn: (role: QueueRole) => `${pascal(role)}DlqArn`,
} as const;

/** Raised when stack outputs lack a key the CLI needs; the message names every missing key. */
export class StackOutputsError extends Error {
  override readonly name = 'StackOutputsError';
}

/** True when stack outputs lack a key the CLI needs. */
export function isStackOutputsError(error: unknown): error is StackOutputsError {
  return error instanceof StackOutputsError;
}

/**
 * The resources of a deployed stack, from its outputs (`OutputKey` → `OutputValue`).
 *
 * @example
 * const r = resourcesFromOutputs({ Prefix: 'clause-review', TableName: 'clause-review-state', … });
 * r.queueUrls.realtime;
 */
export function resourcesFromOutputs(
  outputs: Readonly<Record<string, string | undefined>>,
): ProvisionedResources {
  const missing: string[] = [];
  const get = (key: string): string => {
    const value = outputs[key];
    if (value === undefined || value === '') {
      missing.push(key);
      return '';
    }
    return value;
  };
  const resources: ProvisionedResources = {
    prefix: get(STACK_OUTPUTS.prefix),
    queueUrls: byRole((role) => get(STACK_OUTPUTS.queueUrl(role))),
    queueArns: byRole((role) => get(STACK_OUTPUTS.queueArn(role))),
    dlqUrls: byRole((role) => get(STACK_OUTPUTS.dlqUrl(role))),
    dlqArns: byRole((role) => get(STACK_OUTPUTS.dlqArn(role))),
    tableName: get(STACK_OUTPUTS.tableName),
    intakeBucket: get(STACK_OUTPUTS.intakeBucket),
    intakePrefix: get(STACK_OUTPUTS.intakePrefix),
    resultsBucket: get(STACK_OUTPUTS.resultsBucket),
    resultsPrefix: get(STACK_OUTPUTS.resultsPrefix),
    alertsTopicArn: get(STACK_OUTPUTS.alertsTopicArn),
  };
  if (missing.length > 0) {
    throw new StackOutputsError(`stack outputs lack ${missing.join(', ')}; is this a clause-review stack?`);
  }
  return resources;
}

/**
 * The status API's base URL from a deployed stack's outputs.
 * @throws StackOutputsError when the stack has no `ApiUrl` output (deployed before the API existed).
 */
export function apiUrlFromOutputs(outputs: Readonly<Record<string, string | undefined>>): string {
  const url = outputs[STACK_OUTPUTS.apiUrl];
  if (!url) {
    throw new StackOutputsError(
      `stack outputs lack ${STACK_OUTPUTS.apiUrl}; deploy the current version (npx cdk deploy) to get the status API`,
    );
  }
  return url;
}
