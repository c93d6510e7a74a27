/**
 * moto launcher only: how it words a refused unused expression placeholder, per operation, as
 * the live DynamoDB service does (localstack/moto_serve.py cites the measurements). Runs on the
 * worker's launcher, whichever ground the rest of the suite uses.
 */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { launcherTable } from '../helpers/launcher-table.js';
import { uniquePrefix } from '../helpers/local-aws.js';

const TABLE = uniquePrefix('wording');
const launcher = launcherTable(TABLE);

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
        launcher.documents.send(
          new PutCommand({ TableName: TABLE, Item: { pk: 'a', sk: 'A' }, ...condition }),
        ),
      ),
    ).toEqual({ name: 'ValidationException', message: `1 validation error detected: ${unused}` });
    expect(
      await refusal(() =>
        launcher.documents.send(
          new DeleteCommand({ TableName: TABLE, Key: { pk: 'a', sk: 'A' }, ...condition }),
        ),
      ),
    ).toEqual({ name: 'ValidationException', message: `1 validation error detected: ${unused}` });
    expect(
      await refusal(() =>
        launcher.documents.send(
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
