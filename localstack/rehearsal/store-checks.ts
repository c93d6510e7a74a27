/**
 * The deployed queues, table and buckets read back through SQS, DynamoDB and S3, each compared
 * with what the template asks for.
 */
import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetBucketNotificationConfigurationCommand, GetBucketVersioningCommand } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { propertiesNotApplied } from './coverage.js';
import { type CheckResult, type clients, type DeploymentInput, ofType, same } from './template-read.js';
import { resolveDeferred } from './template-transform.js';

export async function checkQueues(
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

export async function checkTable(
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

export async function checkBuckets(
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
