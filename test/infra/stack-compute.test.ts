/**
 * The synthesized ClauseReviewStack's compute, read back from its CloudFormation template: the
 * pipeline functions (event sources, runtime, configuration, what each may read, write and
 * send), Bedrock access and lifecycle reads, and the batch lane's Fargate service. The stack is
 * synthesized once (bundling the real handlers with esbuild) and every test reads that template
 * (stack-fixtures.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IConstruct } from 'constructs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { CONFIG_VARIABLES, loadConfig } from '../../lambdas/shared/config.js';
import { QUEUE_ROLES, type QueueRole } from '../../lib/topology.js';
import { deployedEnvironment } from '../helpers/deployed-env.js';
import {
  app,
  asArray,
  idOf,
  ofType,
  policies,
  props,
  queueId,
  type Resource,
  render,
  stack,
  statementsOfRole,
  synthesizeStack,
} from './stack-fixtures.js';

synthesizeStack();

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
