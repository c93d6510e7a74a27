/**
 * The synthesized ClauseReviewStack, read back from its CloudFormation template. The stack is
 * synthesized once (bundling the real handlers with esbuild) and every test reads that template.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/models.js';
import { CONFIG_VARIABLES, loadConfig } from '../../lambdas/shared/config.js';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { resourcesFromOutputs, STACK_OUTPUTS } from '../../lib/stack-outputs.js';
import { QUEUE_ROLES, type QueueRole } from '../../lib/topology.js';
import { deployedEnvironment } from '../helpers/deployed-env.js';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

let app: App;
let stack: ClauseReviewStack;
let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  // The same feature flags `cdk synth` uses, so the tests check what would be deployed.
  const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
  app = new App({ context });
  stack = new ClauseReviewStack(app, 'ClauseReview', { stackName: 'clause-review' });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Record<string, Resource>;
});

afterAll(() => {
  // The cloud assembly (bundles, staged Docker context) goes to a fresh temporary directory.
  if (app) rmSync(app.outdir, { recursive: true, force: true });
});

/** The logical id of a construct's CloudFormation resource. */
function idOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

function props(logicalId: string): Record<string, unknown> {
  const r = resources[logicalId];
  if (!r) throw new Error(`no resource ${logicalId} in the template`);
  return r.Properties;
}

