/**
 * queryAll on the run's DynamoDB (moto's launcher): it follows LastEvaluatedKey to the last page,
 * and with `atMost` it stops at the page that reaches the count, also when a filter leaves pages
 * short.
 */
import { BatchWriteCommand, DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { queryAll } from '../../lambdas/core/state/query-all.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('query-all');
const db = DynamoDBDocumentClient.from(stack.clients.dynamodb);
const table = stack.resources.tableName;
const pk = 'QUERYALL#1';
// 25 items, every fifth one marked: pages of 4 hold 0 to 1 marked items.
const items = Array.from({ length: 25 }, (_, i) => ({
  pk,
  sk: `item#${String(i).padStart(2, '0')}`,
  n: i,
  marked: i % 5 === 0,
}));
await db.send(
  new BatchWriteCommand({ RequestItems: { [table]: items.map((Item) => ({ PutRequest: { Item } })) } }),
);

const pages: QueryCommandInput = {
  TableName: table,
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeValues: { ':pk': pk },
  Limit: 4,
};
const marked: QueryCommandInput = {
  ...pages,
  FilterExpression: 'marked = :m',
  ExpressionAttributeValues: { ':pk': pk, ':m': true },
};

/** Counts the Query requests `db` sends while `work` runs. */
async function requestsOf(work: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const name = `count-${Math.random()}`;
  db.middlewareStack.add(
    (next) => async (args) => {
      n++;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db.middlewareStack.remove(name);
  }
  return n;
}

describe('queryAll', () => {
  it('follows every page to the end', async () => {
    let got: { n: number }[] = [];
    const requests = await requestsOf(async () => {
      got = await queryAll<{ n: number }>(db, pages);
    });
    expect(got.map((i) => i.n)).toEqual(items.map((i) => i.n));
    expect(requests).toBe(7); // 25 items in pages of 4
  });

  it('with atMost, returns the first items and reads no page past the one that reaches the count', async () => {
    let got: { n: number }[] = [];
    const requests = await requestsOf(async () => {
      got = await queryAll<{ n: number }>(db, pages, 6);
    });
    expect(got.map((i) => i.n)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(requests).toBe(2);
  });

  it('with atMost and a filter that leaves pages short, reads on until the count is reached', async () => {
    let got: { n: number }[] = [];
    const requests = await requestsOf(async () => {
      got = await queryAll<{ n: number }>(db, marked, 3);
    });
    expect(got.map((i) => i.n)).toEqual([0, 5, 10]);
    expect(requests).toBe(3); // items 0-3, 4-7, 8-11
  });
});
