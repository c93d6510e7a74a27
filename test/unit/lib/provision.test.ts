import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  PutBucketNotificationConfigurationCommand,
  PutBucketVersioningCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { CreateTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { topology } from '../../../lib/topology.js';
import { provision } from '../../../localstack/provision.js';

const sqsMock = mockClient(SQSClient);
const ddbMock = mockClient(DynamoDBClient);
const s3Mock = mockClient(S3Client);
const snsMock = mockClient(SNSClient);

const t = topology({ prefix: 'unit-prov' });
const clients = {
  sqs: new SQSClient({}),
  dynamodb: new DynamoDBClient({}),
  s3: new S3Client({}),
  sns: new SNSClient({}),
};

beforeEach(() => {
  for (const m of [sqsMock, ddbMock, s3Mock, snsMock]) m.reset();
  sqsMock.on(CreateQueueCommand).callsFake((input) => ({ QueueUrl: `http://q/${input.QueueName}` }));
  sqsMock.on(GetQueueAttributesCommand).callsFake((input) => ({
    Attributes: { QueueArn: `arn:aws:sqs:us-east-1:1:${input.QueueUrl.slice(9)}` },
  }));
  ddbMock.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE' } });
  snsMock.on(CreateTopicCommand).resolves({ TopicArn: 'arn:aws:sns:us-east-1:1:unit-prov-alerts' });
});

describe('provision', () => {
  it('gives every DLQ a redrive-allow policy naming only its source queue', async () => {
    await provision(t, clients);
    const allow = sqsMock
      .commandCalls(SetQueueAttributesCommand)
      .filter((c) => c.args[0].input.Attributes?.RedriveAllowPolicy)
      .map((c) => [
        c.args[0].input.QueueUrl,
        JSON.parse(c.args[0].input.Attributes?.RedriveAllowPolicy ?? ''),
      ]);
    expect(allow).toHaveLength(4);
    expect(allow).toContainEqual([
      'http://q/unit-prov-realtime-dlq',
      { redrivePermission: 'byQueue', sourceQueueArns: ['arn:aws:sqs:us-east-1:1:unit-prov-realtime'] },
    ]);
  });

  it('wires each work queue to its DLQ with the topology maxReceiveCount and visibility', async () => {
    await provision(t, clients);
    const set = sqsMock
      .commandCalls(SetQueueAttributesCommand)
      .find((c) => c.args[0].input.QueueUrl === 'http://q/unit-prov-finalize');
    expect(set?.args[0].input.Attributes).toMatchObject({
      VisibilityTimeout: String(t.queues.finalize.visibilityTimeoutSeconds),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: 'arn:aws:sqs:us-east-1:1:unit-prov-finalize-dlq',
        maxReceiveCount: t.queues.finalize.maxReceiveCount,
      }),
    });
  });

  it('treats an existing table, enabled TTL and owned buckets as done, not as failures', async () => {
    ddbMock
      .on(CreateTableCommand)
      .rejects(new ResourceInUseException({ message: 'Table already exists', $metadata: {} }));
    ddbMock
      .on(UpdateTimeToLiveCommand)
      .rejects(Object.assign(new Error('TimeToLive is already enabled'), { name: 'ValidationException' }));
    s3Mock
      .on(CreateBucketCommand)
      .rejects(Object.assign(new Error('owned'), { name: 'BucketAlreadyOwnedByYou' }));
    const resources = await provision(t, clients);
    expect(resources.tableName).toBe('unit-prov-state');
    expect(s3Mock.commandCalls(PutBucketVersioningCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'unit-prov-intake',
      VersioningConfiguration: { Status: 'Enabled' },
    });
    const notification = s3Mock.commandCalls(PutBucketNotificationConfigurationCommand)[0]?.args[0].input;
    expect(notification?.NotificationConfiguration?.QueueConfigurations?.[0]).toMatchObject({
      QueueArn: 'arn:aws:sqs:us-east-1:1:unit-prov-intake',
      Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'incoming/' }] } },
    });
  });

  it('does not swallow other failures', async () => {
    s3Mock.on(CreateBucketCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDenied' }));
    await expect(provision(t, clients)).rejects.toThrow('denied');
  });
});
