/**
 * What the rehearsal's checks share: the result of one comparison, the AWS endpoint they ask,
 * each service's client, and the template's resources resolved to what was deployed.
 */
import type { StackResource } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DeferredResource, Template, TemplateResource } from './template-transform.js';

/** One comparison of the deployed stack with its template. */
export interface CheckResult {
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
}

export interface Aws {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
}

export interface DeploymentInput {
  readonly aws: Aws;
  readonly template: Template;
  readonly resources: readonly StackResource[];
  readonly outputs: Readonly<Record<string, string>>;
  readonly deferred: readonly DeferredResource[];
  readonly context: Readonly<Record<string, string>>;
}

export const ofType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, r]) => r.Type === type) as [string, TemplateResource][];

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A queue's ARN from its URL (`…/<account>/<name>`). */
function queueArn(url: string, region: string): string {
  const [name = '', account = ''] = new URL(url).pathname.split('/').filter(Boolean).reverse();
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

/**
 * Resolves the Ref and Fn::GetAtt Arn the checks meet (queues, topics, tables, buckets) from the
 * stack's physical ids.
 */
export function resolver(template: Template, physical: ReadonlyMap<string, string>, region: string) {
  const account =
    [...physical.values()].map((p) => /:(\d{12}):/.exec(p)?.[1]).find(Boolean) ?? '000000000000';
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': region,
    'AWS::AccountId': account,
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== 'object' || value === null) return value;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return pseudo[v.Ref] ?? physical.get(v.Ref) ?? v.Ref;
    const join = v['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return join[1].map(resolve).join(join[0]);
    }
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && getAtt[1] === 'Arn') {
      const id = String(getAtt[0]);
      const type = template.Resources[id]?.Type;
      const p = physical.get(id) ?? id;
      return type === 'AWS::SQS::Queue' ? queueArn(p, region) : p;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  };
  return resolve;
}

export function clients(aws: Aws) {
  return {
    sqs: new SQSClient(aws),
    ddb: new DynamoDBClient(aws),
    s3: new S3Client({ ...aws, forcePathStyle: true }),
    sns: new SNSClient(aws),
    cw: new CloudWatchClient(aws),
    events: new EventBridgeClient(aws),
  };
}
