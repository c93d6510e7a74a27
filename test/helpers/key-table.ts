/**
 * A bare table with the state table's key schema (`pk`/`sk` strings, on demand), for the tests
 * and benches that drive DynamoDB on a moto of their own rather than the provisioned topology.
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export async function createKeyTable(
  db: DynamoDBClient | DynamoDBDocumentClient,
  table: string,
): Promise<void> {
  await (db as DynamoDBClient).send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    }),
  );
}