function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/** Renders Ref / GetAtt / Join as `${…}` text, so ARNs and names can be compared as strings. */
function render(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('Ref' in o) return `\${${String(o.Ref)}}`;
    if ('Fn::GetAtt' in o) return `\${${(o['Fn::GetAtt'] as string[]).join('.')}}`;
    if ('Fn::Join' in o) {
      const [separator, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map(render).join(separator);
    }
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function statementsOf(policyLogicalId: string): Statement[] {
  return (props(policyLogicalId).PolicyDocument as { Statement: Statement[] }).Statement;
}

/** Every IAM policy in the template with the roles it is attached to. */
function policies(): { id: string; roles: string[]; statements: Statement[] }[] {
  return ofType('AWS::IAM::Policy').map(([id, r]) => ({
    id,
    roles: ((r.Properties.Roles as unknown[]) ?? []).map(render),
    statements: statementsOf(id),
  }));
}

function statementsOfRole(roleLogicalId: string): Statement[] {
  return policies()
    .filter((p) => p.roles.includes(`\${${roleLogicalId}}`))
    .flatMap((p) => p.statements);
}

const queueId = (role: QueueRole) => idOf(stack.workQueues.queues[role]);
const dlqId = (role: QueueRole) => idOf(stack.workQueues.deadLetterQueues[role]);

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

describe('pipeline functions', () => {
  const consumers: Record<'intake' | 'worker' | 'finalize', QueueRole> = {
    intake: 'intake',
    worker: 'realtime',
    finalize: 'finalize',
  };

  it('consume their queues with partial batch responses, batch size and maximum concurrency of the topology', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(3);
    for (const [name, role] of Object.entries(consumers)) {
      const fn = stack.functions.functions[name as keyof typeof consumers];
      const mapping = mappings.find(([, r]) => render(r.Properties.FunctionName) === `\${${idOf(fn)}}`);
      const q = stack.topology.queues[role];
      expect(mapping?.[1].Properties, `event source of ${name}`).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [queueId(role), 'Arn'] },
        BatchSize: q.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: q.maxConcurrency },
      });
    }
  });

  it('leave concurrency to the event sources: no function reserves concurrency', () => {
    for (const [id, r] of ofType('AWS::Lambda::Function')) {
      expect(r.Properties.ReservedConcurrentExecutions, id).toBeUndefined();
    }
  });

  it('give every queue a visibility timeout of at least six times its consumer function timeout', () => {
    for (const [, mapping] of ofType('AWS::Lambda::EventSourceMapping')) {
      const fnId = render(mapping.Properties.FunctionName).slice(2, -1);
      const queue = render(mapping.Properties.EventSourceArn)
        .slice(2, -1)
        .replace(/\.Arn$/, '');
      const timeout = props(fnId).Timeout as number;
      expect(timeout).toBeGreaterThan(0);
      expect(props(queue).VisibilityTimeout as number).toBeGreaterThanOrEqual(6 * timeout);
    }
  });

  it('run on arm64 Node.js with timeouts from the topology and source-mapped stack traces', () => {
    for (const [name, role] of Object.entries(consumers)) {
      const fn = props(idOf(stack.functions.functions[name as keyof typeof consumers]));
      expect(fn).toMatchObject({
        Architectures: ['arm64'],
        Runtime: expect.stringMatching(/^nodejs\d+\.x$/),
        Handler: 'index.handler',
        Timeout: stack.topology.queues[role].consumerTimeoutSeconds,
        Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }) },
      });
    }
  });

  it('hand every handler a complete runtime configuration', () => {
    for (const fn of Object.values(stack.functions.functions)) {
      const env = (props(idOf(fn)).Environment as { Variables: Record<string, unknown> }).Variables;
      expectCompleteRuntimeEnvironment(env);
    }
  });

  it('tell intake which role signs the uploads of the API, so only those may name their submitter', () => {
    const env = (
      props(idOf(stack.functions.intakeFunction)).Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(env.API_ROLE_ID).toEqual({ 'Fn::GetAtt': [idOf(stack.statusApi.role), 'RoleId'] });
  });

  it('give the status API the models intake prices with, so POST /quote answers what intake will', () => {
    const envOf = (fn: IConstruct) =>
      (props(idOf(fn)).Environment as { Variables: Record<string, unknown> }).Variables;
    const intake = envOf(stack.functions.intakeFunction);
    const api = envOf(stack.statusApi.handler);
    for (const name of ['MODEL_ID', 'FALLBACK_MODEL_ID', 'ANALYST_MODELS'] as const) {
      expect(api[name], name).toEqual(intake[name]);
    }
    expect(api.MODEL_ID).toBe(PRIMARY_MODEL_ID);
  });

  it('let only intake (to review) and finalize (to comment a DOCX) read uploads, and only under the intake prefix', () => {
    const intake = idOf(stack.documentBuckets.intakeBucket);
    const readers = policies().filter((p) =>
      p.statements.some(
        (s) =>
          asArray(s.Action).includes('s3:GetObject') &&
          asArray(s.Resource).some((r) => render(r).includes(intake)),
      ),
    );
    expect(readers.flatMap((p) => p.roles)).toEqual([
      `\${${idOf(stack.functions.intakeFunction.role as IConstruct)}}`,
      `\${${idOf(stack.functions.finalizeFunction.role as IConstruct)}}`,
    ]);
    const read = readers[0]?.statements.find((s) => asArray(s.Action).includes('s3:GetObject'));
    expect(asArray(read?.Action ?? []).sort()).toEqual([
      's3:GetObject',
      's3:GetObjectTagging',
      's3:GetObjectVersion',
      's3:GetObjectVersionTagging',
    ]);
    expect(render(read?.Resource)).toBe(`\${${intake}.Arn}/${stack.topology.buckets.intake.prefix}*`);
  });

  it('let intake and finalize write the results bucket under their own prefixes only', async () => {
    const { documentKey } = await import('../../lambdas/core/intake/intake.js');
    const { reportKeys } = await import('../../lambdas/core/finalize/finalize.js');
    const results = idOf(stack.documentBuckets.resultsBucket);
    const puts = (fn: IConstruct | undefined) =>
      statementsOfRole(idOf(fn as IConstruct))
        .filter((s) => asArray(s.Action).includes('s3:PutObject'))
        .map((s) => render(s.Resource));
    const work = `\${${results}.Arn}/work/*`;
    expect(puts(stack.functions.intakeFunction.role)).toEqual([work]);
    expect(puts(stack.functions.finalizeFunction.role)).toEqual([
      `\${${results}.Arn}/${stack.topology.buckets.results.prefix}*`,
    ]);
    expect(puts(stack.functions.workerFunction.role)).toEqual([]);
    // The prefixes granted are the ones the runtime writes to.
    expect(documentKey('j-1').startsWith('work/')).toBe(true);
    expect(reportKeys(stack.topology.buckets.results.prefix, 'j-1').json.startsWith('reports/')).toBe(true);
    expect(reportKeys(stack.topology.buckets.results.prefix, 'j-1').docx.startsWith('reports/')).toBe(true);
  });

  it("lets finalize send chunk messages to the lanes (a queued job it starts), and no other queue's", () => {
    const sends = statementsOfRole(idOf(stack.functions.finalizeFunction.role as IConstruct))
      .filter((s) => asArray(s.Action).includes('sqs:SendMessage'))
      .flatMap((s) => asArray(s.Resource).map(render))
      .sort();
    expect(sends).toEqual([`\${${queueId('batch')}.Arn}`, `\${${queueId('realtime')}.Arn}`].sort());
  });

  it('lets intake send to the lanes and back to its own queue (an upload routed to its owner), and no other queue', () => {
    const sends = statementsOfRole(idOf(stack.functions.intakeFunction.role as IConstruct))
      .filter((s) => asArray(s.Action).includes('sqs:SendMessage'))
      .flatMap((s) => asArray(s.Resource).map(render))
      .sort();
    expect(sends).toEqual(
      (['batch', 'intake', 'realtime'] as const).map((q) => `\${${queueId(q)}.Arn}`).sort(),
    );
  });

  it("lets intake and finalize query the jobs-by-status index (an owner's queued jobs), and the worker not", () => {
    const statusIndex = `\${${idOf(stack.stateTable.table)}.Arn}/index/${stack.topology.table.indexes[0]?.name}`;
    const queries = (fn: IConstruct | undefined) =>
      statementsOfRole(idOf(fn as IConstruct))
        .filter((s) => asArray(s.Action).includes('dynamodb:Query'))
        .flatMap((s) => asArray(s.Resource).map(render))
        .filter((r) => r.includes('/index/'));
    expect(queries(stack.functions.intakeFunction.role)).toEqual([statusIndex]);
    expect(queries(stack.functions.finalizeFunction.role)).toEqual([statusIndex]);
    expect(queries(stack.functions.workerFunction.role)).toEqual([]);
  });

  it('lets finalize read uploads (to comment a DOCX in report.docx) under the intake prefix only, and write none', () => {
    const intake = idOf(stack.documentBuckets.intakeBucket);
    const onIntake = statementsOfRole(idOf(stack.functions.finalizeFunction.role as IConstruct)).filter((s) =>
      asArray(s.Resource).some((r) => render(r).includes(intake)),
    );
    expect(onIntake.map((s) => [asArray(s.Action).sort(), asArray(s.Resource).map(render)])).toEqual([
      [
        ['s3:GetObject', 's3:GetObjectVersion'],
        [`\${${intake}.Arn}/${stack.topology.buckets.intake.prefix}*`],
      ],
    ]);
  });
});

