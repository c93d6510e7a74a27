/**
 * moto launcher only: how it words a refused unused expression placeholder, per operation, as
 * the live DynamoDB service does (localstack/moto_serve.py cites the measurements). Runs on the
 * launcher it starts itself, whichever ground the rest of the suite uses.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { type MotoServer, startMotoServer } from '../../localstack/moto-server.js';
import { createKeyTable } from '../helpers/key-table.js';

const TABLE = 'wording';
let moto: MotoServer;
let documents: DynamoDBDocumentClient;

beforeAll(async () => {
  moto = await startMotoServer();
  documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: EMULATOR_CREDENTIALS }),
  );
  await createKeyTable(documents, TABLE);
}, 60_000);
afterAll(async () => {
  documents.destroy();
  await moto.stop();
});

const refusal = (send: () => Promise<unknown>) =>
  send().then(
    () => undefined,
    (e: Error) => ({ name: e.name, message: e.message }),
  );

describe('moto launcher only: the wording of unused-placeholder refusals', () => {
  it('prefixes PutItem and DeleteItem refusals with "1 validation error detected: " and Query refusals with nothing, as DynamoDB does', async () => {
    const unused = 'Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}';
    const condition = {
      ConditionExpression: 'attribute_not_exists(pk) OR v = :v',
      ExpressionAttributeValues: { ':v': 1, ':w': 2 },
    };
    expect(
      await refusal(() =>
        documents.send(new PutCommand({ TableName: TABLE, Item: { pk: 'a', sk: 'A' }, ...condition })),
      ),
    ).toEqual({ name: 'ValidationException', message: `1 validation error detected: ${unused}` });
    expect(
      await refusal(() =>
        documents.send(new DeleteCommand({ TableName: TABLE, Key: { pk: 'a', sk: 'A' }, ...condition })),
      ),
    ).toEqual({ name: 'ValidationException', message: `1 validation error detected: ${unused}` });
    expect(
      await refusal(() =>
        documents.send(
          new QueryCommand({
            TableName: TABLE,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': 'a', ':w': 1 },
          }),
        ),
      ),
    ).toEqual({ name: 'ValidationException', message: unused });
  });
});
