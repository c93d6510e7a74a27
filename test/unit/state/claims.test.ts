import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isChunkTerminal } from '../../../lambdas/core/state/checkpoint.js';
import { type Checkpoint, Claims, type Lease } from '../../../lambdas/core/state/claims.js';
import {
  isConditionFailure,
  isJobNotFoundError,
  isLeaseLostError,
  isTransactionConflict,
  JobNotFoundError,
  LeaseLostError,
  StateError,
} from '../../../lambdas/core/state/errors.js';
import { inFlightPeak } from '../../helpers/in-flight.js';
import { conditionFailed } from '../../helpers/refusals.js';

const TABLE = 'state-table';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const FENCED = 'claimedBy = :me AND fence = :fence';

const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
let clock = NOW;
const claims = new Claims(db, TABLE, () => clock);

function transactionCancelled(codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

function lease(overrides: Partial<Lease> = {}): Lease {
  return {
    jobId: 'job-1',
    chunk: 7,
    stage: 'analyze',
    workerId: 'worker-a',
    fence: 3,
    attempts: 2,
    expiresAt: NOW + 60_000,
    ...overrides,
  };
}

function checkpoint(overrides: Partial<Checkpoint>): Checkpoint {
  return {
    jobId: 'job-1',
    chunk: 7,
    stage: 'analyze',
    status: 'pending',
    fence: 0,
    attempts: 0,
    ...overrides,
  };
}

function updates() {
  return ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
}

function transactions() {
  return ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);
}

beforeEach(() => {
  ddb.reset();
  clock = NOW;
});

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

describe('Claims.heartbeat', () => {
  it('extends the lease under the fencing condition and updates the held lease', async () => {
    ddb.on(UpdateCommand).resolves({});
    const held = lease();
    clock = NOW + 20_000;
    await claims.heartbeat(held, 60_000);
    const [input] = updates();
    expect(input).toEqual({
      TableName: TABLE,
      Key: { pk: 'JOB#job-1', sk: 'CHUNK#0007#analyze' },
      UpdateExpression: 'SET claimExpiresAt = :exp',
      ConditionExpression: FENCED,
      ExpressionAttributeValues: { ':me': 'worker-a', ':fence': 3, ':exp': NOW + 80_000 },
    });
    expect(held.expiresAt).toBe(NOW + 80_000);
  });

  it('throws LeaseLostError, keeping the old expiry, once another worker has taken over', async () => {
    const refusal = conditionFailed();
    ddb.on(UpdateCommand).rejects(refusal);
    const held = lease();
    const error = await claims.heartbeat(held, 60_000).catch((e: unknown) => e);
    expect(isLeaseLostError(error)).toBe(true);
    expect(error).toMatchObject({ jobId: 'job-1', chunk: 7, stage: 'analyze', cause: refusal });
    expect(held.expiresAt).toBe(NOW + 60_000);
  });

  it('does not mistake a network error for a lost lease', async () => {
    ddb.on(UpdateCommand).rejects(new Error('socket hang up'));
    const error = await claims.heartbeat(lease(), 60_000).catch((e: unknown) => e);
    expect(isLeaseLostError(error)).toBe(false);
    expect(error).toBeInstanceOf(Error);
  });
});

describe('Claims.recordCounts', () => {
  it('writes the call counts so far under the fencing condition, leaving the lease as it is', async () => {
    ddb.on(UpdateCommand).resolves({});
    const held = lease();
    const counts = { done: 4, reused: 0, failed: 1, skipped: 0, cancelled: 0, retries: 2 };
    await claims.recordCounts(held, counts);
    expect(updates()).toEqual([
      {
        TableName: TABLE,
        Key: { pk: 'JOB#job-1', sk: 'CHUNK#0007#analyze' },
        UpdateExpression: 'SET calls = :calls',
        ConditionExpression: FENCED,
        ExpressionAttributeValues: { ':me': 'worker-a', ':fence': 3, ':calls': counts },
      },
    ]);
    expect(held.expiresAt).toBe(NOW + 60_000);
  });

  it('throws LeaseLostError once another worker has taken over', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    const error = await claims
      .recordCounts(lease(), { done: 1, reused: 0, failed: 0, skipped: 0, retries: 0 })
      .catch((e: unknown) => e);
    expect(isLeaseLostError(error)).toBe(true);
  });
});

