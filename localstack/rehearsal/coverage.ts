/**
 * Which resource types the rehearsal's LocalStack can create through CloudFormation, read from
 * the installed LocalStack itself: its free edition registers one CloudFormation resource
 * provider per supported type (the `localstack.cloudformation.resource_providers` entry points of
 * localstack-core). Types without one are Pro-only in LocalStack's coverage catalog, which
 * names each service's minimum plan (https://docs.localstack.cloud/api-coverage/v1/index.md):
 * ECS, API Gateway v2, Application Auto Scaling,
 * CloudWatch dashboards, EC2 flow logs and custom resources (localstack-core's
 * `get_resource_type` notes "overwritten in PRO to add support for custom resources").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { guardOf } from '../../lambdas/core/error-guard.js';
import { LocalStackError } from '../errors.js';

/** The rehearsal could not go on; the message says what failed and where. */
export class RehearsalError extends LocalStackError {
  override readonly name = 'RehearsalError';
  constructor(
    readonly step: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${step}: ${message}`, options);
  }
}

/** True for a failed rehearsal step. */
export const isRehearsalError = guardOf(RehearsalError);

/**
 * The resource types (as `AWS::Service::Kind`, lower-cased) that the LocalStack in `venvDir`
 * has a CloudFormation resource provider for.
 */
export function localStackResourceProviders(venvDir: string): Set<string> {
  const lib = join(venvDir, 'lib');
  const python = readdirSync(lib).find((d) => d.startsWith('python3'));
  const site = join(lib, python ?? 'python3.13', 'site-packages');
  const distInfo = readdirSync(site).find(
    (d) => d.startsWith('localstack_core-') && d.endsWith('.dist-info'),
  );
  if (!distInfo) {
    throw new RehearsalError(
      'coverage',
      `no localstack_core in ${site}; run npx tsx localstack/setup-localstack.ts`,
    );
  }
  return parseResourceProviders(readFileSync(join(site, distInfo, 'entry_points.txt'), 'utf8'));
}

/** The `[localstack.cloudformation.resource_providers]` names of an entry_points.txt. */
export function parseResourceProviders(entryPoints: string): Set<string> {
  const types = new Set<string>();
  let inSection = false;
  for (const line of entryPoints.split('\n')) {
    const section = /^\[(.+)\]\s*$/.exec(line.trim());
    if (section) {
      inSection = section[1] === 'localstack.cloudformation.resource_providers';
    } else if (inSection) {
      const name = line.split('=')[0]?.trim();
      if (name) types.add(name.toLowerCase());
    }
  }
  return types;
}

/**
 * Why LocalStack in host mode cannot create a resource type, or undefined when it can.
 * `providers` is {@link localStackResourceProviders}.
 */
export function whyNotCreated(type: string, providers: ReadonlySet<string>): string | undefined {
  if (type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource') {
    return 'custom resources run only in LocalStack Pro (and their handler is a Lambda function)';
  }
  if (type === 'AWS::Lambda::Function') {
    // LocalStack's Lambda runs every function in a Docker container; in host mode without Docker
    // a function ends Failed ("Installation of lambda-runtime … failed"), and CloudFormation with it.
    return "LocalStack runs functions in Docker containers, and host mode has none (the function ends 'Failed')";
  }
  if (!providers.has(type.toLowerCase())) {
    return "LocalStack's free edition has no CloudFormation resource provider for it (a Pro feature)";
  }
  return undefined;
}

/**
 * The properties LocalStack's free-edition resource providers apply when they create a
 * resource, for the types whose providers leave some out (localstack-core 2026.3:
 * services/s3/resource_providers/aws_s3_bucket.py and
 * services/dynamodb/resource_providers/aws_dynamodb_table.py, `create`).
 */
const PROPERTIES_APPLIED: Readonly<Record<string, ReadonlySet<string>>> = {
  'AWS::S3::Bucket': new Set([
    'BucketName',
    'NotificationConfiguration',
    'VersioningConfiguration',
    'CorsConfiguration',
    'ObjectLockConfiguration',
    'ObjectLockEnabled',
    'Tags',
    'WebsiteConfiguration',
  ]),
  'AWS::DynamoDB::Table': new Set([
    'TableName',
    'AttributeDefinitions',
    'KeySchema',
    'BillingMode',
    'ProvisionedThroughput',
    'LocalSecondaryIndexes',
    'GlobalSecondaryIndexes',
    'Tags',
    'SSESpecification',
    'StreamSpecification',
    'KinesisStreamSpecification',
    'TimeToLiveSpecification',
  ]),
};

/** The template properties of a resource that LocalStack's provider creates it without. */
export function propertiesNotApplied(type: string, properties: Readonly<Record<string, unknown>>): string[] {
  const applied = PROPERTIES_APPLIED[type];
  return applied ? Object.keys(properties).filter((k) => !applied.has(k)) : [];
}
