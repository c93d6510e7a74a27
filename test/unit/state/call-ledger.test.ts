import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DynamoDBDocumentClient,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  CallLedger,
  type CallRef,
  type Intent,
  isFinalFor,
  type LedgerEntry,
  outcomeOf,
} from '../../../lambdas/core/state/call-ledger.js';

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
const OWNER = 'worker-a:3';

function callN(n: number): CallRef {
  return { ...call, clauseId: `c${String(n).padStart(4, '0')}` };
}

function intent(n: number, prior?: Partial<LedgerEntry>): Intent {
  return {
    call: callN(n),
    owner: OWNER,
    reservation: 100 + n,
    ...(prior ? { prior: { ...(prior as LedgerEntry) } } : {}),
  };
}

function batches(): BatchWriteCommandInput[] {
  return ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input);
}

function putsOf(input: BatchWriteCommandInput | undefined): Record<string, unknown>[] {
  return (input?.RequestItems?.[TABLE] ?? []).map((r) => r.PutRequest?.Item ?? {});
}

function lastUpdate() {
  return ddb.commandCalls(UpdateCommand).at(-1)?.args[0].input;
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

describe('outcomeOf', () => {
  it('keeps where a call ended, its attempts, tokens and failure, and none of its answer or money', () => {
    const entry: LedgerEntry = {
      jobId: 'job-1',
      chunk: 7,
      clauseId: 'c0012',
      analystId: 'liability-counsel',
      status: 'failed',
      idempotencyKey: 'key-v1',
      modelId: 'model',
      attempts: 3,
      inputTokens: 900,
      outputTokens: 40,
      cacheReadInputTokens: 4_000,
      cost: 1_234,
      reservation: 5_000,
      ownerFence: OWNER,
      result: '{"assessments":[]}',
      failureKind: 'permanent',
      errorClass: 'logic',
      lastError: 'ValidationException: bad',
      finishedAt: '2026-01-15T12:00:00.000Z',
    };
    expect(outcomeOf(entry)).toEqual({
      chunk: 7,
      clauseId: 'c0012',
      analystId: 'liability-counsel',
      status: 'failed',
      attempts: 3,
      inputTokens: 900,
      outputTokens: 40,
      cacheReadInputTokens: 4_000,
      failureKind: 'permanent',
      errorClass: 'logic',
      lastError: 'ValidationException: bad',
    });
    // Fields the entry lacks are left out, not written as undefined.
    expect(Object.keys(outcomeOf({ ...entry, status: 'done', failureKind: undefined }))).not.toContain(
      'failureKind',
    );
  });
});

describe('isFinalFor', () => {
  it('is true only for a done or failed entry of the same request', () => {
    const entry = (status: LedgerEntry['status'], idempotencyKey = 'key-v1') =>
      ({ status, idempotencyKey }) as LedgerEntry;
    expect(isFinalFor(entry('done'), call)).toBe(true);
    expect(isFinalFor(entry('failed'), call)).toBe(true);
    expect(isFinalFor(entry('in-flight'), call)).toBe(false);
    expect(isFinalFor(entry('retryable'), call)).toBe(false);
    expect(isFinalFor(entry('done', 'key-v2'), call)).toBe(false);
    expect(isFinalFor(undefined, call)).toBe(false);
  });
});

describe('CallLedger.writeIntents', () => {
  it('writes intents in batches of at most 25 puts, each owned, reserved and stamped', async () => {
    ddb.on(BatchWriteCommand).resolves({});
    await ledger.writeIntents(Array.from({ length: 60 }, (_, i) => intent(i)));
    expect(batches().map((b) => putsOf(b).length)).toEqual([25, 25, 10]);
    expect(putsOf(batches()[0])[3]).toEqual({
      pk: 'JOB#job-1',
      sk: 'CALL#0007#c0003#liability-counsel',
      jobId: 'job-1',
      chunk: 7,
      clauseId: 'c0003',
      analystId: 'liability-counsel',
      idempotencyKey: 'key-v1',
      status: 'in-flight',
      attempts: 0,
      reservation: 103,
      ownerFence: OWNER,
      reservedAt: NOW,
    });
  });

  it("carries the entry's totals over from the claim-time read, for the same request only", async () => {
    ddb.on(BatchWriteCommand).resolves({});
    const prior = {
      idempotencyKey: 'key-v1',
      attempts: 2,
      inputTokens: 900,
      outputTokens: 120,
      cost: 450,
      modelId: 'm',
    };
    await ledger.writeIntents([intent(1, prior), intent(2, { ...prior, idempotencyKey: 'key-v0' })]);
    const [same, changed] = putsOf(batches()[0]);
    expect(same).toMatchObject({ attempts: 2, inputTokens: 900, outputTokens: 120, cost: 450, modelId: 'm' });
    expect(same?.status).toBe('in-flight');
    expect(changed).toMatchObject({ attempts: 0 });
    expect(changed).not.toHaveProperty('cost');
    expect(changed).not.toHaveProperty('inputTokens');
  });

  it('sends unprocessed items again until every intent is written', async () => {
    let round = 0;
    ddb.on(BatchWriteCommand).callsFake((input: BatchWriteCommandInput) => {
      round++;
      const items = input.RequestItems?.[TABLE] ?? [];
      return round === 1 ? { UnprocessedItems: { [TABLE]: items.slice(1) } } : {};
    });
    await ledger.writeIntents([intent(1), intent(2), intent(3)]);
    expect(batches().map((b) => putsOf(b).map((p) => p.clauseId))).toEqual([
      ['c0001', 'c0002', 'c0003'],
      ['c0002', 'c0003'],
    ]);
  });

  it('does not hide a failed batch', async () => {
    ddb.on(BatchWriteCommand).rejects(Object.assign(new Error('bad'), { name: 'ValidationException' }));
    await expect(ledger.writeIntents([intent(1)])).rejects.toThrow('bad');
  });
});

describe('CallLedger.settle', () => {
  const totals = { attempts: 2, inputTokens: 1800, outputTokens: 240, cost: 900 };

  it("writes one conditional update of the holder's entry, with absolute totals", async () => {
    ddb.on(UpdateCommand).resolves({});
    const ok = await ledger.settle(call, OWNER, {
      ...totals,
      status: 'done',
      modelId: 'model-a',
      checkedAt: NOW - 5,
      result: '{"a":1}',
    });
    expect(ok).toBe(true);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    const input = lastUpdate();
    expect(input?.Key).toEqual({ pk: 'JOB#job-1', sk: 'CALL#0007#c0012#liability-counsel' });
    expect(input?.ConditionExpression).toBe('ownerFence = :owner');
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':owner': OWNER,
      ':status': 'done',
      ':attempts': 2,
      ':inputTokens': 1800,
      ':outputTokens': 240,
      ':cost': 900,
      ':modelId': 'model-a',
      ':checkedAt': NOW - 5,
      ':finishedAt': new Date(NOW).toISOString(),
      ':result': '{"a":1}',
    });
    expect(input?.UpdateExpression).not.toContain('if_not_exists');
  });

  it('keeps an entry that another attempt follows in flight, with the next worst case and no end time', async () => {
    ddb.on(UpdateCommand).resolves({});
    await ledger.settle(call, OWNER, { ...totals, status: 'in-flight', reservation: 4_800 });
    const input = lastUpdate();
    expect(input?.ExpressionAttributeValues).toMatchObject({ ':status': 'in-flight', ':reservation': 4_800 });
    expect(input?.UpdateExpression).not.toContain('finishedAt');
  });

  it('records a failure with its kind, class and a bounded message', async () => {
    ddb.on(UpdateCommand).resolves({});
    await ledger.settle(call, OWNER, {
      ...totals,
      status: 'failed',
      failureKind: 'validation',
      errorClass: 'validation',
      lastError: 'x'.repeat(5000),
    });
    const values = lastUpdate()?.ExpressionAttributeValues ?? {};
    expect(values[':failureKind']).toBe('validation');
    expect(values[':errorClass']).toBe('validation');
    expect(String(values[':lastError'])).toHaveLength(1000);
  });

  it("returns false, writing nothing, when the entry is no longer this holder's", async () => {
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    expect(await ledger.settle(call, OWNER, { ...totals, status: 'done', result: '{}' })).toBe(false);
  });

  it('sends the update again when a transaction held the entry at that moment', async () => {
    ddb
      .on(UpdateCommand)
      .rejectsOnce(
        new TransactionConflictException({ message: 'Transaction is ongoing for the item', $metadata: {} }),
      )
      .resolves({});
    expect(await ledger.settle(call, OWNER, { ...totals, status: 'retryable', lastError: 'e' })).toBe(true);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(2);
  });

  it('does not hide other failures', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('bad'), { name: 'ValidationException' }));
    await expect(ledger.settle(call, OWNER, { ...totals, status: 'done' })).rejects.toThrow('bad');
  });
});