describe('Claims.completeStage', () => {
  it('marks the stage done and gives up the claim, fenced', async () => {
    ddb.on(UpdateCommand).resolves({});
    const calls = { done: 10, reused: 1, failed: 0, skipped: 0, retries: 2 };
    await claims.completeStage(lease(), { calls });
    const [input] = updates();
    expect(input?.ConditionExpression).toBe(FENCED);
    expect(input?.UpdateExpression).toBe(
      'SET #status = :done, finishedAt = :at, calls = :calls, #result = :result REMOVE claimedBy, claimExpiresAt, lastError, errorClass',
    );
    expect(input?.ExpressionAttributeValues).toEqual({
      ':me': 'worker-a',
      ':fence': 3,
      ':done': 'done',
      ':at': new Date(NOW).toISOString(),
      ':calls': calls,
      ':result': null,
    });
  });

  it('refuses a stale holder with LeaseLostError', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(claims.completeStage(lease())).rejects.toBeInstanceOf(LeaseLostError);
  });
});

describe('Claims.finishChunk', () => {
  it('finishes a done chunk and counts it on the job in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await claims.finishChunk(lease({ stage: 'consolidate' }), { status: 'done', result: '[]' });
    const [tx] = transactions();
    const [checkpointWrite, jobWrite] = tx?.TransactItems ?? [];
    expect(tx?.TransactItems).toHaveLength(2);
    expect(checkpointWrite?.Update).toMatchObject({
      Key: { pk: 'JOB#job-1', sk: 'CHUNK#0007#consolidate' },
      ConditionExpression: FENCED,
      UpdateExpression:
        'SET #status = :status, finishedAt = :at, #result = :result REMOVE claimedBy, claimExpiresAt',
      ExpressionAttributeValues: { ':me': 'worker-a', ':fence': 3, ':status': 'done', ':result': '[]' },
    });
    expect(jobWrite?.Update).toMatchObject({
      Key: { pk: 'JOB#job-1', sk: 'JOB' },
      UpdateExpression: 'ADD chunksTerminal :one, chunksDone :one SET updatedAt = :at',
      ExpressionAttributeValues: { ':one': 1 },
    });
  });

  it("keeps a done chunk's call outcomes on its checkpoint, for the report", async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const outcomes = JSON.stringify([
      { chunk: 7, clauseId: 'c1', analystId: 'a', status: 'done', attempts: 1 },
    ]);
    await claims.finishChunk(lease({ stage: 'consolidate' }), { status: 'done', result: '[]', outcomes });
    const update = transactions()[0]?.TransactItems?.[0]?.Update;
    expect(update?.UpdateExpression).toBe(
      'SET #status = :status, finishedAt = :at, #result = :result, outcomes = :outcomes REMOVE claimedBy, claimExpiresAt',
    );
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':result': '[]', ':outcomes': outcomes });
  });

  it('records where a cancelled chunk stopped and counts it terminal but not done', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await claims.finishChunk(lease(), { status: 'cancelled', stoppedAt: 'cancelled-at-stage-1' });
    const [checkpointWrite, jobWrite] = transactions()[0]?.TransactItems ?? [];
    expect(checkpointWrite?.Update?.UpdateExpression).toContain('stoppedAt = :stopped');
    expect(checkpointWrite?.Update?.ExpressionAttributeValues).toMatchObject({
      ':status': 'cancelled',
      ':stopped': 'cancelled-at-stage-1',
    });
    expect(jobWrite?.Update?.UpdateExpression).toBe('ADD chunksTerminal :one SET updatedAt = :at');
  });

  it('commits nothing for a stale holder: the refused fence becomes LeaseLostError', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None']));
    await expect(claims.finishChunk(lease(), { status: 'done' })).rejects.toBeInstanceOf(LeaseLostError);
    expect(transactions()).toHaveLength(1);
  });

  describe('when another transaction holds the job item', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('sends the same transaction again instead of reporting a lost lease', async () => {
      vi.useFakeTimers();
      ddb
        .on(TransactWriteCommand)
        .rejectsOnce(transactionCancelled(['None', 'TransactionConflict']))
        .resolves({});
      const finished = claims.finishChunk(lease(), { status: 'done', result: '[]' });
      await vi.runAllTimersAsync();
      await expect(finished).resolves.toBeUndefined();
      expect(transactions()).toHaveLength(2);
      expect(transactions()[1]).toEqual(transactions()[0]);
    });

    it('throws the conflict, not LeaseLostError, if it persists', async () => {
      vi.useFakeTimers();
      ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'TransactionConflict']));
      const finished = claims.finishChunk(lease(), { status: 'done' }).catch((e: unknown) => e);
      await vi.runAllTimersAsync();
      const error = await finished;
      expect(isLeaseLostError(error)).toBe(false);
      expect(isTransactionConflict(error)).toBe(true);
    });
  });
});

