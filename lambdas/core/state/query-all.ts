import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

/** Every item a Query matches, following LastEvaluatedKey page by page. */
export async function queryAll<T>(db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<T[]> {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const r = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...((r.Items ?? []) as T[]));
    startKey = r.LastEvaluatedKey;
  } while (startKey);
  return items;
}
