import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketVersioningCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { CreateTopicCommand, type SNSClient } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type QueueAttributeName,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { ProvisionedResources } from '../lib/stack-outputs.js';
import {
  QUEUE_ROLES,
  type QueueRole,
  type QueueSettings,
  redriveAllowPolicy,
  type Topology,
} from '../lib/topology.js';

export type { ProvisionedResources };

/** The clients the provisioner talks through. */
export interface ProvisionClients {
  readonly sqs: SQSClient;
  readonly dynamodb: DynamoDBClient;
  readonly s3: S3Client;
  readonly sns: SNSClient;
}

async function ensureQueue(
  sqs: SQSClient,
  name: string,
  attributes: Partial<Record<QueueAttributeName, string>>,
): Promise<{ url: string; arn: string }> {
  // CreateQueue is idempotent only when the attributes match, so create bare and then set
  // them: a second run with changed settings updates the queue instead of failing.
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  const url = created.QueueUrl;
  if (!url) throw new Error(`CreateQueue for ${name} returned no QueueUrl`);
  await sqs.send(new SetQueueAttributesCommand({ QueueUrl: url, Attributes: attributes }));
  const got = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = got.Attributes?.QueueArn;
  if (!arn) throw new Error(`GetQueueAttributes for ${name} returned no QueueArn`);
  return { url, arn };
}

async function ensureQueuePair(sqs: SQSClient, q: QueueSettings) {
  const dlq = await ensureQueue(sqs, q.dlqName, { MessageRetentionPeriod: String(q.dlqRetentionSeconds) });
  const main = await ensureQueue(sqs, q.name, {
    VisibilityTimeout: String(q.visibilityTimeoutSeconds),
    MessageRetentionPeriod: String(q.retentionSeconds),
    ReceiveMessageWaitTimeSeconds: String(q.receiveWaitSeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: q.maxReceiveCount }),
  });
  await sqs.send(
    new SetQueueAttributesCommand({
      QueueUrl: dlq.url,
      Attributes: { RedriveAllowPolicy: JSON.stringify(redriveAllowPolicy(main.arn)) },
    }),
  );
  return { main, dlq };
}

async function ensureTable(dynamodb: DynamoDBClient, t: Topology): Promise<void> {
  const { table } = t;
  const keyAttributes = new Set<string>([table.partitionKey, table.sortKey]);
  for (const index of table.indexes) {
    keyAttributes.add(index.partitionKey);
    keyAttributes.add(index.sortKey);
  }
  try {
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...keyAttributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: table.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (let i = 0; i < 100; i++) {
    const described = await dynamodb.send(new DescribeTableCommand({ TableName: table.name }));
    if (described.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    await dynamodb.send(
      new UpdateTimeToLiveCommand({
        TableName: table.name,
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
      }),
    );
  } catch (error) {
    // Enabling TTL twice is refused with "TimeToLive is already enabled"; that is the state we want.
    if (!(error instanceof Error && /already enabled/i.test(error.message))) throw error;
  }
}

async function ensureBucket(s3: S3Client, name: string): Promise<void> {
  try {
    await s3.send(new CreateBucketCommand({ Bucket: name }));
  } catch (error) {
    if (!(error instanceof Error && error.name === 'BucketAlreadyOwnedByYou')) throw error;
  }
}

/**
 * Creates the topology's resources in an emulator (moto, LocalStack) with SDK calls:
 * queues with their DLQs, redrive and redrive-allow policies, the state table with its
 * indexes and TTL, the buckets (versioning on intake), the S3 → intake-queue notification
 * and the alerts topic. Idempotent: running it again converges on the same resources.
 */
export async function provision(t: Topology, clients: ProvisionClients): Promise<ProvisionedResources> {
  const pairs = await Promise.all(QUEUE_ROLES.map((role) => ensureQueuePair(clients.sqs, t.queues[role])));
  const byRole = <T>(pick: (p: (typeof pairs)[number]) => T) =>
    Object.fromEntries(
      QUEUE_ROLES.map((role, i) => [role, pick(pairs[i] as (typeof pairs)[number])]),
    ) as Record<QueueRole, T>;
  const queueUrls = byRole((p) => p.main.url);
  const queueArns = byRole((p) => p.main.arn);

  await Promise.all([
    ensureTable(clients.dynamodb, t),
    ensureBucket(clients.s3, t.buckets.intake.name),
    ensureBucket(clients.s3, t.buckets.results.name),
  ]);
  await clients.s3.send(
    new PutBucketVersioningCommand({
      Bucket: t.buckets.intake.name,
      VersioningConfiguration: { Status: 'Enabled' },
    }),
  );
  await clients.s3.send(
    new PutBucketNotificationConfigurationCommand({
      Bucket: t.buckets.intake.name,
      NotificationConfiguration: {
        QueueConfigurations: [
          {
            Id: 'intake',
            QueueArn: queueArns.intake,
            Events: [...t.intakeNotification.events] as never,
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: t.intakeNotification.prefix }] } },
          },
        ],
      },
    }),
  );
  const topic = await clients.sns.send(new CreateTopicCommand({ Name: t.alertsTopicName }));
  if (!topic.TopicArn) throw new Error(`CreateTopic for ${t.alertsTopicName} returned no TopicArn`);

  return {
    prefix: t.prefix,
    queueUrls,
    queueArns,
    dlqUrls: byRole((p) => p.dlq.url),
    dlqArns: byRole((p) => p.dlq.arn),
    tableName: t.table.name,
    intakeBucket: t.buckets.intake.name,
    intakePrefix: t.buckets.intake.prefix,
    resultsBucket: t.buckets.results.name,
    resultsPrefix: t.buckets.results.prefix,
    alertsTopicArn: topic.TopicArn,
  };
}
