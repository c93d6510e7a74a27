import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('query');
const { documents } = stack.clients;
const table = stack.resources.tableName;

async function put(items: Record<string, unknown>[]) {
  for (let i = 0; i < items.length; i += 25) {
    await documents.send(
      new BatchWriteCommand({
        RequestItems: { [table]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
  }
}

describe('Query on the base table (the launcher reads one partition, not the whole table)', () => {
  it('returns exactly the partition asked for, in sort-key order, with begins_with and paging', async () => {
    // Two neighbouring partitions, written interleaved and out of order.
    const sks = Array.from({ length: 120 }, (_, i) => `CALL#${String((i * 37) % 120).padStart(4, '0')}`);
    await put(
      sks.flatMap((sk) => [
        { pk: 'JOB#a', sk, v: 'a' },
        { pk: 'JOB#b', sk, v: 'b' },
      ]),
    );
    await put([{ pk: 'JOB#a', sk: 'CHUNK#0001#analyze', v: 'a' }]);

    const pages: Record<string, unknown>[][] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const r = await documents.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': 'JOB#a', ':p': 'CALL#' },
          Limit: 50,
          ExclusiveStartKey: start,
        }),
      );
      pages.push(r.Items ?? []);
      start = r.LastEvaluatedKey;
    } while (start);

    const items = pages.flat();
    expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
    expect(items.every((i) => i.pk === 'JOB#a' && i.v === 'a')).toBe(true);
    expect(items.map((i) => i.sk)).toEqual([...sks].sort());

    const backwards = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'JOB#a' },
        ScanIndexForward: false,
        Limit: 2,
      }),
    );
    expect(backwards.Items?.map((i) => i.sk)).toEqual(['CHUNK#0001#analyze', 'CALL#0119']);

    const none = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'JOB#missing' },
      }),
    );
    expect(none.Items).toEqual([]);
  });
});
