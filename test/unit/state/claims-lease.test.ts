/**
 * Claims: what the holder of a stage's lease writes, each fenced by its token: heartbeats, call
 * counts, a stage completed, a chunk finished and counted on the job, a stage released for
 * redelivery; and LeaseLostError once another worker has taken over.
 */
import { TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  isLeaseLostError,
  isTransactionConflict,
  LeaseLostError,
} from '../../../lambdas/core/state/errors.js';
import { conditionFailed } from '../../helpers/refusals.js';
import { FENCED, lease, mockedClaims, NOW, TABLE, transactionCancelled } from './claims-fixtures.js';

let clock = NOW;
const { ddb, claims, updates, transactions } = mockedClaims(() => clock);

beforeEach(() => {
  clock = NOW;
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
