/**
 * The sweeper and DLQ-triage functions, synthesized with real state table, queues, buckets and
 * topic, and read back from the template: schedules, environment, and least-privilege grants.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOperationsConfig } from '../../lambdas/shared/ops-config.js';
import { AlertsTopic } from '../../lib/alerts-topic.js';
import { DocumentBuckets } from '../../lib/document-buckets.js';
import { OperationsFunctions } from '../../lib/operations-functions.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { StateTable } from '../../lib/state-table.js';
import { QUEUE_ROLES, topology } from '../../lib/topology.js';
import { WorkQueues } from '../../lib/work-queues.js';
import { deployedEnvironment } from '../helpers/deployed-env.js';

const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
const outdir = mkdtempSync(join(tmpdir(), 'clause-review-ops-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

let stack: Stack;
let ops: OperationsFunctions;
let template: Template;

function build(props: Partial<ConstructorParameters<typeof OperationsFunctions>[2]> = {}) {
  const app = new App({ context, outdir });
  const s = new Stack(app, 'Ops');
  const t = topology({ prefix: 'ops-test' });
  const table = new StateTable(s, 'State', { settings: t.table });
  const queues = new WorkQueues(s, 'Queues', { settings: t.queues });
  const buckets = new DocumentBuckets(s, 'Documents', {
    settings: t.buckets,
    intakeQueue: queues.queues.intake,
    notification: t.intakeNotification,
  });
  const alerts = new AlertsTopic(s, 'Alerts', { topicName: t.alertsTopicName });
  const o = new OperationsFunctions(s, 'Operations', {
    topology: t,
    table: table.table,
    intakeBucket: buckets.intakeBucket,
    resultsBucket: buckets.resultsBucket,
    queues: queues.queues,
    deadLetterQueues: queues.deadLetterQueues,
    alertsTopic: alerts.topic,
    ...props,
  });
  return { s, o };
}

beforeAll(() => {
  ({ s: stack, o: ops } = build());
  template = Template.fromStack(stack);
});

const idOf = (c: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(c.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);

/** Every statement of the policies attached to a function's role. */
function statementsOf(fn: OperationsFunctions['sweeperFunction']): Statement[] {
  const roleId = stack.getLogicalId(fn.role?.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.values(policies)
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

const actionsOf = (statements: Statement[]) =>
  new Set(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])));

describe('schedules', () => {
  it('runs the sweeper every minute and triage every 15 minutes, without retries', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [idOf(ops.sweeperFunction), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [idOf(ops.triageFunction), 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [idOf(ops.sweeperFunction), 'Arn'] },
    });
  });

  it('rejects schedules and redrive bounds out of range, naming the range and the value', () => {
    expect(() => build({ sweepEveryMinutes: 0 })).toThrow(
      'OperationsFunctions sweepEveryMinutes must be an integer from 1 to 60; got 0',
    );
    expect(() => build({ maxRedrives: 99 })).toThrow(
      'OperationsFunctions maxRedrives must be an integer from 0 to 20; got 99',
    );
  });
});

describe('failed runs', () => {
  it('go to the failure queue, from the function (on-failure destination) and from EventBridge (dead-letter queue), unretried', () => {
    const queueArn = { 'Fn::GetAtt': [idOf(ops.failureQueue), 'Arn'] };
    for (const fn of [ops.sweeperFunction, ops.triageFunction]) {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: idOf(fn) },
        MaximumRetryAttempts: 0,
        MaximumEventAgeInSeconds: 3600,
        DestinationConfig: { OnFailure: { Destination: queueArn } },
      });
      template.hasResourceProperties('AWS::Events::Rule', {
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [idOf(fn), 'Arn'] },
            DeadLetterConfig: { Arn: queueArn },
            RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 3600 },
          }),
        ],
      });
      // Merged into the statement that sends to the work queues, as CDK merges same-action grants.
      const sends = statementsOf(fn).filter(
        (st) =>
          JSON.stringify(st.Action).includes('sqs:SendMessage') &&
          JSON.stringify(st.Resource).includes(JSON.stringify(queueArn)),
      );
      expect(sends, fn.node.id).toHaveLength(1);
    }
    // EventBridge may send the events it could not deliver, for these two rules only.
    const policy = Object.values(template.findResources('AWS::SQS::QueuePolicy')).find((p) =>
      JSON.stringify(p.Properties.Queues).includes(idOf(ops.failureQueue)),
    );
    const statements = (policy?.Properties.PolicyDocument.Statement ?? []) as {
      Principal?: { Service?: string };
      Condition?: unknown;
    }[];
    const fromEvents = statements.filter((st) => st.Principal?.Service === 'events.amazonaws.com');
    expect(fromEvents).toHaveLength(2);
    for (const st of fromEvents) expect(JSON.stringify(st.Condition)).toMatch(/aws:SourceArn/);
  });

  it('raise an alarm to the alerts topic as soon as one reaches the failure queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'ops-test-scheduled-run-failed',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(ops.failureQueue), 'QueueName'] } }],
      Statistic: 'Maximum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^AlertsTopic') }],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
  });
});

