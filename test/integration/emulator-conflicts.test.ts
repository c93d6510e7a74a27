/**
 * The moto launcher's model of DynamoDB transaction conflicts, through the real SDK: a
 * transaction holds its items for a while, and a transaction or a single-item write meeting a
 * held item is refused with DynamoDB's own errors; the pipeline's clients resend such refusals.
 */
import {
  DynamoDBClient,
  GetItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTransactionConflict } from '../../lambdas/core/state/errors.js';
import { resendConflicts } from '../../lambdas/core/state/transact.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { type MotoServer, startMotoServer } from '../../localstack/moto-server.js';
import { createKeyTable } from '../helpers/key-table.js';

const HOLD_MS = 300;
const TABLE = 'conflicts';
let moto: MotoServer;
let db: DynamoDBClient;

const key = (pk: string) => ({ pk: { S: pk }, sk: { S: 'JOB' } });
const bump = (pk: string) => ({
  TableName: TABLE,
  Key: key(pk),
  UpdateExpression: 'ADD n :one',
  ExpressionAttributeValues: { ':one': { N: '1' } },
});
const transaction = (...pks: string[]) =>
  new TransactWriteItemsCommand({ TransactItems: pks.map((pk) => ({ Update: bump(pk) })) });
/** Waits until no transaction of an earlier step can still hold an item (uniform in 0..HOLD_MS). */
const outlastHolds = () => new Promise((r) => setTimeout(r, HOLD_MS + 50));

beforeAll(async () => {
  moto = await startMotoServer({ transactionHoldMs: HOLD_MS });
  db = new DynamoDBClient({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  await createKeyTable(db, TABLE);
}, 60_000);
afterAll(async () => {
  db.destroy();
  await moto.stop();
});

async function count(pk: string): Promise<number> {
  const r = await db.send(new GetItemCommand({ TableName: TABLE, Key: key(pk), ConsistentRead: true }));
  return Number(r.Item?.n?.N ?? 0);
}

describe('transaction conflicts on the local ground', () => {
  it('cancels a transaction that meets an item another transaction holds, with a TransactionConflict reason', async () => {
    // Hold windows are sampled from 0 to HOLD_MS: send the second at once, and until one lands.
    let refused: unknown;
    for (let i = 0; i < 20 && !refused; i++) {
      await outlastHolds();
      await db.send(transaction('a', 'b'));
      refused = await db.send(transaction('b', 'c')).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(refused).toBeInstanceOf(TransactionCanceledException);
    const reasons = (refused as TransactionCanceledException).CancellationReasons?.map((r) => r.Code);
    expect(reasons).toEqual(['TransactionConflict', 'None']);
    expect(isTransactionConflict(refused)).toBe(true);
  });

  it('refuses a single-item write on a held item with TransactionConflictException, and nothing is written', async () => {
    let refused: unknown;
    let before = 0;
    for (let i = 0; i < 20 && !refused; i++) {
      await outlastHolds();
      await db.send(transaction('d'));
      before = await count('d');
      refused = await db.send(new UpdateItemCommand(bump('d'))).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect((refused as Error).name).toBe('TransactionConflictException');
    expect((refused as Error).message).toBe('Transaction is ongoing for the item');
    expect(isTransactionConflict(refused)).toBe(true);
    await outlastHolds();
    expect(await count('d')).toBe(before);
    // An item no transaction holds is written at once.
    await db.send(transaction('e'));
    await db.send(new UpdateItemCommand(bump('f')));
    expect(await count('f')).toBe(1);
  });

  it("lets the pipeline's clients resend what a conflict refused, until it lands once", async () => {
    const resending = resendConflicts(
      new DynamoDBClient({ endpoint: moto.endpoint, region: 'us-east-1', credentials: EMULATOR_CREDENTIALS }),
      () => 1,
    );
    try {
      await outlastHolds();
      await db.send(transaction('g'));
      await resending.send(new UpdateItemCommand(bump('g')));
      await resending.send(transaction('g', 'h'));
      expect(await count('g')).toBe(3);
      expect(await count('h')).toBe(1);
    } finally {
      resending.destroy();
    }
  });
});
