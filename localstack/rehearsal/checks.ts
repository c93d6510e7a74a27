/**
 * The deploy rehearsal's checks: what CloudFormation created, read back through each service's
 * own API and compared with what the template asks for.
 */
import type { StackResource } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient, DescribeAlarmsCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand, DescribeTimeToLiveCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeRuleCommand,
  EventBridgeClient,
  ListTargetsByRuleCommand,
} from '@aws-sdk/client-eventbridge';
import {
  GetBucketNotificationConfigurationCommand,
  GetBucketVersioningCommand,
  HeadBucketCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { GetTopicAttributesCommand, ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { propertiesNotApplied } from './coverage.js';
import {
  type DeferredResource,
  resolveDeferred,
  type Template,
  type TemplateResource,
} from './template-transform.js';

/** One comparison of the deployed stack with its template. */
export interface CheckResult {
  readonly what: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** A resource after teardown: kept by its deletion policy, or deleted with the stack. */
export interface RetainedResource {
  readonly logicalId: string;
  readonly type: string;
  readonly physicalId: string;
  readonly policy: 'Retain' | 'Delete';
  /** Whether it still exists; undefined where the rehearsal has no client to ask. */
  readonly exists: boolean | undefined;
}

interface Aws {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
}

interface DeploymentInput {
  readonly aws: Aws;
  readonly template: Template;
  readonly resources: readonly StackResource[];
  readonly outputs: Readonly<Record<string, string>>;
  readonly deferred: readonly DeferredResource[];
  readonly context: Readonly<Record<string, string>>;
}

const ofType = (template: Template, type: string) =>
  Object.entries(template.Resources).filter(([, r]) => r.Type === type) as [string, TemplateResource][];

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A queue's ARN from its URL (`…/<account>/<name>`). */
function queueArn(url: string, region: string): string {
  const [name = '', account = ''] = new URL(url).pathname.split('/').filter(Boolean).reverse();
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

/**
 * Resolves the Ref and Fn::GetAtt Arn the checks meet (queues, topics, tables, buckets) from the
 * stack's physical ids.
 */
function resolver(template: Template, physical: ReadonlyMap<string, string>, region: string) {
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

function clients(aws: Aws) {
  return {
    sqs: new SQSClient(aws),
    ddb: new DynamoDBClient(aws),
    s3: new S3Client({ ...aws, forcePathStyle: true }),
    sns: new SNSClient(aws),
    cw: new CloudWatchClient(aws),
    events: new EventBridgeClient(aws),
  };
}

async function checkQueues(
  input: DeploymentInput,
  c: ReturnType<typeof clients>,
  resolve: (v: unknown) => unknown,
  physical: ReadonlyMap<string, string>,
) {
  const results: CheckResult[] = [];
  for (const [id, r] of ofType(input.template, 'AWS::SQS::Queue')) {
    const url = physical.get(id) ?? '';
    const attrs =
      (await c.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] })))
        .Attributes ?? {};
    const p = r.Properties ?? {};
    const problems: string[] = [];
    const notes: string[] = [];
    for (const key of ['RedrivePolicy', 'RedriveAllowPolicy'] as const) {
      if (p[key] === undefined) continue;
      const want = resolve(p[key]);
      const got = attrs[key] ? JSON.parse(attrs[key]) : undefined;
      if (!same(want, got)) problems.push(`${key} ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
      else
        notes.push(
          key === 'RedrivePolicy'
            ? `DLQ after ${(want as { maxReceiveCount: number }).maxReceiveCount} receives`
            : 'redrive-allow by queue',
        );
    }
    for (const key of [
      'VisibilityTimeout',
      'MessageRetentionPeriod',
      'ReceiveMessageWaitTimeSeconds',
    ] as const) {
      if (p[key] !== undefined && String(p[key]) !== attrs[key])
        problems.push(`${key} ${attrs[key]} ≠ ${String(p[key])}`);
    }
    if (p.VisibilityTimeout !== undefined) notes.push(`visibility ${String(p.VisibilityTimeout)} s`);
    const name = url.split('/').pop();
    results.push({
      what: `queue ${name}`,
      ok: problems.length === 0,
      detail: problems.join('; ') || notes.join(', ') || 'as the template sets',
    });
  }
  return results;
}

async function checkTable(
  input: DeploymentInput,
  c: ReturnType<typeof clients>,
  physical: ReadonlyMap<string, string>,
) {
  const results: CheckResult[] = [];
  for (const [id, r] of ofType(input.template, 'AWS::DynamoDB::Table')) {
    const name = physical.get(id) ?? '';
    const p = r.Properties as Record<string, unknown>;
    const table = (await c.ddb.send(new DescribeTableCommand({ TableName: name }))).Table;
    const ttl = (await c.ddb.send(new DescribeTimeToLiveCommand({ TableName: name }))).TimeToLiveDescription;
    const problems: string[] = [];
    if (!same(table?.KeySchema, p.KeySchema)) problems.push(`key schema ${JSON.stringify(table?.KeySchema)}`);
    const wantIndexes =
      (p.GlobalSecondaryIndexes as { IndexName: string; KeySchema: unknown }[] | undefined) ?? [];
    for (const want of wantIndexes) {
      const got = table?.GlobalSecondaryIndexes?.find((g) => g.IndexName === want.IndexName);
      if (!got || !same(got.KeySchema, want.KeySchema))
        problems.push(`index ${want.IndexName} ${got ? JSON.stringify(got.KeySchema) : 'missing'}`);
    }
    const wantTtl =
      (p.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined) ?? {};
    if (
      wantTtl.Enabled &&
      (ttl?.AttributeName !== wantTtl.AttributeName || ttl?.TimeToLiveStatus !== 'ENABLED')
    ) {
      problems.push(`TTL ${ttl?.AttributeName} ${ttl?.TimeToLiveStatus}`);
    }
    // Point-in-time recovery and deletion protection: the provider does not apply them (named below).
    const gaps = propertiesNotApplied('AWS::DynamoDB::Table', p);
    results.push({
      what: `table ${name}`,
      ok: problems.length === 0,
      detail:
        problems.join('; ') ||
        `keys ${(table?.KeySchema ?? []).map((k) => k.AttributeName).join('+')}, indexes ${wantIndexes.map((i) => i.IndexName).join(', ')}, TTL on ${ttl?.AttributeName}${gaps.length > 0 ? `; not applied by LocalStack's table provider: ${gaps.join(', ')}` : ''}`,
    });
  }
  return results;
}

async function checkBuckets(
  input: DeploymentInput,
  c: ReturnType<typeof clients>,
  physical: ReadonlyMap<string, string>,
) {
  const results: CheckResult[] = [];
  const notifications = input.deferred
    .filter((d) => d.type === 'Custom::S3BucketNotifications')
    .map(
      (d) =>
        resolveDeferred(d.properties, input.outputs) as {
          BucketName: string;
          NotificationConfiguration: { QueueConfigurations?: unknown[] };
        },
    );
  for (const [id, r] of ofType(input.template, 'AWS::S3::Bucket')) {
    const bucket = physical.get(id) ?? '';
    const p = r.Properties ?? {};
    const problems: string[] = [];
    const notes: string[] = [];
    const versioning = await c.s3.send(new GetBucketVersioningCommand({ Bucket: bucket }));
    const wantVersioning = (p.VersioningConfiguration as { Status?: string } | undefined)?.Status;
    if (wantVersioning && versioning.Status !== wantVersioning)
      problems.push(`versioning ${versioning.Status}`);
    if (wantVersioning) notes.push(`versioning ${versioning.Status}`);
    // localstack-core's AWS::S3::Bucket provider (aws_s3_bucket.py, create) applies only some
    // properties; the rest of what the template sets is named, not checked.
    const gaps = propertiesNotApplied('AWS::S3::Bucket', p);
    if (gaps.length > 0) notes.push(`not applied by LocalStack's bucket provider: ${gaps.join(', ')}`);
    const wanted = notifications.find((n) => n.BucketName === bucket);
    if (wanted) {
      const got = await c.s3.send(new GetBucketNotificationConfigurationCommand({ Bucket: bucket }));
      // S3 answers a filter rule's name as 'Prefix' whichever case it was given in
      // (https://docs.aws.amazon.com/AmazonS3/latest/API/API_FilterRule.html: prefix or suffix).
      type Rule = { Name?: string; Value?: string };
      const simplify = (
        q: { QueueArn?: string; Events?: string[]; Filter?: { Key?: { FilterRules?: Rule[] } } }[],
      ) =>
        q.map((x) => ({
          QueueArn: x.QueueArn,
          Events: x.Events,
          rules: (x.Filter?.Key?.FilterRules ?? []).map((f) => `${f.Name?.toLowerCase()}=${f.Value}`),
        }));
      const want = simplify((wanted.NotificationConfiguration.QueueConfigurations ?? []) as never[]);
      if (!same(simplify(got.QueueConfigurations ?? []), want))
        problems.push(`notifications ${JSON.stringify(got.QueueConfigurations)}`);
      else
        notes.push(
          `notifies ${want.map((q) => q.QueueArn?.split(':').pop()).join(', ')} on ${want.flatMap((q) => q.Events ?? []).join(', ')}`,
        );
    }
    results.push({
      what: `bucket ${bucket}`,
      ok: problems.length === 0,
      detail: problems.join('; ') || notes.join(', ') || 'exists',
    });
  }
  return results;
}

async function checkAlarms(
  input: DeploymentInput,
  c: ReturnType<typeof clients>,
  resolve: (v: unknown) => unknown,
  physical: ReadonlyMap<string, string>,
): Promise<CheckResult> {
  const alarms = ofType(input.template, 'AWS::CloudWatch::Alarm');
  const names = alarms.map(([id]) => physical.get(id) ?? id);
  const found: MetricAlarm[] = [];
  for (let i = 0; i < names.length; i += 100) {
    found.push(
      ...((await c.cw.send(new DescribeAlarmsCommand({ AlarmNames: names.slice(i, i + 100) })))
        .MetricAlarms ?? []),
    );
  }
  const problems: string[] = [];
  for (const [id, r] of alarms) {
    const p = r.Properties ?? {};
    const got = found.find((a) => a.AlarmName === physical.get(id));
    if (!got) {
      problems.push(`${id} missing`);
      continue;
    }
    for (const key of [
      'MetricName',
      'Namespace',
      'Threshold',
      'ComparisonOperator',
      'EvaluationPeriods',
      'TreatMissingData',
    ] as const) {
      if (p[key] !== undefined && String(got[key]) !== String(p[key]))
        problems.push(`${id} ${key} ${got[key]} ≠ ${String(p[key])}`);
    }
    if (p.AlarmActions !== undefined && !same(got.AlarmActions, resolve(p.AlarmActions)))
      problems.push(`${id} actions ${JSON.stringify(got.AlarmActions)}`);
  }
  const withActions = found.filter((a) => (a.AlarmActions ?? []).length > 0).length;
  return {
    what: `${alarms.length} alarms`,
    ok: problems.length === 0 && found.length === alarms.length,
    detail:
      problems.join('; ') ||
      `each with its metric, threshold and comparison; ${withActions} notify the alerts topic`,
  };
}

async function checkSchedules(
  input: DeploymentInput,
  c: ReturnType<typeof clients>,
  physical: ReadonlyMap<string, string>,
) {
  const results: CheckResult[] = [];
  for (const [id, r] of ofType(input.template, 'AWS::Events::Rule')) {
    const p = r.Properties ?? {};
    const name = physical.get(id) ?? '';
    const rule = await c.events.send(new DescribeRuleCommand({ Name: name.split('|').pop() ?? name }));
    const targets =
      (await c.events.send(new ListTargetsByRuleCommand({ Rule: rule.Name ?? name }))).Targets ?? [];
    const problems: string[] = [];
    if (rule.ScheduleExpression !== p.ScheduleExpression)
      problems.push(`schedule ${rule.ScheduleExpression}`);
    if (p.State !== undefined && rule.State !== p.State) problems.push(`state ${rule.State}`);
    const wantTargets = (p.Targets as unknown[] | undefined) ?? [];
    if (targets.length !== wantTargets.length) problems.push(`${targets.length} target(s)`);
    results.push({
      what: `schedule ${rule.Name}`,
      ok: problems.length === 0,
      detail:
        problems.join('; ') ||
        `${rule.ScheduleExpression} ${rule.State}, ${targets.length} target(s): ${targets.map((t) => t.Arn).join(', ')}`,
    });
  }
  return results;
}

async function checkSubscriptions(
  input: DeploymentInput,
  c: ReturnType<typeof clients>,
  physical: ReadonlyMap<string, string>,
): Promise<CheckResult[]> {
  const wanted = (input.context.alertEmails ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();
  return Promise.all(
    ofType(input.template, 'AWS::SNS::Topic').map(async ([id]) => {
      const topic = physical.get(id) ?? '';
      const subs =
        (await c.sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topic }))).Subscriptions ?? [];
      const emails = subs
        .filter((s) => s.Protocol === 'email')
        .map((s) => s.Endpoint ?? '')
        .sort();
      return {
        what: `topic ${topic.split(':').pop()} subscriptions`,
        ok: same(emails, wanted),
        detail: `email: ${emails.join(', ') || 'none'} (asked for with -c alertEmails: ${wanted.join(', ') || 'none'}); each must confirm from the email`,
      };
    }),
  );
}

/** A group of checks; a service's refusal becomes a failed check naming it, and the others still run. */
async function safely(what: string, run: () => Promise<CheckResult[]>): Promise<CheckResult[]> {
  try {
    return await run();
  } catch (error) {
    return [{ what, ok: false, detail: `${(error as Error).name}: ${(error as Error).message}` }];
  }
}

/** Compares the deployed stack with its template; one result per resource or group. */
export async function checkDeployment(input: DeploymentInput): Promise<CheckResult[]> {
  const physical = new Map(
    input.resources.map((r) => [r.LogicalResourceId ?? '', r.PhysicalResourceId ?? '']),
  );
  const resolve = resolver(input.template, physical, input.aws.region);
  const c = clients(input.aws);
  try {
    const kept = Object.keys(input.template.Resources);
    const notCreated = kept.filter(
      (id) => input.resources.find((r) => r.LogicalResourceId === id)?.ResourceStatus !== 'CREATE_COMPLETE',
    );
    // What LocalStack records for a type it deployed as a fallback, with no provider behind it
    // (MOCKED_REFERENCE in localstack-core's change_set_model_preproc.py).
    const mocked = input.resources
      .filter((r) => r.PhysicalResourceId === 'unknown')
      .map((r) => `${r.LogicalResourceId} (${r.ResourceType})`);
    return [
      {
        what: 'no resource mocked',
        ok: mocked.length === 0,
        detail:
          mocked.length === 0
            ? 'every created resource has a physical id from its service'
            : `mocked, no provider: ${mocked.join(', ')}`,
      },
      {
        what: 'every resource of the rehearsal template',
        ok: notCreated.length === 0,
        detail:
          notCreated.length === 0
            ? `${kept.length} created (CREATE_COMPLETE)`
            : `not created: ${notCreated.join(', ')}`,
      },
      ...(await safely('queues', () => checkQueues(input, c, resolve, physical))),
      ...(await safely('table', () => checkTable(input, c, physical))),
      ...(await safely('buckets', () => checkBuckets(input, c, physical))),
      ...(await safely('alarms', async () => [await checkAlarms(input, c, resolve, physical)])),
      ...(await safely('schedules', () => checkSchedules(input, c, physical))),
      ...(await safely('subscriptions', () => checkSubscriptions(input, c, physical))),
    ];
  } finally {
    for (const client of Object.values(c)) client.destroy();
  }
}

const exists = (p: Promise<unknown>) =>
  p.then(
    () => true,
    () => false,
  );

/**
 * After the stack is deleted: each resource its template keeps (DeletionPolicy Retain), and
 * whether it is still there, beside the queues, which the stack deletes.
 */
export async function checkRetained(input: {
  aws: Aws;
  template: Template;
  resources: readonly StackResource[];
}): Promise<RetainedResource[]> {
  const c = clients(input.aws);
  try {
    const out: RetainedResource[] = [];
    for (const [logicalId, r] of Object.entries(input.template.Resources)) {
      const retained = r.DeletionPolicy === 'Retain' || r.DeletionPolicy === 'RetainExceptOnCreate';
      if (!retained && r.Type !== 'AWS::SQS::Queue') continue;
      const physicalId =
        input.resources.find((x) => x.LogicalResourceId === logicalId)?.PhysicalResourceId ?? '';
      const probe: Record<string, () => Promise<boolean>> = {
        'AWS::DynamoDB::Table': () => exists(c.ddb.send(new DescribeTableCommand({ TableName: physicalId }))),
        'AWS::S3::Bucket': () => exists(c.s3.send(new HeadBucketCommand({ Bucket: physicalId }))),
        'AWS::SQS::Queue': () =>
          exists(c.sqs.send(new GetQueueUrlCommand({ QueueName: physicalId.split('/').pop() ?? '' }))),
        'AWS::SNS::Topic': () => exists(c.sns.send(new GetTopicAttributesCommand({ TopicArn: physicalId }))),
      };
      out.push({
        logicalId,
        type: r.Type,
        physicalId,
        policy: retained ? 'Retain' : 'Delete',
        exists: probe[r.Type] ? await probe[r.Type]?.() : undefined,
      });
    }
    return out;
  } finally {
    for (const client of Object.values(c)) client.destroy();
  }
}