describe('environment', () => {
  it('gives each function a complete operations configuration, quiet periods from the topology', () => {
    const fn = template.findResources('AWS::Lambda::Function')[idOf(ops.sweeperFunction)];
    const vars = fn?.Properties.Environment.Variables as Record<string, unknown>;
    const config = loadOperationsConfig(deployedEnvironment(vars));
    expect(config.SWEEP_QUIET_SECONDS).toEqual({ realtime: 1800 + 300 + 60, batch: 300 + 300 + 60 });
    for (const role of QUEUE_ROLES) {
      expect(config.DLQ_URLS[role]).toMatch(/^https:\/\//);
      expect(config.DLQ_ARNS[role]).toBeTruthy();
    }
    expect(config.SWEEP_FINALIZE_QUIET_SECONDS).toBe(720 + 60);
    expect(config.DLQ_MAX_REDRIVES).toBe(2);
    expect(config.STATUS_INDEX_NAME).toBe('byStatus');
  });
});

describe('permissions', () => {
  it('lets the sweeper query the status index, send chunk and finalize messages, read stored documents and alert on an expired review, nothing more', () => {
    const actions = actionsOf(statementsOf(ops.sweeperFunction));
    for (const a of [
      'dynamodb:Query',
      'dynamodb:UpdateItem',
      'dynamodb:ConditionCheckItem',
      'sqs:SendMessage',
      's3:GetObject',
      'sns:Publish',
    ])
      expect(actions).toContain(a);
    for (const a of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 's3:PutObject', 'sqs:StartMessageMoveTask'])
      expect(actions).not.toContain(a);
    const s3Statement = statementsOf(ops.sweeperFunction).find((s) => s.Action === 's3:GetObject');
    expect(JSON.stringify(s3Statement?.Resource)).toContain('/work/*');
    expect(JSON.stringify(statementsOf(ops.sweeperFunction))).toContain('/index/byStatus');
  });

  it('lets triage consume every DLQ, send to source queues, move messages and publish alerts', () => {
    const statements = statementsOf(ops.triageFunction);
    const actions = actionsOf(statements);
    for (const a of [
      'sqs:ReceiveMessage',
      'sqs:DeleteMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:SendMessage',
      'sqs:StartMessageMoveTask',
      'sqs:ListMessageMoveTasks',
      'sns:Publish',
      'dynamodb:UpdateItem',
    ])
      expect(actions).toContain(a);
    expect(actions).not.toContain('s3:GetObject');
    expect(actions).not.toContain('bedrock:InvokeModel');
    const move = statements.find(
      (s) => Array.isArray(s.Action) && s.Action.includes('sqs:StartMessageMoveTask'),
    );
    const moveResources = JSON.stringify(move?.Resource);
    for (const role of ['Intake', 'Realtime', 'Batch', 'Finalize'])
      expect(moveResources).toMatch(new RegExp(`Queues${role}DeadLetterQueue`, 'i'));
    // Receive is granted on DLQs only, never on the work queues themselves.
    const receive = statements.filter((s) => JSON.stringify(s.Action).includes('sqs:ReceiveMessage'));
    expect(receive.every((s) => /DeadLetterQueue/i.test(JSON.stringify(s.Resource)))).toBe(true);
  });

  it('passes the AwsSolutions checks, with only the reviewed acknowledgement', () => {
    const report = new AwsSolutionsChecks(stack.node.root as App, { verbose: true }).validateScope(stack);
    const findings = report.violations
      .filter((v) => v.violatingResources.some((r) => (r.constructPath ?? '').includes('/Operations/')))
      .map((v) => `${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}`);
    expect(findings).toEqual([]);
  });
});
