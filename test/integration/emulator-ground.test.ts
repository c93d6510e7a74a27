import {
  ConditionalCheckFailedException,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { GetBucketVersioningCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import {
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { isTransactionConflict } from '../../lambdas/core/state/errors.js';
import { provision } from '../../localstack/provision.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('ground');
const { sqs, documents, dynamodb, s3 } = stack.clients;

async function receiveOne(client: SQSClient, url: string, visibility: number) {
  const r = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 1,
      VisibilityTimeout: visibility,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    }),
  );
  return r.Messages?.[0];
}

describe('SQS on the emulator', () => {
  it('moves a message to its DLQ once it was received more than maxReceiveCount times', async () => {
    const q = stack.topology.queues.realtime;
    const url = stack.resources.queueUrls.realtime;
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'poison' }));
    const counts: string[] = [];
    for (let i = 0; i < q.maxReceiveCount; i++) {
      const m = await receiveOne(sqs, url, 0);
      counts.push(m?.Attributes?.ApproximateReceiveCount ?? 'none');
    }
    expect(counts).toEqual(['1', '2', '3']);
    // moto moves the message lazily, on the receive after maxReceiveCount was reached.
    expect(await receiveOne(sqs, url, 0)).toBeUndefined();
    const dead = await receiveOne(sqs, stack.resources.dlqUrls.realtime, 30);
    expect(dead?.Body).toBe('poison');
  });

  it('returns a message after its visibility timeout, and not before', async () => {
    const url = stack.resources.queueUrls.batch;
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'lease me' }));
    // Taken before the receive: the emulator starts the message's timeout when it answers, later.
    const receivedAt = Date.now();
    const first = await receiveOne(sqs, url, 1);
    expect(first?.Body).toBe('lease me');
    expect(await receiveOne(sqs, url, 1)).toBeUndefined();
    // It comes back once the second has passed: SQS makes it visible again "approximately"
    // then, and LocalStack checks visibility on a tick, so it is polled for a few seconds.
    let again: Awaited<ReturnType<typeof receiveOne>>;
    for (const until = receivedAt + 5000; !again && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 200));
      again = await receiveOne(sqs, url, 30);
    }
    expect(Date.now() - receivedAt).toBeGreaterThanOrEqual(1000);
    expect(again?.MessageId).toBe(first?.MessageId);
    expect(again?.Attributes?.ApproximateReceiveCount).toBe('2');
  });
});

