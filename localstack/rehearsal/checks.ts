/**
 * The deploy rehearsal's checks: what CloudFormation created, read back through each service's
 * own API and compared with what the template asks for.
 */
import type { StackResource } from '@aws-sdk/client-cloudformation';
import { DescribeAlarmsCommand, type MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeRuleCommand, ListTargetsByRuleCommand } from '@aws-sdk/client-eventbridge';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetTopicAttributesCommand, ListSubscriptionsByTopicCommand } from '@aws-sdk/client-sns';
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { checkBuckets, checkQueues, checkTable } from './store-checks.js';
import {
  type Aws,
  type CheckResult,
  clients,
  type DeploymentInput,
  ofType,
  resolver,
  same,
} from './template-read.js';
import type { Template } from './template-transform.js';

/** A resource after teardown: kept by its deletion policy, or deleted with the stack. */
export interface RetainedResource {
  readonly logicalId: string;
  readonly type: string;
  readonly physicalId: string;
  readonly policy: 'Retain' | 'Delete';
  /** Whether it still exists; undefined where the rehearsal has no client to ask. */
  readonly exists: boolean | undefined;
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
