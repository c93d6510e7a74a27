import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallLedger, type CallRef, type LedgerEntry } from '../../lambdas/core/state/call-ledger.js';
import type { Lease } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/jobs.js';

const TABLE = 'state-table';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const ledger = new CallLedger(db, TABLE, () => NOW);

const call: CallRef = {
  jobId: 'job-1',
  chunk: 7,
  clauseId: 'c0012',
  analystId: 'liability-counsel',
  idempotencyKey: 'key-v1',
};
const lease: Lease = {
  jobId: 'job-1',
  chunk: 7,
  stage: 'analyze',
  workerId: 'worker-a',
  fence: 3,
  attempts: 1,
  expiresAt: NOW + 60_000,
};
const LIMIT = 1_000_000;
/** A reservation this holder (worker-a, fence 3) made. */
const HELD = { estimate: 4_500, owner: 'worker-a:3' } as const;
const HELD_100 = { estimate: 100, owner: 'worker-a:3' } as const;

function transactionCancelled(codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

function jobItem(overrides: Partial<Job> = {}): Partial<Job> {
  return {
    jobId: 'job-1',
    status: 'running',
    costLimit: LIMIT,
    costCommitted: 0,
    costSpent: 0,
    ...overrides,
  };
}

function transactions(): TransactWriteCommandInput[] {
  return ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);
}

/** The Update of a transaction addressed to the given sort key. */
function updateOf(tx: TransactWriteCommandInput | undefined, sk: string) {
  return tx?.TransactItems?.find((item) => item.Update?.Key?.sk === sk)?.Update;
}

beforeEach(() => {
  ddb.reset();
});

describe('CallLedger.forChunk and forJob', () => {
  it("reads one chunk's entries with a single paginated query, keyed by sort key", async () => {
    const a = { sk: 'CALL#0007#c0012#liability-counsel', status: 'done' };
    const b = { sk: 'CALL#0007#c0013#liability-counsel', status: 'failed' };
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [a], LastEvaluatedKey: { pk: 'JOB#job-1', sk: a.sk } })
      .resolvesOnce({ Items: [b] });
    const entries = await ledger.forChunk('job-1', 7);
    expect([...entries.keys()]).toEqual([a.sk, b.sk]);
    expect(entries.get(b.sk)).toEqual(b);
    const queries = ddb.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queries[0]?.ExpressionAttributeValues).toEqual({ ':pk': 'JOB#job-1', ':prefix': 'CALL#0007#' });
    expect(queries[0]?.ConsistentRead).toBe(true);
    expect(queries[1]?.ExclusiveStartKey).toEqual({ pk: 'JOB#job-1', sk: a.sk });
  });

  it('reads every entry of a job', async () => {
    ddb.on(QueryCommand).resolves({ Items: [{ sk: 'CALL#0000#c0001#x' }, { sk: 'CALL#0003#c0009#y' }] });
    expect(await ledger.forJob('job-1')).toHaveLength(2);
    expect(ddb.commandCalls(QueryCommand)[0]?.args[0].input.ExpressionAttributeValues).toEqual({
      ':pk': 'JOB#job-1',
      ':prefix': 'CALL#',
    });
  });
});