describe('DynamoDB conditional claims on the emulator', () => {
  it('lets exactly one of two racing writers claim a chunk; the loser gets ConditionalCheckFailedException', async () => {
    const key = { pk: 'JOB#race', sk: 'CHUNK#0001#analyze' };
    await documents.send(
      new PutCommand({ TableName: stack.resources.tableName, Item: { ...key, status: 'pending' } }),
    );
    const now = Date.now();
    const claim = (worker: string) =>
      documents.send(
        new UpdateCommand({
          TableName: stack.resources.tableName,
          Key: key,
          UpdateExpression: 'SET claimedBy = :me, claimExpiresAt = :exp',
          ConditionExpression: 'attribute_not_exists(claimedBy) OR claimExpiresAt < :now',
          ExpressionAttributeValues: { ':me': worker, ':exp': now + 60_000, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
    const results = await Promise.allSettled([claim('worker-a'), claim('worker-b')]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConditionalCheckFailedException);
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claim>>>).value.Attributes
      ?.claimedBy;
    expect(['worker-a', 'worker-b']).toContain(winner);
  });

  it('keeps every committed update while cancelled transactions on the same item roll back', async () => {
    const table = stack.resources.tableName;
    const counter = { pk: 'JOB#counter', sk: 'JOB' };
    const guard = { pk: 'JOB#counter', sk: 'GUARD' };
    await documents.send(new PutCommand({ TableName: table, Item: { ...counter, n: 0 } }));
    await documents.send(new PutCommand({ TableName: table, Item: { ...guard, open: false } }));
    // A table of some size, as in a real run: moto's own transactions copy the whole table.
    for (let batch = 0; batch < 40; batch++) {
      await documents.send(
        new BatchWriteCommand({
          RequestItems: {
            [table]: Array.from({ length: 25 }, (_, i) => ({
              PutRequest: { Item: { pk: 'JOB#filler', sk: `CALL#${batch}#${i}`, text: 'x'.repeat(200) } },
            })),
          },
        }),
      );
    }
    const increment = (mustFail: boolean) =>
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table,
                Key: counter,
                UpdateExpression: 'SET n = n + :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            },
            ...(mustFail
              ? [
                  {
                    ConditionCheck: {
                      TableName: table,
                      Key: guard,
                      ConditionExpression: '#open = :yes',
                      ExpressionAttributeNames: { '#open': 'open' },
                      ExpressionAttributeValues: { ':yes': true },
                    },
                  },
                ]
              : []),
          ],
        }),
      );
    const writers = 200;
    const results = await Promise.allSettled(
      Array.from({ length: writers }, (_, i) => increment(i % 2 === 1)),
    );
    // Those that had to fail did; the others were refused only for conflicts with each other,
    // as DynamoDB refuses transactions meeting one in flight, and wrote nothing.
    results.forEach((r, i) => {
      if (i % 2 === 1) expect(r.status).toBe('rejected');
      else if (r.status === 'rejected') expect(isTransactionConflict(r.reason)).toBe(true);
    });
    const committed = results.filter((r) => r.status === 'fulfilled').length;
    expect(committed).toBeGreaterThan(0);
    const after = await documents.send(
      new GetCommand({ TableName: table, Key: counter, ConsistentRead: true }),
    );
    expect(after.Item?.n).toBe(committed);
  });

  it('applies nothing of a cancelled transaction, new items included', async () => {
    const table = stack.resources.tableName;
    const counter = { pk: 'JOB#txn', sk: 'JOB' };
    const guard = { pk: 'JOB#txn', sk: 'CHUNK#0001#analyze' };
    const fresh = { pk: 'JOB#txn', sk: 'CALL#0001#c1#a1' };
    await documents.send(new PutCommand({ TableName: table, Item: { ...counter, n: 5 } }));
    await documents.send(new PutCommand({ TableName: table, Item: { ...guard, fence: 2 } }));
    const attempt = documents.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: counter,
              UpdateExpression: 'SET n = n + :one',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
          { Put: { TableName: table, Item: { ...fresh, status: 'in-flight' } } },
          {
            ConditionCheck: {
              TableName: table,
              Key: guard,
              ConditionExpression: 'fence = :stale',
              ExpressionAttributeValues: { ':stale': 1 },
            },
          },
        ],
      }),
    );
    await expect(attempt).rejects.toBeInstanceOf(TransactionCanceledException);
    const read = (key: Record<string, string>) =>
      documents.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    expect((await read(counter)).Item?.n).toBe(5);
    expect((await read(fresh)).Item).toBeUndefined();
  });
});

describe('unused expression placeholders on the emulator', () => {
  const table = stack.resources.tableName;
  const refusal = async (send: () => Promise<unknown>) => {
    const error = await send().then(
      () => undefined,
      (e: Error) => e,
    );
    return error && { name: error.name, message: error.message };
  };

  it('refuses a transaction action whose values or names an expression does not use, and applies nothing', async () => {
    const pk = 'JOB#unused-tx';
    await documents.send(new PutCommand({ TableName: table, Item: { pk, sk: 'A', n: 1 } }));
    const transact = (values: Record<string, unknown>, names?: Record<string, string>) =>
      documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { pk, sk: 'B', n: 1 } } },
            {
              Update: {
                TableName: table,
                Key: { pk, sk: 'A' },
                UpdateExpression: 'SET n = n + :one',
                ConditionExpression: 'n = :was',
                ExpressionAttributeValues: values,
                ...(names ? { ExpressionAttributeNames: names } : {}),
              },
            },
          ],
        }),
      );
    expect(await refusal(() => transact({ ':one': 1, ':was': 1, ':spare': 0 }))).toEqual({
      name: 'ValidationException',
      message: 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:spare}',
    });
    expect(await refusal(() => transact({ ':one': 1, ':was': 1 }, { '#n': 'n' }))).toEqual({
      name: 'ValidationException',
      message: 'Value provided in ExpressionAttributeNames unused in expressions: keys: {#n}',
    });
    const a = await documents.send(new GetCommand({ TableName: table, Key: { pk, sk: 'A' } }));
    const b = await documents.send(new GetCommand({ TableName: table, Key: { pk, sk: 'B' } }));
    expect([a.Item?.n, b.Item]).toEqual([1, undefined]);
    // The same transaction with only what its expressions use goes through.
    await transact({ ':one': 1, ':was': 1 });
    const after = await documents.send(new GetCommand({ TableName: table, Key: { pk, sk: 'A' } }));
    expect(after.Item?.n).toBe(2);
  });

  // The words around the key differ by ground: DynamoDB prefixes a PutItem or DeleteItem refusal
  // with "1 validation error detected: ", DynamoDB Local does not. What both say is checked
  // here; the launcher's per-operation wording, in moto-launcher-wording.test.ts.
  it('refuses unused values on PutItem and Query with a ValidationException naming the key, and writes nothing', async () => {
    const pk = 'JOB#unused-single';
    expect(
      await refusal(() =>
        documents.send(
          new PutCommand({
            TableName: table,
            Item: { pk, sk: 'A' },
            ConditionExpression: 'attribute_not_exists(pk) OR v = :v',
            ExpressionAttributeValues: { ':v': 1, ':w': 2 },
          }),
        ),
      ),
    ).toEqual({
      name: 'ValidationException',
      message: expect.stringMatching(
        /^(1 validation error detected: )?Value provided in ExpressionAttributeValues unused in expressions: keys: \{:w\}$/,
      ),
    });
    expect(
      await refusal(() =>
        documents.send(
          new QueryCommand({
            TableName: table,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': pk, ':x': 1 },
          }),
        ),
      ),
    ).toEqual({
      name: 'ValidationException',
      message: 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}',
    });
    // The refused put wrote nothing.
    const items = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    expect(items.Items).toEqual([]);
  });
});

