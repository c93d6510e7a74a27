import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
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

/** Every page of a Query, as the emulator pages it. */
async function queryPages(input: QueryCommandInput): Promise<Record<string, unknown>[][]> {
  const pages: Record<string, unknown>[][] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const r = await documents.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
    pages.push(r.Items ?? []);
    start = r.LastEvaluatedKey;
  } while (start);
  return pages;
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

    const pages = await queryPages({
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': 'JOB#a', ':p': 'CALL#' },
      Limit: 50,
    });

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

describe('Query paging by size (the launcher pages a plain table query itself)', () => {
  it('cuts pages at 1 MB of items, forwards and backwards, each item once and in order, and leaves filters and projections to moto', async () => {
    // 30 items of about 90 KB each: 2.7 MB, so three pages whichever way it is read.
    const blob = 'é'.repeat(45_000);
    const sks = Array.from({ length: 30 }, (_, i) => `CALL#${String((i * 7) % 30).padStart(4, '0')}`);
    await put(sks.map((sk, i) => ({ pk: 'JOB#big', sk, blob, n: i })));
    await put([{ pk: 'JOB#big', sk: 'CHUNK#0000#analyze', n: -1 }]);
    const base = {
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': 'JOB#big', ':p': 'CALL#' },
      ConsistentRead: true,
    };
    const sorted = [...sks].sort();

    const forwards = await queryPages(base);
    expect(forwards.length).toBe(3);
    for (const page of forwards) expect(Buffer.byteLength(JSON.stringify(page))).toBeLessThan(1_100_000);
    expect(forwards.flat().map((i) => i.sk)).toEqual(sorted);

    const backwards = await queryPages({ ...base, ScanIndexForward: false });
    expect(backwards.length).toBe(3);
    expect(backwards.flat().map((i) => i.sk)).toEqual([...sorted].reverse());

    const between = await queryPages({
      ...base,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :a AND :b',
      ExpressionAttributeValues: { ':pk': 'JOB#big', ':a': 'CALL#0005', ':b': 'CALL#0009' },
      Limit: 2,
    });
    expect(between.map((p) => p.map((i) => i.sk))).toEqual([
      ['CALL#0005', 'CALL#0006'],
      ['CALL#0007', 'CALL#0008'],
      ['CALL#0009'],
    ]);

    const projected = await queryPages({
      ...base,
      ProjectionExpression: 'sk, n',
      FilterExpression: 'n < :ten',
      ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':ten': 10 },
    });
    const small = projected.flat();
    expect(small.map((i) => i.n).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, i) => i),
    );
    expect(small.every((i) => !('blob' in i))).toBe(true);

    // The table is shared with the other cases, whose Scan reads only its first 1 MB page.
    const keys = [...sks, 'CHUNK#0000#analyze'].map((sk) => ({ pk: 'JOB#big', sk }));
    for (let i = 0; i < keys.length; i += 25) {
      await documents.send(
        new BatchWriteCommand({
          RequestItems: { [table]: keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })) },
        }),
      );
    }
  });
});

/**
 * Whether items come in the order DynamoDB documents for a Query: "Query results are always
 * sorted by the sort key value" (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html),
 * descending with ScanIndexForward false. Index key values need not be unique
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html), and nothing is
 * documented about the order of items sharing one, so ties may come in any order: moto's
 * launcher and DynamoDB Local order them differently.
 */
function inIndexOrder(items: readonly Record<string, unknown>[], direction: 'forward' | 'backward'): boolean {
  const keys = items.map((i) => String(i.gsi1sk));
  return keys.every((k, n) => {
    const before = keys[n - 1];
    return before === undefined || (direction === 'forward' ? before <= k : before >= k);
  });
}

