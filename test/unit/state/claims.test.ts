/**
 * Claims: creating a job's checkpoints, reading them, and claiming a stage (the fencing token
 * bumped, the loser told who holds it). What the holder of a lease writes: claims-lease.test.ts.
 */
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { inFlightPeak } from '../../helpers/in-flight.js';
import { conditionFailed } from '../../helpers/refusals.js';
import { checkpoint, mockedClaims, NOW, TABLE, transactionCancelled } from './claims-fixtures.js';

const { ddb, claims, updates, transactions } = mockedClaims();

describe('Claims.createAll', () => {
  it('writes one pending checkpoint per chunk and stage, each only if absent, in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await claims.createAll('job-1', 2);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    const [tx, ...more] = transactions();
    expect(more).toHaveLength(0);
    const puts = (tx?.TransactItems ?? []).map((i) => i.Put);
    expect(puts.map((p) => p?.Item?.sk)).toEqual([
      'CHUNK#0000#analyze',
      'CHUNK#0000#consolidate',
      'CHUNK#0001#analyze',
      'CHUNK#0001#consolidate',
    ]);
    for (const put of puts) {
      expect(put?.TableName).toBe(TABLE);
      expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
      expect(put?.Item).toMatchObject({ pk: 'JOB#job-1', status: 'pending', fence: 0, attempts: 0 });
    }
  });

  it('sends a long contract in transactions of at most 100 puts, together', async () => {
    const sent = inFlightPeak(() => ({}));
    ddb.on(TransactWriteCommand).callsFake(sent.fake);
    await claims.createAll('job-1', 122);
    expect(transactions().map((t) => t.TransactItems?.length)).toEqual([100, 100, 44]);
    expect(
      new Set(transactions().flatMap((t) => (t.TransactItems ?? []).map((i) => i.Put?.Item?.sk))).size,
    ).toBe(244);
    expect(sent.peak()).toBe(3);
  });

  it('leaves checkpoints that already exist alone, so a resumed intake never resets a started chunk', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    ddb.on(PutCommand).rejectsOnce(conditionFailed()).resolves({});
    await expect(claims.createAll('job-1', 1)).resolves.toBeUndefined();
    // The transaction wrote nothing; each checkpoint is put again on its own, only if absent.
    const puts = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts.map((p) => [p.Item?.sk, p.ConditionExpression])).toEqual([
      ['CHUNK#0000#analyze', 'attribute_not_exists(pk)'],
      ['CHUNK#0000#consolidate', 'attribute_not_exists(pk)'],
    ]);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('propagates any other failure', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('ProvisionedThroughputExceeded'));
    await expect(claims.createAll('job-1', 1)).rejects.toThrow('ProvisionedThroughputExceeded');
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed']));
    ddb.on(PutCommand).rejects(new Error('InternalServerError'));
    await expect(claims.createAll('job-1', 1)).rejects.toThrow('InternalServerError');
  });

  it('keeps at most 25 single puts in flight when a resumed long contract falls back to them', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed']));
    const put = inFlightPeak(() => ({}));
    ddb.on(PutCommand).callsFake(put.fake);
    await claims.createAll('job-1', 40);
    expect(ddb.commandCalls(PutCommand)).toHaveLength(80);
    expect(put.peak()).toBe(25);
  });
});

describe('Claims.get and list', () => {
  it('reads one checkpoint strongly consistently by its key', async () => {
    const item = checkpoint({ status: 'running' });
    ddb.on(GetCommand).resolves({ Item: item });
    expect(await claims.get('job-1', 7, 'consolidate')).toEqual(item);
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { pk: 'JOB#job-1', sk: 'CHUNK#0007#consolidate' },
      ConsistentRead: true,
    });
  });

  it('follows LastEvaluatedKey until every checkpoint of the job is read', async () => {
    const a = checkpoint({ chunk: 0 });
    const b = checkpoint({ chunk: 1 });
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [a], LastEvaluatedKey: { pk: 'JOB#job-1', sk: 'CHUNK#0000#analyze' } })
      .resolvesOnce({ Items: [b] });
    expect(await claims.list('job-1')).toEqual([a, b]);
    const queries = ddb.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries[0]).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'JOB#job-1', ':prefix': 'CHUNK#' },
      ConsistentRead: true,
    });
    expect(queries[0]?.ExclusiveStartKey).toBeUndefined();
    expect(queries[1]?.ExclusiveStartKey).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0000#analyze' });
  });
});

describe('Claims.claim', () => {
  it('claims only an unclaimed or expired, still-live stage, and bumps the fencing token', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: checkpoint({ status: 'running', fence: 5, attempts: 2 }) });
    await claims.claim('job-1', 7, 'analyze', 'worker-a', 90_000);
    const [input] = updates();
    expect(input?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CHUNK#0007#analyze' });
    expect(input?.ConditionExpression).toBe(
      'attribute_exists(pk) AND (attribute_not_exists(claimedBy) OR claimExpiresAt < :now) AND #status IN (:pending, :running, :retrying)',
    );
    expect(input?.UpdateExpression).toContain(
      'SET claimedBy = :me, claimExpiresAt = :exp, #status = :running',
    );
    expect(input?.UpdateExpression).toContain('ADD fence :one, attempts :one');
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':me': 'worker-a',
      ':now': NOW,
      ':exp': NOW + 90_000,
      ':one': 1,
      ':pending': 'pending',
      ':running': 'running',
      ':retrying': 'retrying',
    });
    expect(input?.ReturnValues).toBe('ALL_NEW');
  });

  it('gives the winner a lease carrying the new fence and the lease expiry', async () => {
    ddb.on(UpdateCommand).resolves({ Attributes: checkpoint({ status: 'running', fence: 5, attempts: 2 }) });
    const result = await claims.claim('job-1', 7, 'analyze', 'worker-a', 90_000);
    expect(result).toEqual({
      won: true,
      checkpoint: checkpoint({ status: 'running', fence: 5, attempts: 2 }),
      lease: {
        jobId: 'job-1',
        chunk: 7,
        stage: 'analyze',
        workerId: 'worker-a',
        fence: 5,
        attempts: 2,
        expiresAt: NOW + 90_000,
      },
    });
  });

  it('tells the loser of the race who holds the stage, from the checkpoint sent with the refusal', async () => {
    const held = checkpoint({
      status: 'running',
      claimedBy: 'worker-b',
      claimExpiresAt: NOW + 5000,
      fence: 4,
    });
    ddb.on(UpdateCommand).rejects(conditionFailed({ ...held }));
    expect(await claims.claim('job-1', 7, 'analyze', 'worker-a', 90_000)).toEqual({
      won: false,
      checkpoint: held,
    });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ReturnValuesOnConditionCheckFailure).toBe(
      'ALL_OLD',
    );
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('finds no checkpoint when the refusal sends none back', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await claims.claim('job-1', 7, 'analyze', 'worker-a', 90_000)).toEqual({
      won: false,
      checkpoint: undefined,
    });
  });

  it('propagates failures that are not a lost race', async () => {
    ddb.on(UpdateCommand).rejects(new Error('network down'));
    await expect(claims.claim('job-1', 7, 'analyze', 'worker-a', 90_000)).rejects.toThrow('network down');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});