describe('Bedrock access', () => {
  const US = ['us-east-1', 'us-east-2', 'us-west-2'];
  const profileArns = (profileId: string) => [
    `arn:\${AWS::Partition}:bedrock:\${AWS::Region}:\${AWS::AccountId}:inference-profile/${profileId}`,
    ...US.map(
      (r) => `arn:\${AWS::Partition}:bedrock:${r}::foundation-model/${profileId.replace(/^us\./, '')}`,
    ),
  ];

  it('allows bedrock:InvokeModel on exactly the configured profiles and their models in the profile regions, for intake (its day-one check), the worker and the batch task only', () => {
    const bedrock = policies().flatMap((p) =>
      p.statements
        .filter((s) => asArray(s.Action).includes('bedrock:InvokeModel'))
        .map((s) => ({ roles: p.roles, statement: s })),
    );
    expect(bedrock.flatMap((b) => b.roles).sort()).toEqual(
      [
        `\${${idOf(stack.functions.intakeFunction.role as IConstruct)}}`,
        `\${${idOf(stack.functions.workerFunction.role as IConstruct)}}`,
        `\${${idOf(batchLane().taskDefinition.taskRole)}}`,
      ].sort(),
    );
    for (const { statement } of bedrock) {
      expect(statement.Effect).toBe('Allow');
      expect(asArray(statement.Action)).toEqual(['bedrock:InvokeModel']);
      expect(asArray(statement.Resource).map(render).sort()).toEqual(
        [...profileArns(PRIMARY_MODEL_ID), ...profileArns(FALLBACK_MODEL_ID)].sort(),
      );
    }
  });
});