describe('CallLedger.reserve', () => {
  it('checks the fence, the job status and the budget room, and marks the entry in flight, atomically', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await ledger.reserve(call, lease, 4_500, { costLimit: LIMIT })).toEqual({
      ok: true,
      estimate: 4_500,
      reservedAt: NOW,
      // The holder the entry is fenced to; settlement presents it again.
      owner: 'worker-a:3',
    });
    const [tx] = transactions();
    const [fence, job, entry] = tx?.TransactItems ?? [];
    expect(tx?.TransactItems).toHaveLength(3);
    expect(fence?.ConditionCheck).toEqual({
      TableName: TABLE,
      Key: { pk: 'JOB#job-1', sk: 'CHUNK#0007#analyze' },
      ConditionExpression: 'claimedBy = :me AND fence = :fence',
      ExpressionAttributeValues: { ':me': 'worker-a', ':fence': 3 },
    });
    expect(job?.Update?.Key).toEqual({ pk: 'JOB#job-1', sk: 'JOB' });
    expect(job?.Update?.ConditionExpression).toBe(
      '#status = :running AND attribute_not_exists(budgetExceededAt) AND costCommitted <= :room',
    );
    expect(job?.Update?.UpdateExpression).toBe(
      'SET costCommitted = costCommitted + :est, costReserved = costReserved + :est',
    );
    expect(job?.Update?.ExpressionAttributeValues).toEqual({
      ':est': 4_500,
      ':running': 'running',
      // Conditions cannot add: "committed + estimate <= limit" is written as "committed <= limit - estimate".
      ':room': LIMIT - 4_500,
    });
    expect(entry?.Update?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CALL#0007#c0012#liability-counsel' });
    expect(entry?.Update?.ConditionExpression).toContain(
      'attribute_not_exists(#status) OR NOT (#status IN (:done, :failed))',
    );
    expect(entry?.Update?.UpdateExpression).toContain('#status = :inflight');
    expect(entry?.Update?.UpdateExpression).toContain('ADD attempts :one');
    expect(entry?.Update?.ExpressionAttributeValues).toMatchObject({
      ':key': 'key-v1',
      ':inflight': 'in-flight',
      ':at': NOW,
      ':est': 4_500,
      ':fence': 'worker-a:3',
      ':done': 'done',
      ':failed': 'failed',
    });
  });

  it('lets a call whose prompt changed (another idempotency key) be made again over a final entry', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.reserve(call, lease, 100, { costLimit: LIMIT });
    const entry = transactions()[0]?.TransactItems?.[2]?.Update;
    expect(entry?.ConditionExpression).toBe(
      'attribute_not_exists(#status) OR NOT (#status IN (:done, :failed)) OR idempotencyKey <> :key',
    );
    expect(entry?.ExpressionAttributeValues?.[':key']).toBe('key-v1');
  });

  it('reports lease-lost, without reading the job, when the fence check fails', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed', 'None', 'None']));
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'lease-lost',
    });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('reports cancelled when the job was cancelled (or is gone)', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']));
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [jobItem({ status: 'cancelled' })] })
      .resolvesOnce({ Items: [] });
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'cancelled',
    });
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'cancelled',
    });
    const read = ddb.commandCalls(QueryCommand)[0]?.args[0].input;
    expect(read?.ExpressionAttributeValues).toEqual({ ':pk': 'JOB#job-1', ':sk': 'JOB' });
    expect(read?.ConsistentRead).toBe(true);
  });

  it('reports not-running for a job that ended another way', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']));
    ddb.on(QueryCommand).resolves({ Items: [jobItem({ status: 'incomplete' })] });
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'not-running',
    });
  });

  it('reports budget when the estimate cannot fit even once every call in flight settles, and stops every later reservation of the job', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']));
    // Settled spend alone leaves 99 of room: no settlement can make room for 100.
    ddb.on(QueryCommand).resolves({ Items: [jobItem({ costCommitted: LIMIT - 99, costSpent: LIMIT - 99 })] });
    ddb.on(UpdateCommand).resolves({});
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'budget',
    });
    const [mark] = ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(mark).toEqual({
      TableName: TABLE,
      Key: { pk: 'JOB#job-1', sk: 'JOB' },
      UpdateExpression: 'SET budgetExceededAt = :at',
      ConditionExpression: 'attribute_not_exists(budgetExceededAt)',
      ExpressionAttributeValues: { ':at': new Date(NOW).toISOString() },
    });
  });

  it('reports budget once the job is marked over budget, even if this estimate would fit', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']));
    ddb.on(QueryCommand).resolves({ Items: [jobItem({ budgetExceededAt: '2026-01-15T11:00:00.000Z' })] });
    ddb
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'already marked', $metadata: {} }));
    expect(await ledger.reserve(call, lease, 1, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'budget',
    });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('reports contended, marking nothing, when only reservations of calls in flight hold the room', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']));
    // Committed is at the ceiling, but most of it is reserved: settled spend leaves room for 100.
    ddb.on(QueryCommand).resolves({
      Items: [jobItem({ costCommitted: LIMIT, costReserved: LIMIT - 500, costSpent: 500 })],
    });
    ddb.on(UpdateCommand).resolves({});
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'contended',
    });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('judges budget by settled spend plus the estimate against the ceiling, inclusive', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'None']));
    ddb.on(UpdateCommand).resolves({});
    ddb
      .on(QueryCommand)
      .resolvesOnce({ Items: [jobItem({ costCommitted: LIMIT, costSpent: LIMIT - 100 })] })
      .resolvesOnce({ Items: [jobItem({ costCommitted: LIMIT, costSpent: LIMIT - 99 })] });
    // spent + estimate = limit: it fits once the calls in flight settle.
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'contended',
    });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
    // One over: it never will.
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'budget',
    });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('reports final, without reading the job, for an entry another holder already finished', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['None', 'None', 'ConditionalCheckFailed']));
    ddb.on(QueryCommand).resolves({ Items: [jobItem()] });
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'final',
    });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('reports cancelled rather than final when the job was cancelled too', async () => {
    // The job item comes before the entry: its refusal is the one reported.
    ddb
      .on(TransactWriteCommand)
      .rejects(transactionCancelled(['None', 'ConditionalCheckFailed', 'ConditionalCheckFailed']));
    ddb.on(QueryCommand).resolves({ Items: [jobItem({ status: 'cancelled' })] });
    expect(await ledger.reserve(call, lease, 100, { costLimit: LIMIT })).toEqual({
      ok: false,
      reason: 'cancelled',
    });
  });

  it('propagates failures that are not refusals', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('InternalServerError'));
    await expect(ledger.reserve(call, lease, 100, { costLimit: LIMIT })).rejects.toThrow(
      'InternalServerError',
    );
  });
});

