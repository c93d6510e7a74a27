import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/**
 * Every item a Query matches, following LastEvaluatedKey page by page; with `atMost`, the first
 * `atMost` of them, reading no page past the one that reaches it (a filtered Query's pages may
 * hold fewer items than `Limit`, so `Limit` alone cannot say when to stop).
 */
export async function queryAll<T>(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
  atMost = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const r = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...((r.Items ?? []) as T[]));
    startKey = r.LastEvaluatedKey;
  } while (startKey && items.length < atMost);
  return items.slice(0, atMost);
}