describe('Bedrock lifecycle reads', () => {
  it('let intake, the worker and the batch task read exactly the configured models and profiles', () => {
    const reads = policies().flatMap((p) =>
      p.statements
        .filter((s) => asArray(s.Action).some((a) => a.startsWith('bedrock:Get')))
        .map((s) => ({ roles: p.roles, statement: s })),
    );
    expect(new Set(reads.flatMap((r) => r.roles)).size).toBe(3);
    for (const { statement } of reads) {
      const [action] = asArray(statement.Action);
      const resources = asArray(statement.Resource).map(render).sort();
      if (action === 'bedrock:GetFoundationModel') {
        expect(resources).toEqual(
          ['anthropic.claude-haiku-5-5', 'anthropic.claude-sonnet-4-6'].map(
            (id) => `arn:\${AWS::Partition}:bedrock:\${AWS::Region}::foundation-model/${id}`,
          ),
        );
      } else {
        expect(action).toBe('bedrock:GetInferenceProfile');
        expect(resources).toEqual(
          [PRIMARY_MODEL_ID, FALLBACK_MODEL_ID].map(
            (id) =>
              `arn:\${AWS::Partition}:bedrock:\${AWS::Region}:\${AWS::AccountId}:inference-profile/${id}`,
          ),
        );
      }
    }
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

describe('batch lane', () => {
  it('runs a Fargate service on arm64 with container insights, scaled from zero on the batch queue', () => {
    const services = ofType('AWS::ECS::Service');
    expect(services).toHaveLength(1);
    expect(services[0]?.[1].Properties).toMatchObject({ LaunchType: 'FARGATE' });
    const cluster = props(idOf(batchLane().cluster));
    expect(cluster.ClusterSettings).toEqual([{ Name: 'containerInsights', Value: 'enabled' }]);
    expect(props(idOf(batchLane().taskDefinition)).RuntimePlatform).toEqual({
      CpuArchitecture: 'ARM64',
      OperatingSystemFamily: 'LINUX',
    });
    const [, target] = ofType('AWS::ApplicationAutoScaling::ScalableTarget')[0] as [string, Resource];
    expect(target.Properties).toMatchObject({
      MinCapacity: 0,
      MaxCapacity: stack.topology.queues.batch.maxConcurrency,
    });
  });

  it('scales in only when the batch queue holds nothing, visible or in flight', () => {
    const scaleIn = ofType('AWS::CloudWatch::Alarm').find(([, r]) =>
      ((r.Properties.Metrics as { Expression?: string }[] | undefined) ?? []).some(
        (m) => m.Expression === 'visible + inFlight',
      ),
    );
    expect(scaleIn?.[1].Properties).toMatchObject({
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      Threshold: 0,
    });
    const metrics = scaleIn?.[1].Properties.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[];
    expect(metrics.flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : [])).sort()).toEqual([
      'ApproximateNumberOfMessagesNotVisible',
      'ApproximateNumberOfMessagesVisible',
    ]);
    // The pattern's own rule (scale in whenever nothing is *visible*) must not exist.
    const lowerOnVisible = ofType('AWS::CloudWatch::Alarm').filter(
      ([, r]) =>
        r.Properties.MetricName === 'ApproximateNumberOfMessagesVisible' &&
        r.Properties.ComparisonOperator === 'LessThanOrEqualToThreshold',
    );
    expect(lowerOnVisible).toEqual([]);
  });

  it('lets the task role consume the batch queue and send to finalize, and nothing else of SQS', () => {
    const taskRole = idOf(batchLane().taskDefinition.taskRole);
    expect(render(props(idOf(batchLane().taskDefinition)).TaskRoleArn)).toBe(`\${${taskRole}.Arn}`);
    const sqs = statementsOfRole(taskRole).filter((s) => asArray(s.Action).some((a) => a.startsWith('sqs:')));
    const consume = sqs.find((s) => asArray(s.Action).includes('sqs:ReceiveMessage'));
    expect(asArray(consume?.Action ?? [])).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']),
    );
    expect(render(consume?.Resource)).toBe(`\${${queueId('batch')}.Arn}`);
    const sends = sqs
      .filter((s) => asArray(s.Action).includes('sqs:SendMessage'))
      .map((s) => render(s.Resource));
    expect(sends).toEqual([`\${${queueId('finalize')}.Arn}`]);
  });

  it('runs the worker read-only with time to finish its chunks, and a complete runtime configuration', () => {
    const [container] = props(idOf(batchLane().taskDefinition)).ContainerDefinitions as {
      Environment: { Name: string; Value: unknown }[];
      ReadonlyRootFilesystem: boolean;
      StopTimeout: number;
    }[];
    expect(container?.ReadonlyRootFilesystem).toBe(true);
    expect(container?.StopTimeout).toBe(120);
    expectCompleteRuntimeEnvironment(
      Object.fromEntries((container?.Environment ?? []).map((e) => [e.Name, e.Value])),
    );
  });

  it("stages a Docker build context that holds everything the worker's entry point imports", async () => {
    const manifest = JSON.parse(
      readFileSync(join(app.outdir, `${stack.artifactId}.assets.json`), 'utf8'),
    ) as {
      dockerImages: Record<string, { source: { directory: string; dockerFile: string; platform: string } }>;
    };
    const images = Object.values(manifest.dockerImages);
    expect(images).toHaveLength(1);
    const source = images[0]?.source;
    expect(source).toMatchObject({ dockerFile: 'lambdas/batch-worker/Dockerfile', platform: 'linux/arm64' });
    const context = join(app.outdir, source?.directory ?? '');
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'lambdas/batch-worker/Dockerfile',
    ]) {
      expect(existsSync(join(context, file)), file).toBe(true);
    }
    for (const excluded of ['node_modules', 'test', 'cdk.out', '.venv-moto', '.git', 'bin']) {
      expect(existsSync(join(context, excluded)), excluded).toBe(false);
    }
    // Resolving every relative import inside the staged context fails if .dockerignore left one out.
    const result = await build({
      entryPoints: [join(context, 'lambdas/batch-worker/main.ts')],
      bundle: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
  });

  it('lets tasks make outbound HTTPS calls and accepts no inbound traffic', () => {
    const sg = props(idOf(batchLane().securityGroup));
    expect(sg.SecurityGroupIngress).toBeUndefined();
    expect(sg.SecurityGroupEgress).toEqual([
      expect.objectContaining({ IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
    ]);
  });
});

/** The batch lane's Fargate service. */
function batchLane() {
  const service = stack.laneServices.batch;
  if (!service) throw new Error('the stack has no batch lane service');
  return service;
}

/**
 * Every variable a handler or worker gets is one the runtime reads, the resources are the
 * stack's own, and the runtime's own parser accepts the whole set (so nothing required is
 * missing and every literal parses).
 */
function expectCompleteRuntimeEnvironment(env: Record<string, unknown>): void {
  const known = new Set<string>([...CONFIG_VARIABLES, 'NODE_OPTIONS', 'POLLER_LANE', 'POLLER_CONCURRENCY']);
  expect(Object.keys(env).filter((k) => !known.has(k))).toEqual([]);
  expect(env).toMatchObject({
    TABLE_NAME: { Ref: idOf(stack.stateTable.table) },
    INTAKE_BUCKET: { Ref: idOf(stack.documentBuckets.intakeBucket) },
    RESULTS_BUCKET: { Ref: idOf(stack.documentBuckets.resultsBucket) },
    RESULTS_PREFIX: stack.topology.buckets.results.prefix,
    ALERTS_TOPIC_ARN: { Ref: idOf(stack.alerts.topic) },
    MODEL_ID: PRIMARY_MODEL_ID,
    FALLBACK_MODEL_ID: FALLBACK_MODEL_ID,
    REDELIVERY_BACKOFF_SECONDS: stack.topology.redeliveryBackoffSeconds.join(','),
    INTAKE_MAX_RECEIVE_COUNT: String(stack.topology.queues.intake.maxReceiveCount),
  });
  // What the deployed values look like once CloudFormation resolves the references: every
  // queue's URL under its role, in the one JSON variable.
  const config = loadConfig(deployedEnvironment(env));
  for (const role of QUEUE_ROLES) expect(config.QUEUE_URLS[role]).toMatch(new RegExp(`/${queueId(role)}$`));
}

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