describe('CallLedger transaction conflicts', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends a reservation again when it only collided with another transaction on the job item', async () => {
    vi.useFakeTimers();
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'TransactionConflict', 'None']))
      .resolves({});
    const reservation = ledger.reserve(call, lease, 100, { costLimit: LIMIT });
    await vi.runAllTimersAsync();
    expect(await reservation).toEqual({ ok: true, estimate: 100, reservedAt: NOW, owner: 'worker-a:3' });
    expect(transactions()).toHaveLength(2);
    expect(transactions()[1]).toEqual(transactions()[0]);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('sends a settlement again after a conflict, so an answered call is not left in flight', async () => {
    vi.useFakeTimers();
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['TransactionConflict', 'None']))
      .rejectsOnce(transactionCancelled(['TransactionConflict', 'None']))
      .resolves({});
    const settled = ledger.settleAnswered(
      call,
      HELD_100,
      { modelId: 'm', inputTokens: 1, outputTokens: 1, cost: 10 },
      { status: 'done', result: '{}' },
    );
    await vi.runAllTimersAsync();
    await expect(settled).resolves.toBeUndefined();
    expect(transactions()).toHaveLength(3);
  });

  it('gives up after a bounded number of conflicts and throws rather than reporting a lost lease', async () => {
    vi.useFakeTimers();
    const conflict = transactionCancelled(['None', 'TransactionConflict', 'None']);
    ddb.on(TransactWriteCommand).rejects(conflict);
    ddb.on(QueryCommand).resolves({ Items: [jobItem()] });
    const reservation = ledger.reserve(call, lease, 100, { costLimit: LIMIT }).catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(await reservation).toBe(conflict);
    expect(transactions()).toHaveLength(5);
  });
});

