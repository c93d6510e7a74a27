/**
 * The synthesized ClauseReviewStack, read back from its CloudFormation template: the document
 * buckets, the work queues, the state table, least privilege across every policy, the outputs
 * and cdk-nag. The stack is synthesized once, without building the handlers (nothing here reads
 * code), and every test reads that template (stack-fixtures.ts). The functions, the batch lane and what they may
 * call: stack-compute.test.ts.
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { resourcesFromOutputs, STACK_OUTPUTS } from '../../lib/stack-outputs.js';
import { QUEUE_ROLES } from '../../lib/topology.js';
import {
  app,
  asArray,
  dlqId,
  idOf,
  ofType,
  policies,
  props,
  queueId,
  type Resource,
  render,
  stack,
  statementsOf,
  statementsOfRole,
  synthesizeStack,
  template,
} from './stack-fixtures.js';

synthesizeStack({ bundle: false });

describe('document buckets', () => {
  const buckets = () => ({
    intake: idOf(stack.documentBuckets.intakeBucket),
    results: idOf(stack.documentBuckets.resultsBucket),
    accessLogs: idOf(stack.documentBuckets.accessLogsBucket),
  });

  it('block all public access and encrypt with S3-managed keys', () => {
    for (const id of Object.values(buckets())) {
      expect(props(id).PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
      expect(props(id).BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      });
    }
  });

  it('take their names from the topology, unique per account and region', () => {
    expect(render(props(buckets().intake).BucketName)).toBe(
      `clause-review-intake-\${AWS::AccountId}-\${AWS::Region}`,
    );
    expect(render(props(buckets().results).BucketName)).toBe(
      `clause-review-results-\${AWS::AccountId}-\${AWS::Region}`,
    );
  });

  it('version the intake bucket, so a job names the exact upload it reviewed', () => {
    expect(props(buckets().intake).VersioningConfiguration).toEqual({ Status: 'Enabled' });
  });

  it('log access to the intake and results buckets into the access log bucket', () => {
    for (const id of [buckets().intake, buckets().results]) {
      expect(
        (props(id).LoggingConfiguration as { DestinationBucketName: unknown }).DestinationBucketName,
      ).toEqual({
        Ref: buckets().accessLogs,
      });
    }
  });

  it('deny every request that does not use TLS', () => {
    for (const id of Object.values(buckets())) {
      const policy = ofType('AWS::S3::BucketPolicy').find(
        ([, r]) => render(r.Properties.Bucket) === `\${${id}}`,
      );
      expect(policy, `bucket policy of ${id}`).toBeDefined();
      const statements = statementsOf(policy?.[0] ?? '');
      expect(statements).toContainEqual(
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Principal: { AWS: '*' },
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
      );
    }
  });

  it('notify the intake queue of uploads under the intake prefix only', () => {
    const t = stack.topology;
    const notifications = ofType('Custom::S3BucketNotifications');
    expect(notifications).toHaveLength(1);
    const [, notification] = notifications[0] as [string, Resource];
    expect(notification.Properties.BucketName).toEqual({ Ref: buckets().intake });
    expect(notification.Properties.NotificationConfiguration).toEqual({
      QueueConfigurations: [
        {
          Events: [...t.intakeNotification.events],
          Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: t.intakeNotification.prefix }] } },
          QueueArn: { 'Fn::GetAtt': [queueId('intake'), 'Arn'] },
        },
      ],
    });
    expect(t.intakeNotification.prefix).toBe(t.buckets.intake.prefix);
  });

  it('let only the intake bucket send to the intake queue', () => {
    const policy = ofType('AWS::SQS::QueuePolicy').find(([, r]) =>
      (r.Properties.Queues as unknown[]).some((q) => render(q) === `\${${queueId('intake')}}`),
    );
    const allow = statementsOf(policy?.[0] ?? '').filter((s) => s.Effect === 'Allow');
    expect(allow).toEqual([
      expect.objectContaining({
        Principal: { Service: 's3.amazonaws.com' },
        Action: expect.arrayContaining(['sqs:SendMessage']),
        Condition: { ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [buckets().intake, 'Arn'] } } },
      }),
    ]);
  });
});

describe('work queues', () => {
  it('exist for every role with the name, retention and long polling of the topology', () => {
    for (const role of QUEUE_ROLES) {
      const q = stack.topology.queues[role];
      expect(props(queueId(role))).toMatchObject({
        QueueName: q.name,
        MessageRetentionPeriod: q.retentionSeconds,
        ReceiveMessageWaitTimeSeconds: q.receiveWaitSeconds,
        VisibilityTimeout: q.visibilityTimeoutSeconds,
        SqsManagedSseEnabled: true,
      });
      expect(props(dlqId(role))).toMatchObject({ QueueName: q.dlqName, SqsManagedSseEnabled: true });
    }
  });

  it('redrive to their DLQ after the maxReceiveCount of the topology', () => {
    for (const role of QUEUE_ROLES) {
      expect(props(queueId(role)).RedrivePolicy).toEqual({
        deadLetterTargetArn: { 'Fn::GetAtt': [dlqId(role), 'Arn'] },
        maxReceiveCount: stack.topology.queues[role].maxReceiveCount,
      });
    }
  });

  it('keep dead letters 14 days', () => {
    for (const role of QUEUE_ROLES) expect(props(dlqId(role)).MessageRetentionPeriod).toBe(1_209_600);
  });

  it('allow redrive into each DLQ from its own source queue only', () => {
    for (const role of QUEUE_ROLES) {
      const policy = props(dlqId(role)).RedriveAllowPolicy as {
        redrivePermission: string;
        sourceQueueArns: unknown[];
      };
      expect(policy.redrivePermission).toBe('byQueue');
      expect(policy.sourceQueueArns.map(render)).toEqual([
        `arn:\${AWS::Partition}:sqs:\${AWS::Region}:\${AWS::AccountId}:${props(queueId(role)).QueueName}`,
      ]);
    }
  });

  it('deny every request that does not use TLS', () => {
    for (const role of QUEUE_ROLES) {
      for (const id of [queueId(role), dlqId(role)]) {
        const policy = ofType('AWS::SQS::QueuePolicy').find(([, r]) =>
          (r.Properties.Queues as unknown[]).some((q) => render(q) === `\${${id}}`),
        );
        expect(statementsOf(policy?.[0] ?? '')).toContainEqual(
          expect.objectContaining({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        );
      }
    }
  });

  it('raise an alarm to the alerts topic as soon as a message reaches a DLQ', () => {
    for (const role of QUEUE_ROLES) {
      const alarm = ofType('AWS::CloudWatch::Alarm').find(([, r]) =>
        ((r.Properties.Dimensions as { Value: unknown }[] | undefined) ?? []).some(
          (d) => render(d.Value) === `\${${dlqId(role)}.QueueName}`,
        ),
      );
      expect(alarm?.[1].Properties, `alarm on the ${role} DLQ`).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: idOf(stack.alerts.topic) }],
      });
    }
  });
});

describe('state table', () => {
  it('is on-demand, recoverable to any second, encrypted, keyed pk/sk with the byStatus and byOwner indexes and TTL', () => {
    const t = stack.topology.table;
    const table = props(idOf(stack.stateTable.table));
    expect(table).toMatchObject({
      TableName: t.name,
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    expect(table.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'byStatus',
        KeySchema: [
          { AttributeName: 'gsi1pk', KeyType: 'HASH' },
          { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'byOwner',
        KeySchema: [
          { AttributeName: 'gsi2pk', KeyType: 'HASH' },
          { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
  });
});

describe('least privilege', () => {
  it('grants no wildcard action, and "*" resources only where IAM allows nothing narrower', () => {
    const wildcards: string[] = [];
    for (const p of policies()) {
      for (const s of p.statements.filter((st) => st.Effect === 'Allow')) {
        for (const action of asArray(s.Action)) {
          if (action === '*' || action.endsWith(':*')) wildcards.push(`${p.id}: action ${action}`);
        }
        if (asArray(s.Resource).some((r) => r === '*'))
          wildcards.push(`${p.id}: ${asArray(s.Action).join(',')} on *`);
      }
    }
    expect(wildcards.sort()).toEqual([
      expect.stringMatching(/ExecutionRole.*: ecr:GetAuthorizationToken on \*$/),
      expect.stringMatching(/TaskRole.*: cloudwatch:PutMetricData on \*$/),
    ]);
  });

  it('lets the batch workers put metrics into the ClauseReview namespace only', () => {
    const putMetrics = policies()
      .flatMap((p) => p.statements)
      .filter((st) => asArray(st.Action).includes('cloudwatch:PutMetricData'));
    expect(putMetrics).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Action: 'cloudwatch:PutMetricData',
        Resource: '*',
        Condition: { StringEquals: { 'cloudwatch:namespace': 'ClauseReview' } },
      }),
    ]);
  });

  it('gives the handlers item access to the state table, not Scan, and no index but the status index to intake and finalize', () => {
    const table = idOf(stack.stateTable.table);
    const starters: readonly unknown[] = [stack.functions.intakeFunction, stack.functions.finalizeFunction];
    for (const fn of Object.values(stack.functions.functions)) {
      const dynamo = statementsOfRole(idOf(fn.role as IConstruct)).filter((s) =>
        asArray(s.Action).some((a) => a.startsWith('dynamodb:')),
      );
      const statusIndex = `\${${table}.Arn}/index/${stack.topology.table.indexes[0]?.name}`;
      expect(dynamo.flatMap((s) => asArray(s.Resource).map(render))).toEqual(
        starters.includes(fn) ? [`\${${table}.Arn}`, statusIndex] : [`\${${table}.Arn}`],
      );
      expect(dynamo.flatMap((s) => asArray(s.Action))).not.toContain('dynamodb:Scan');
    }
  });
});

describe('outputs', () => {
  it('publish everything the CLI reads, under the names stack-outputs.ts defines', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const keys = [
      STACK_OUTPUTS.prefix,
      STACK_OUTPUTS.tableName,
      STACK_OUTPUTS.intakeBucket,
      STACK_OUTPUTS.intakePrefix,
      STACK_OUTPUTS.resultsBucket,
      STACK_OUTPUTS.resultsPrefix,
      STACK_OUTPUTS.alertsTopicArn,
      STACK_OUTPUTS.apiUrl,
      ...QUEUE_ROLES.flatMap((r) => [
        STACK_OUTPUTS.queueUrl(r),
        STACK_OUTPUTS.queueArn(r),
        STACK_OUTPUTS.dlqUrl(r),
        STACK_OUTPUTS.dlqArn(r),
      ]),
    ];
    for (const key of keys) expect(outputs[key], key).toBeDefined();
    expect(outputs.Prefix?.Value).toBe('clause-review');
    expect(outputs.IntakePrefix?.Value).toBe(stack.topology.buckets.intake.prefix);
    expect(outputs.RealtimeQueueUrl?.Value).toEqual({ Ref: queueId('realtime') });
    expect(outputs.BatchDlqArn?.Value).toEqual({ 'Fn::GetAtt': [dlqId('batch'), 'Arn'] });
    // The CLI's reader accepts the complete set.
    const deployed = Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, render(o.Value)]));
    expect(resourcesFromOutputs(deployed).queueUrls.realtime).toBe(`\${${queueId('realtime')}}`);
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing that is not acknowledged', () => {
    const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
    const findings = report.violations.map(
      (v) =>
        `${v.ruleName} (${v.severity}) at ${v.violatingResources.map((r) => r.constructPath).join(', ')}: ${v.description}`,
    );
    if (findings.length > 0) console.error(`cdk-nag findings:\n${findings.join('\n')}`);
    expect(findings).toEqual([]);
  });

  it('acknowledges exactly the reviewed findings, each with a reason', () => {
    const acknowledged: string[] = [];
    for (const c of stack.node.findAll()) {
      for (const entry of c.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, unknown>)) {
          const rule = id.replace(/^annotation::/i, '');
          if (!rule.startsWith('AwsSolutions-')) continue; // aws-cdk-lib's own CloudFormation checks
          const text = typeof reason === 'string' ? reason : JSON.stringify(reason);
          expect(text.length, `reason of ${rule}`).toBeGreaterThan(80);
          acknowledged.push(
            `${c.node.path.replace(/[0-9a-f]{32}$/, '')}: ${rule.replace(/<(\w+?)[0-9A-F]{8}\.Arn>/, '<$1.Arn>')}`,
          );
        }
      }
    }
    expect(acknowledged.sort()).toEqual(
      [
        'ClauseReview/App/Distribution: AwsSolutions-CFR1',
        'ClauseReview/App/Distribution: AwsSolutions-CFR2',
        'ClauseReview/AWS679f53fac002430cb0da5b7982bd2287/ServiceRole: AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'ClauseReview/App/Distribution: AwsSolutions-CFR4',
        'ClauseReview/SignIn/InvokeStatusApi: AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<StatusApiE9E0F2A1>/*/*/*]',
        'ClauseReview/BatchLane/TaskDefinition/ExecutionRole: AwsSolutions-IAM5[Resource::*]',
        'ClauseReview/BatchLane/TaskDefinition/TaskRole: AwsSolutions-IAM5[Resource::*]',
        'ClauseReview/BatchLane/TaskDefinition: AwsSolutions-ECS2',
        'ClauseReview/BucketNotificationsHandler: AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'ClauseReview/Functions/FinalizeRole: AwsSolutions-IAM5[Resource::<DocumentsIntake.Arn>/incoming/*]',
        'ClauseReview/Functions/FinalizeRole: AwsSolutions-IAM5[Resource::<DocumentsResults.Arn>/reports/*]',
        'ClauseReview/Functions/FinalizeRole: AwsSolutions-IAM5[Resource::<DocumentsResults.Arn>/work/*]',
        'ClauseReview/Functions/IntakeRole: AwsSolutions-IAM5[Resource::<DocumentsIntake.Arn>/incoming/*]',
        'ClauseReview/Functions/IntakeRole: AwsSolutions-IAM5[Resource::<DocumentsResults.Arn>/work/*]',
        'ClauseReview/StatusApi/HandlerRole: AwsSolutions-IAM5[Resource::<DocumentsIntake.Arn>/incoming/*]',
        'ClauseReview/StatusApi/HandlerRole: AwsSolutions-IAM5[Resource::<DocumentsResults.Arn>/reports/*]',
        'ClauseReview/StatusApi/HandlerRole: AwsSolutions-IAM5[Resource::<DocumentsResults.Arn>/work/*]',
        'ClauseReview/Operations/SweeperRole: AwsSolutions-IAM5[Resource::<DocumentsResults.Arn>/work/*]',
        'ClauseReview/Operations/FailedRuns: AwsSolutions-SQS3',
      ].sort(),
    );
  });
});