describe('Query on the status index (the launcher sorts only the matching items)', () => {
  it('returns exactly the items with the index key asked for, in index order, with filters and paging', async () => {
    // Jobs spread over three statuses, written out of order, with ties on the index sort key
    // and items that carry no index key at all.
    const jobs = Array.from({ length: 90 }, (_, i) => ({
      pk: `JOB#gsi-${String((i * 41) % 90).padStart(3, '0')}`,
      sk: 'JOB',
      gsi1pk: `STATUS#${['running', 'paused', 'completed'][i % 3]}`,
      gsi1sk: `2026-11-25T10:00:${String(i % 7).padStart(2, '0')}`,
      n: i,
      ...(i % 5 === 0 ? { finalizedAt: 'x' } : {}),
    }));
    await put([...jobs, ...jobs.slice(0, 30).map((j) => ({ pk: j.pk, sk: 'CALL#0001' }))]);

    const pages = await queryPages({
      TableName: table,
      IndexName: 'byStatus',
      KeyConditionExpression: 'gsi1pk = :s AND gsi1sk >= :from',
      FilterExpression: 'attribute_not_exists(finalizedAt)',
      ExpressionAttributeValues: { ':s': 'STATUS#running', ':from': '2026-11-25T10:00:02' },
      Limit: 7,
    });

    const expected = jobs.filter(
      (j) => j.gsi1pk === 'STATUS#running' && j.gsi1sk >= '2026-11-25T10:00:02' && !j.finalizedAt,
    );
    const got = pages.flat();
    // Each matching item once, across the pages, and none other.
    expect(got.map((i) => i.pk).sort()).toEqual(expected.map((j) => j.pk).sort());
    expect(inIndexOrder(got, 'forward')).toBe(true);
    expect(pages.length).toBeGreaterThan(2);

    const backwards = await documents.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byStatus',
        KeyConditionExpression: 'gsi1pk = :s',
        ExpressionAttributeValues: { ':s': 'STATUS#paused' },
        ScanIndexForward: false,
      }),
    );
    const paused = jobs.filter((j) => j.gsi1pk === 'STATUS#paused').map((j) => j.pk);
    expect(backwards.Items?.map((i) => i.pk).sort()).toEqual(paused.sort());
    expect(inIndexOrder(backwards.Items ?? [], 'backward')).toBe(true);
  });
});

describe('item reads answered as JSON directly (the launcher skips the generic serializer)', () => {
  it('gives back every attribute type as written, through Query, Scan, GetItem and BatchGetItem', async () => {
    const item = {
      pk: 'JOB#types',
      sk: 'CALL#0001',
      s: 'quote “with” unicode ✓ and "escapes"\n',
      n: 12345678901234,
      f: 0.25,
      yes: true,
      nothing: null,
      list: [1, 'two', { three: [3] }],
      map: { nested: { deeper: 'x' }, empty: {} },
      strings: new Set(['a', 'b']),
      numbers: new Set([1, 2]),
    };
    const binary = { pk: 'JOB#types', sk: 'CALL#0002', bytes: new Uint8Array([0, 1, 254, 255]) };
    await put([item, binary]);
    const key = { pk: item.pk, sk: item.sk };

    const got = await documents.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    expect(got.Item).toEqual(item);
    const queried = await documents.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': item.pk },
      }),
    );
    expect(queried).toMatchObject({ Count: 2, ScannedCount: 2 });
    expect(queried.Items).toEqual([item, binary]);
    const scanned = await documents.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': item.pk },
      }),
    );
    expect(scanned.Items).toHaveLength(2);
    const batch = await documents.send(
      new BatchGetCommand({
        RequestItems: { [table]: { Keys: [key, { pk: 'JOB#types', sk: 'CALL#0002' }] } },
      }),
    );
    expect(batch.Responses?.[table]).toHaveLength(2);
    expect(batch.Responses?.[table]).toContainEqual(binary);
    const missing = await documents.send(
      new GetCommand({ TableName: table, Key: { pk: 'JOB#types', sk: 'CALL#none' } }),
    );
    expect(missing.Item).toBeUndefined();
  });
});