describe('CallLedger.settleAnswered', () => {
  it('replaces the reservation by the actual cost and records the final answer', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleAnswered(
      call,
      HELD,
      { modelId: 'model-a', inputTokens: 900, outputTokens: 120, cost: 375 },
      { status: 'done', result: '{"summary":"ok"}' },
    );
    const [tx] = transactions();
    expect(updateOf(tx, 'JOB')).toMatchObject({
      UpdateExpression:
        'SET costCommitted = costCommitted + :delta, costReserved = costReserved - :est, costSpent = costSpent + :cost',
      ExpressionAttributeValues: { ':delta': 375 - 4_500, ':est': 4_500, ':cost': 375 },
    });
    const entry = updateOf(tx, 'CALL#0007#c0012#liability-counsel');
    // Tokens and cost accumulate over attempts: the repair retry is billed too.
    expect(entry?.UpdateExpression).toContain('cost = if_not_exists(cost, :zero) + :cost');
    expect(entry?.UpdateExpression).toContain('inputTokens = if_not_exists(inputTokens, :zero) + :in');
    expect(entry?.UpdateExpression).toContain('#status = :status');
    expect(entry?.UpdateExpression).toContain('#result = :result');
    expect(entry?.ExpressionAttributeValues).toMatchObject({
      ':model': 'model-a',
      ':in': 900,
      ':out': 120,
      ':cost': 375,
      ':status': 'done',
      ':result': '{"summary":"ok"}',
    });
  });

  it('leaves the status alone for an attempt that does not end the call (before a repair retry)', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleAnswered(call, HELD, {
      modelId: 'model-a',
      inputTokens: 900,
      outputTokens: 120,
      cost: 375,
    });
    const entry = updateOf(transactions()[0], 'CALL#0007#c0012#liability-counsel');
    expect(entry?.UpdateExpression).not.toContain('#status');
    expect(entry?.ExpressionAttributeNames).toBeUndefined();
    expect(entry?.ExpressionAttributeValues).not.toHaveProperty(':status');
  });

  it('records a final validation failure with its kind, class and a bounded message', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleAnswered(
      call,
      HELD,
      { modelId: 'model-a', inputTokens: 900, outputTokens: 120, cost: 375 },
      { status: 'failed', failureKind: 'validation', errorClass: 'validation', lastError: 'e'.repeat(2000) },
    );
    const entry = updateOf(transactions()[0], 'CALL#0007#c0012#liability-counsel');
    expect(entry?.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':kind': 'validation',
      ':class': 'validation',
      ':err': 'e'.repeat(1000),
    });
  });
  it('writes the entry only while it is still fenced to this holder', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleAnswered(
      call,
      HELD,
      { modelId: 'model-a', inputTokens: 900, outputTokens: 120, cost: 375 },
      { status: 'done', result: '{}' },
    );
    const [tx] = transactions();
    const entry = updateOf(tx, 'CALL#0007#c0012#liability-counsel');
    expect(entry?.ConditionExpression).toBe('ownerFence = :owner');
    expect(entry?.ExpressionAttributeValues?.[':owner']).toBe('worker-a:3');
    // The money moves unconditionally: it was reserved and spent whoever holds the entry now.
    expect(updateOf(tx, 'JOB')?.ConditionExpression).toBeUndefined();
  });

  it('still settles the money, alone, when a later holder has re-reserved the entry', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'ConditionalCheckFailed']))
      .resolves({});
    await expect(
      ledger.settleAnswered(
        call,
        HELD,
        { modelId: 'model-a', inputTokens: 900, outputTokens: 120, cost: 375 },
        { status: 'done', result: '{"summary":"late"}' },
      ),
    ).resolves.toBeUndefined();
    const [both, moneyOnly] = transactions();
    expect(transactions()).toHaveLength(2);
    expect(moneyOnly?.TransactItems).toEqual([{ Update: updateOf(both, 'JOB') }]);
    expect(updateOf(moneyOnly, 'JOB')?.ExpressionAttributeValues).toEqual({
      ':delta': 375 - 4_500,
      ':est': 4_500,
      ':cost': 375,
    });
    expect(updateOf(moneyOnly, 'CALL#0007#c0012#liability-counsel')).toBeUndefined();
  });

  it('does not settle the money alone when the transaction failed for another reason', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('InternalServerError'));
    await expect(
      ledger.settleAnswered(call, HELD, { modelId: 'model-a', inputTokens: 1, outputTokens: 1, cost: 1 }),
    ).rejects.toThrow('InternalServerError');
    expect(transactions()).toHaveLength(1);
  });
});

