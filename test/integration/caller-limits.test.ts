/**
 * Each caller's token bucket (lambdas/api/caller-limits.ts) on the emulator's DynamoDB, with a
 * clock the test moves: a burst, then one request per interval; the time a refused caller is
 * told to wait; buckets per caller and per route; and requests at the same instant from many
 * API instances admitted no more often than the burst allows.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { CallerLimits } from '../../lambdas/api/caller-limits.js';
import { isTooManyRequestsError, type TooManyRequestsError } from '../../lambdas/api/errors.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { createKeyTable } from '../helpers/key-table.js';
import { awsEndpoint, uniquePrefix } from '../helpers/local-aws.js';

const raw = new DynamoDBClient({
  endpoint: awsEndpoint(),
  region: LOCAL_REGION,
  credentials: EMULATOR_CREDENTIALS,
});
const db = DynamoDBDocumentClient.from(raw);
const table = uniquePrefix('rates');
await createKeyTable(raw, table);
afterAll(() => raw.destroy());

/** What a take answers: admitted, or refused with the seconds to wait. */
async function take(limits: CallerLimits, caller: string, route: 'quote' | 'submit'): Promise<'ok' | number> {
  try {
    await limits.take(caller, route);
    return 'ok';
  } catch (error) {
    if (!isTooManyRequestsError(error)) throw error;
    return (error as TooManyRequestsError).retryAfterSeconds;
  }
}

describe('CallerLimits', () => {
  it('admits a burst, then one request per interval, and says how long to wait', async () => {
    let now = 1_800_000_000_000;
    // Three at once, one a second.
    const limits = new CallerLimits(
      db,
      table,
      { quote: { burst: 3, perMinute: 60 }, submit: { burst: 1, perMinute: 6 } },
      () => now,
    );
    const takes = async (n: number) => {
      const out: ('ok' | number)[] = [];
      for (let i = 0; i < n; i++) out.push(await take(limits, 'ana', 'quote'));
      return out;
    };
    expect(await takes(4)).toEqual(['ok', 'ok', 'ok', 1]);
    now += 1000;
    expect(await takes(2)).toEqual(['ok', 1]);
    now += 2500;
    expect(await takes(3)).toEqual(['ok', 'ok', 1]);
    // After a long quiet the bucket is full again, and no fuller than the burst.
    now += 3_600_000;
    expect(await takes(4)).toEqual(['ok', 'ok', 'ok', 1]);
    // Another caller, and the same caller's other route, have buckets of their own.
    expect(await take(limits, 'ben', 'quote')).toBe('ok');
    expect(await take(limits, 'ana', 'submit')).toBe('ok');
    expect(await take(limits, 'ana', 'submit')).toBe(10);
    const item = await db.send(new GetCommand({ TableName: table, Key: { pk: 'RATE#ana', sk: 'quote' } }));
    // The table's TTL removes a bucket an hour after it would be full again.
    expect(item.Item?.expiresAt).toBe(Math.ceil((now + 3000) / 1000) + 3600);
  });

  it('admits no more than the burst of requests at one instant, from any number of API instances', async () => {
    const now = 1_900_000_000_000;
    const instances = Array.from(
      { length: 4 },
      () =>
        new CallerLimits(
          db,
          table,
          { quote: { burst: 5, perMinute: 1 }, submit: { burst: 5, perMinute: 1 } },
          () => now,
        ),
    );
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        take(instances[i % instances.length] as CallerLimits, 'cy', 'quote'),
      ),
    );
    expect(answers.filter((a) => a === 'ok')).toHaveLength(5);
    expect(answers.filter((a) => a !== 'ok').every((a) => a === 60)).toBe(true);
  });
});