describe('Claims.release', () => {
  it('gives the stage back for redelivery, recording the error and its class', async () => {
    ddb.on(UpdateCommand).resolves({});
    await claims.release(lease(), { lastError: 'x'.repeat(1500), errorClass: 'transient' });
    const [input] = updates();
    expect(input?.ConditionExpression).toBe(FENCED);
    expect(input?.UpdateExpression).toBe(
      'SET #status = :retrying, lastError = :err, errorClass = :class, failedAt = :at REMOVE claimedBy, claimExpiresAt',
    );
    expect(input?.ExpressionAttributeValues?.[':retrying']).toBe('retrying');
    expect(input?.ExpressionAttributeValues?.[':class']).toBe('transient');
    expect(input?.ExpressionAttributeValues?.[':err']).toBe('x'.repeat(1000));
  });

  it('refuses a stale holder with LeaseLostError', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(
      claims.release(lease(), { lastError: 'boom', errorClass: 'transient' }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });
});

describe('isChunkTerminal', () => {
  it('is true once the last stage is done', () => {
    expect(
      isChunkTerminal([
        checkpoint({ stage: 'analyze', status: 'done' }),
        checkpoint({ stage: 'consolidate', status: 'done' }),
      ]),
    ).toBe(true);
  });

  it('is true when any stage was cancelled or is dead', () => {
    expect(isChunkTerminal([checkpoint({ stage: 'analyze', status: 'cancelled' })])).toBe(true);
    expect(isChunkTerminal([checkpoint({ stage: 'analyze', status: 'dead' })])).toBe(true);
  });

  it('is false while work remains, even with the first stage done', () => {
    expect(
      isChunkTerminal([
        checkpoint({ stage: 'analyze', status: 'done' }),
        checkpoint({ stage: 'consolidate', status: 'pending' }),
      ]),
    ).toBe(false);
    expect(isChunkTerminal([checkpoint({ stage: 'analyze', status: 'retrying' })])).toBe(false);
    expect(isChunkTerminal([])).toBe(false);
  });
});

describe('state error guards', () => {
  it('recognises conditional refusals, raw or in a cancelled transaction', () => {
    expect(isConditionFailure(conditionFailed())).toBe(true);
    expect(isConditionFailure(transactionCancelled(['None', 'ConditionalCheckFailed']))).toBe(true);
    expect(isConditionFailure(new Error('ConditionalCheckFailedException'))).toBe(false);
    expect(isConditionFailure({ name: 'ConditionalCheckFailedException' })).toBe(false);
  });

  it('does not count a transaction cancelled only by a conflict as a refusal', () => {
    const conflict = transactionCancelled(['None', 'TransactionConflict']);
    expect(isTransactionConflict(conflict)).toBe(true);
    expect(isConditionFailure(conflict)).toBe(false);
    const refusedToo = transactionCancelled(['ConditionalCheckFailed', 'TransactionConflict']);
    expect(isTransactionConflict(refusedToo)).toBe(false);
    expect(isConditionFailure(refusedToo)).toBe(true);
    expect(isTransactionConflict(conditionFailed())).toBe(false);
  });

  it('tells lost leases and unknown jobs apart, with their context', () => {
    const lost = new LeaseLostError('job-1', 7, 'analyze', { cause: conditionFailed() });
    const missing = new JobNotFoundError('job-9');
    expect(isLeaseLostError(lost)).toBe(true);
    expect(isLeaseLostError(missing)).toBe(false);
    expect(isJobNotFoundError(missing)).toBe(true);
    expect(isJobNotFoundError(lost)).toBe(false);
    expect(lost).toBeInstanceOf(StateError);
    expect(lost.name).toBe('LeaseLostError');
    expect(lost.message).toBe('lost the lease on job job-1 chunk 7 stage analyze');
    expect(missing.name).toBe('JobNotFoundError');
    expect(missing.jobId).toBe('job-9');
  });
});