describe('CallLedger.settleUnanswered', () => {
  it('releases the whole reservation of a call that got no answer and records it retryable', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleUnanswered(call, HELD, {
      status: 'retryable',
      errorClass: 'transient',
      lastError: 'ThrottlingException: slow down',
    });
    const [tx] = transactions();
    expect(updateOf(tx, 'JOB')).toMatchObject({
      UpdateExpression: 'SET costCommitted = costCommitted - :est, costReserved = costReserved - :est',
      ExpressionAttributeValues: { ':est': 4_500 },
    });
    const entry = updateOf(tx, 'CALL#0007#c0012#liability-counsel');
    expect(entry?.ExpressionAttributeValues).toMatchObject({
      ':status': 'retryable',
      ':class': 'transient',
      ':key': 'key-v1',
    });
    expect(entry?.UpdateExpression).not.toContain('failureKind');
  });

  it('touches only the entry when nothing was reserved (a call refused for budget)', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleUnanswered(
      call,
      { owner: 'worker-a:3' },
      {
        status: 'failed',
        failureKind: 'budget',
        errorClass: 'logic',
        lastError: 'not started',
      },
    );
    const [tx] = transactions();
    expect(tx?.TransactItems).toHaveLength(1);
    expect(updateOf(tx, 'JOB')).toBeUndefined();
    const entry = updateOf(tx, 'CALL#0007#c0012#liability-counsel');
    expect(entry?.UpdateExpression).toContain('failureKind = :kind');
    expect(entry?.ExpressionAttributeValues).toMatchObject({ ':status': 'failed', ':kind': 'budget' });
  });

  it('keeps the entry shape readable as a LedgerEntry', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleUnanswered(
      call,
      { owner: 'worker-a:3' },
      {
        status: 'failed',
        failureKind: 'permanent',
        errorClass: 'logic',
        lastError: 'AccessDeniedException: no',
      },
    );
    const values = updateOf(
      transactions()[0],
      'CALL#0007#c0012#liability-counsel',
    )?.ExpressionAttributeValues;
    const asEntry: Partial<LedgerEntry> = {
      jobId: values?.[':job'],
      chunk: values?.[':chunk'],
      clauseId: values?.[':clause'],
      analystId: values?.[':analyst'],
      idempotencyKey: values?.[':key'],
    };
    expect(asEntry).toEqual({
      jobId: 'job-1',
      chunk: 7,
      clauseId: 'c0012',
      analystId: 'liability-counsel',
      idempotencyKey: 'key-v1',
    });
  });

  it('with a reservation, writes the entry only while it is still fenced to this holder', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleUnanswered(call, HELD, {
      status: 'retryable',
      errorClass: 'transient',
      lastError: 'ThrottlingException: slow down',
    });
    const entry = updateOf(transactions()[0], 'CALL#0007#c0012#liability-counsel');
    expect(entry?.ConditionExpression).toBe('ownerFence = :owner');
    expect(entry?.ExpressionAttributeValues?.[':owner']).toBe('worker-a:3');
    expect(entry?.ExpressionAttributeValues).not.toHaveProperty(':done');
  });

  it('without a reservation, overwrites an entry that is new, retryable or in flight (the caller holds the chunk), never a final one', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await ledger.settleUnanswered(
      call,
      { owner: 'worker-a:3' },
      {
        status: 'failed',
        failureKind: 'budget',
        errorClass: 'logic',
        lastError: 'not started',
      },
    );
    const entry = updateOf(transactions()[0], 'CALL#0007#c0012#liability-counsel');
    expect(entry?.ConditionExpression).toBe(
      'attribute_not_exists(#status) OR NOT (#status IN (:done, :failed))',
    );
    expect(entry?.ExpressionAttributeNames).toEqual({ '#status': 'status' });
    expect(entry?.ExpressionAttributeValues).toMatchObject({
      ':done': 'done',
      ':failed': 'failed',
      ':owner': 'worker-a:3',
    });
    // The entry becomes this holder's, so a dead holder's late settlement cannot overwrite it.
    expect(entry?.UpdateExpression).toContain('ownerFence = :owner');
  });

  it('releases the reservation, alone, when a later holder has re-reserved the entry', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(transactionCancelled(['None', 'ConditionalCheckFailed']))
      .resolves({});
    await expect(
      ledger.settleUnanswered(call, HELD, {
        status: 'retryable',
        errorClass: 'transient',
        lastError: 'ServiceUnavailableException: busy',
      }),
    ).resolves.toBeUndefined();
    const [both, moneyOnly] = transactions();
    expect(transactions()).toHaveLength(2);
    expect(updateOf(both, 'CALL#0007#c0012#liability-counsel')).toBeDefined();
    expect(moneyOnly?.TransactItems).toEqual([
      {
        Update: {
          TableName: TABLE,
          Key: { pk: 'JOB#job-1', sk: 'JOB' },
          UpdateExpression: 'SET costCommitted = costCommitted - :est, costReserved = costReserved - :est',
          ExpressionAttributeValues: { ':est': 4_500 },
        },
      },
    ]);
  });

  it('leaves an entry that another holder finished alone, and moves no money', async () => {
    ddb.on(TransactWriteCommand).rejects(transactionCancelled(['ConditionalCheckFailed']));
    await expect(
      ledger.settleUnanswered(
        call,
        { owner: 'worker-a:3' },
        {
          status: 'failed',
          failureKind: 'budget',
          errorClass: 'logic',
          lastError: 'not started',
        },
      ),
    ).resolves.toBeUndefined();
    expect(transactions()).toHaveLength(1);
  });

  it('propagates a settlement failure that is not a refusal', async () => {
    ddb.on(TransactWriteCommand).rejects(new Error('InternalServerError'));
    await expect(
      ledger.settleUnanswered(call, HELD, { status: 'retryable', errorClass: 'transient', lastError: 'x' }),
    ).rejects.toThrow('InternalServerError');
    expect(transactions()).toHaveLength(1);
  });
});