describe('S3 intake notification on the emulator', () => {
  it('turns a put into the intake bucket into an S3 event message on the intake queue', async () => {
    const key = `${stack.topology.buckets.intake.prefix}contract one.txt`;
    await s3.send(
      new PutObjectCommand({ Bucket: stack.resources.intakeBucket, Key: key, Body: 'AGREEMENT' }),
    );
    await s3.send(
      new PutObjectCommand({ Bucket: stack.resources.intakeBucket, Key: 'elsewhere/x.txt', Body: 'x' }),
    );
    const records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[] = [];
    for (let i = 0; i < 5 && records.length === 0; i++) {
      const r = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: stack.resources.queueUrls.intake, MaxNumberOfMessages: 10 }),
      );
      for (const m of r.Messages ?? []) {
        const body = JSON.parse(m.Body ?? '{}');
        records.push(...(body.Records ?? []));
      }
    }
    expect(records).toHaveLength(1);
    expect(records[0]?.eventName).toMatch(/^ObjectCreated:/);
    expect(records[0]?.s3.bucket.name).toBe(stack.resources.intakeBucket);
    // S3 URL-encodes keys in event notifications (spaces as '+').
    expect(decodeURIComponent((records[0]?.s3.object.key ?? '').replace(/\+/g, ' '))).toBe(key);
  });
});

describe('provisioner', () => {
  it('creates what the topology says, and a second run converges on the same resources', async () => {
    const again = await provision(stack.topology, stack.clients);
    expect(again).toEqual(stack.resources);
    const q = stack.topology.queues.realtime;
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: stack.resources.queueUrls.realtime,
        AttributeNames: ['All'],
      }),
    );
    expect(JSON.parse(attrs.Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: stack.resources.dlqArns.realtime,
      maxReceiveCount: q.maxReceiveCount,
    });
    expect(attrs.Attributes?.VisibilityTimeout).toBe(String(q.visibilityTimeoutSeconds));
    const dlqAttrs = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: stack.resources.dlqUrls.realtime, AttributeNames: ['All'] }),
    );
    expect(dlqAttrs.Attributes?.MessageRetentionPeriod).toBe(String(14 * 86_400));
    // moto 5.2.5 accepts RedriveAllowPolicy but does not store it; the provisioner's unit
    // test checks that it is sent, and the infra tests check it in the template.
    if (inject('awsEmulator') !== 'moto') {
      expect(JSON.parse(dlqAttrs.Attributes?.RedriveAllowPolicy ?? '{}')).toEqual({
        redrivePermission: 'byQueue',
        sourceQueueArns: [stack.resources.queueArns.realtime],
      });
    }
    const table = await dynamodb.send(new DescribeTableCommand({ TableName: stack.resources.tableName }));
    expect(table.Table?.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    // Each index the topology names, keyed as it says (the status index and the owner index).
    expect(
      (table.Table?.GlobalSecondaryIndexes ?? [])
        .map((i) => ({ name: i.IndexName, keys: i.KeySchema?.map((k) => k.AttributeName) }))
        .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    ).toEqual(
      stack.topology.table.indexes
        .map((i) => ({ name: i.name, keys: [i.partitionKey, i.sortKey] }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect(stack.topology.table.indexes.map((i) => i.name).sort()).toEqual(['byOwner', 'byStatus']);
    const ttl = await dynamodb.send(new DescribeTimeToLiveCommand({ TableName: stack.resources.tableName }));
    expect(ttl.TimeToLiveDescription).toMatchObject({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
    const versioning = await s3.send(
      new GetBucketVersioningCommand({ Bucket: stack.resources.intakeBucket }),
    );
    expect(versioning.Status).toBe('Enabled');
  });
});
