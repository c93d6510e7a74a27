/**
 * moto launcher only: UpdateItem's validation, which the launcher does at less cost (the
 * processors' node maps kept, the structural checks of a parsed expression made once per set of
 * attribute names, the kept tree's copy loaded from its pickle), still refuses what DynamoDB
 * refuses and applies each update's own values, however often the same text came before.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { launcherTable } from '../helpers/launcher-table.js';
import { uniquePrefix } from '../helpers/local-aws.js';

const TABLE = uniquePrefix('validation');
const launcher = launcherTable(TABLE);

const update = (expression: string, names: Record<string, string>, values: Record<string, unknown>) =>
  launcher.documents.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: { pk: 'p', sk: 's' },
      UpdateExpression: expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );

const refusal = (send: () => Promise<unknown>) =>
  send().then(
    () => undefined,
    (e: Error) => ({ name: e.name, message: e.message }),
  );

describe('moto launcher only: UpdateItem validation', () => {
  it('refuses two names for one attribute after the same expression passed with two attributes, every time', async () => {
    const expression = 'SET #a = :x, #b = :y';
    for (let i = 0; i < 3; i++)
      await update(expression, { '#a': 'left', '#b': 'right' }, { ':x': i, ':y': -i });
    const item = await launcher.documents.send(
      new GetCommand({ TableName: TABLE, Key: { pk: 'p', sk: 's' } }),
    );
    expect([item.Item?.left, item.Item?.right]).toEqual([2, -2]);
    for (let i = 0; i < 2; i++) {
      const refused = await refusal(() =>
        update(expression, { '#a': 'same', '#b': 'same' }, { ':x': 1, ':y': 2 }),
      );
      expect(refused?.name).toBe('ValidationException');
      expect(refused?.message).toMatch(/Two document paths overlap/);
    }
  });

  it('refuses an expression with two ADD clauses on every attempt', async () => {
    for (let i = 0; i < 2; i++) {
      const refused = await refusal(() =>
        update('ADD #n :one ADD #m :one', { '#n': 'n', '#m': 'm' }, { ':one': 1 }),
      );
      expect(refused?.name).toBe('ValidationException');
      expect(refused?.message).toMatch(/ADD.*only be used once/);
    }
  });

  it('applies each update of one text with its own names and values, the kept tree never changed', async () => {
    const expression =
      'SET #n = if_not_exists(#n, :zero) + :step, #l = list_append(if_not_exists(#l, :empty), :tail), #m.#k = :label REMOVE #r[0]';
    await launcher.documents.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: 'p', sk: 'kept' },
        UpdateExpression: 'SET #m = :map, #r = :r',
        ExpressionAttributeNames: { '#m': 'm', '#r': 'r' },
        ExpressionAttributeValues: { ':map': {}, ':r': ['a', 'b', 'c', 'd'] },
      }),
    );
    const seen: unknown[] = [];
    for (const [step, key] of [
      [1, 'first'],
      [10, 'second'],
      [100, 'third'],
    ] as const) {
      await launcher.documents.send(
        new UpdateCommand({
          TableName: TABLE,
          Key: { pk: 'p', sk: 'kept' },
          UpdateExpression: expression,
          ExpressionAttributeNames: { '#n': 'n', '#l': 'l', '#m': 'm', '#k': key, '#r': 'r' },
          ExpressionAttributeValues: {
            ':zero': 0,
            ':step': step,
            ':empty': [],
            ':tail': [step],
            ':label': `${key}!`,
          },
        }),
      );
      const { Item } = await launcher.documents.send(
        new GetCommand({ TableName: TABLE, Key: { pk: 'p', sk: 'kept' }, ConsistentRead: true }),
      );
      seen.push({ n: Item?.n, l: Item?.l, m: Item?.m, r: Item?.r });
    }
    expect(seen).toEqual([
      { n: 1, l: [1], m: { first: 'first!' }, r: ['b', 'c', 'd'] },
      { n: 11, l: [1, 10], m: { first: 'first!', second: 'second!' }, r: ['c', 'd'] },
      { n: 111, l: [1, 10, 100], m: { first: 'first!', second: 'second!', third: 'third!' }, r: ['d'] },
    ]);
  });
});
