import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { abandonedSpend, totalCost } from '../../../lambdas/core/state/abandoned.js';
import { Allotments } from '../../../lambdas/core/state/allotments.js';
import type { LedgerEntry } from '../../../lambdas/core/state/call-ledger.js';
import type { Lease } from '../../../lambdas/core/state/claims.js';
import { isAllotmentOverdrawnError, isLeaseLostError } from '../../../lambdas/core/state/errors.js';

const TABLE = 'state-table';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const allotments = new Allotments(db, TABLE, () => NOW);

const lease: Lease = {
  jobId: 'job-1',
  chunk: 7,
  stage: 'analyze',
  workerId: 'worker-b',
  fence: 4,
  attempts: 2,
  expiresAt: NOW + 60_000,
};
const JOB = { ceilingMicros: 1_000_000 };

function cancelled(codes: string[]): TransactionCanceledException {
  return new TransactionCanceledException({
    message: `Transaction cancelled [${codes.join(', ')}]`,
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

function transactions(): TransactWriteCommandInput[] {
  return ddb.commandCalls(TransactWriteCommand).map((c) => c.args[0].input);
}

function update(tx: TransactWriteCommandInput | undefined, sk: string) {
  return tx?.TransactItems?.find((i) => i.Update?.Key?.sk === sk)?.Update;
}

const entry = (e: Partial<LedgerEntry>) => e as LedgerEntry;

beforeEach(() => {
  ddb.reset();
});

describe('Allotments.move', () => {
  it('takes money from the job and records it on the fenced checkpoint, in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    expect(await allotments.move(lease, { spent: 0, release: 0, take: 40_000 }, JOB)).toEqual({ ok: true });
    const tx = transactions()[0];
    const cp = update(tx, 'CHUNK#0007#analyze');
    expect(cp?.ConditionExpression).toBe('claimedBy = :me AND fence = :fence');
    expect(cp?.ExpressionAttributeValues).toMatchObject({
      ':me': 'worker-b',
      ':fence': 4,
      ':delta': 40_000,
      ':spent': 0,
      ':owner': 'worker-b:4',
    });
    const job = update(tx, 'JOB');
    expect(job?.ConditionExpression).toBe(
      '#status = :running AND attribute_not_exists(budgetExceededAt) AND costCommitted <= :room',
    );
    expect(job?.ExpressionAttributeValues).toMatchObject({
      ':committed': 40_000,
      ':delta': 40_000,
      ':spent': 0,
      ':room': 1_000_000 - 40_000,
    });
  });

  it('accounts spend, returns the unused part and asks the ceiling nothing when it takes nothing', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await allotments.move(lease, { spent: 12_000, release: 28_000, take: 0 }, JOB);
    const tx = transactions()[0];
    const job = update(tx, 'JOB');
    expect(job?.ConditionExpression).toBeUndefined();
    // committed: spent stays committed, the released part leaves; reserved: both leave it.
    expect(job?.ExpressionAttributeValues).toMatchObject({
      ':committed': -28_000,
      ':delta': -40_000,
      ':spent': 12_000,
    });
    expect(update(tx, 'CHUNK#0007#analyze')?.ExpressionAttributeValues).toMatchObject({
      ':delta': -40_000,
      ':spent': 12_000,
    });
  });

  it('checks room only for the net new money when it gives back and takes in one move', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await allotments.move(lease, { spent: 5_000, release: 10_000, take: 30_000 }, JOB);
    expect(update(transactions()[0], 'JOB')?.ExpressionAttributeValues).toMatchObject({
      ':committed': 20_000,
      ':delta': 15_000,
      ':room': 1_000_000 - 20_000,
    });
  });

  it('writes nothing for an empty move', async () => {
    expect(await allotments.move(lease, { spent: 0, release: 0, take: 0 }, JOB)).toEqual({ ok: true });
    expect(transactions()).toHaveLength(0);
  });

  it('returns the job DynamoDB sent with its refusal, read from no other request, so the caller can tell why', async () => {
    const refusal = cancelled(['None', 'ConditionalCheckFailed']);
    const reason = refusal.CancellationReasons?.[1];
    if (reason) reason.Item = marshall({ jobId: 'job-1', status: 'cancelled', costCommitted: 10 });
    ddb.on(TransactWriteCommand).rejects(refusal);
    const r = await allotments.move(lease, { spent: 0, release: 0, take: 1 }, JOB);
    expect(r).toEqual({ ok: false, job: { jobId: 'job-1', status: 'cancelled', costCommitted: 10 } });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    // Each conditional item asks for the item as it stood if its condition fails.
    for (const item of transactions()[0]?.TransactItems ?? []) {
      if (item.Update?.ConditionExpression)
        expect(item.Update.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    }
  });

  it('throws LeaseLostError when the checkpoint refuses the fence', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'None']));
    const error = await allotments.move(lease, { spent: 0, release: 0, take: 1 }, JOB).catch((e) => e);
    expect(isLeaseLostError(error)).toBe(true);
  });

  it('never takes an allotment below zero: a move that shrinks it is conditional on it holding that much', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await allotments.move(lease, { spent: 12_000, release: 28_000, take: 0 }, JOB);
    const cp = update(transactions()[0], 'CHUNK#0007#analyze');
    expect(cp?.ConditionExpression).toBe('claimedBy = :me AND fence = :fence AND allotment >= :shrink');
    expect(cp?.ExpressionAttributeValues).toMatchObject({ ':shrink': 40_000 });
    // A move that only grows the allotment needs no such condition.
    await allotments.move(lease, { spent: 1_000, release: 0, take: 5_000 }, JOB);
    expect(update(transactions()[1], 'CHUNK#0007#analyze')?.ConditionExpression).toBe(
      'claimedBy = :me AND fence = :fence',
    );
  });

  it('throws AllotmentOverdrawnError, not a lost lease, when the lease is held but the allotment is short', async () => {
    const refusal = cancelled(['ConditionalCheckFailed', 'None']);
    const reason = refusal.CancellationReasons?.[0];
    if (reason) reason.Item = marshall({ claimedBy: 'worker-b', fence: 4, allotment: 300 });
    ddb.on(TransactWriteCommand).rejects(refusal);
    const error = await allotments.move(lease, { spent: 390, release: 0, take: 0 }, JOB).catch((e) => e);
    expect(isAllotmentOverdrawnError(error)).toBe(true);
    expect(error).toMatchObject({ held: 300, wanted: 390, chunk: 7, stage: 'analyze' });
    // The holder stops as on a lost lease.
    expect(isLeaseLostError(error)).toBe(true);
    // The same refusal with the fence moved on is a lost lease.
    if (reason) reason.Item = marshall({ claimedBy: 'worker-c', fence: 5, allotment: 300 });
    const lost = await allotments.move(lease, { spent: 390, release: 0, take: 0 }, JOB).catch((e) => e);
    expect(isLeaseLostError(lost) && !isAllotmentOverdrawnError(lost)).toBe(true);
  });

  it('sends the move again after a transaction conflict', async () => {
    ddb
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled(['None', 'TransactionConflict']))
      .resolves({});
    expect(await allotments.move(lease, { spent: 0, release: 0, take: 5 }, JOB)).toEqual({ ok: true });
    expect(transactions()).toHaveLength(2);
  });
});

describe('abandonedSpend and totalCost', () => {
  const dead = 'worker-a:3';
  it("counts settled cost not yet accounted plus the worst case of the dead holder's intents", () => {
    const entries = [
      entry({ status: 'done', cost: 300 }),
      entry({ status: 'done', cost: 200 }),
      entry({ status: 'in-flight', ownerFence: dead, reservation: 1_000, cost: 50 }),
      entry({ status: 'in-flight', ownerFence: 'worker-z:1', reservation: 9_999 }),
      entry({ status: 'retryable', ownerFence: dead, reservation: 7_777 }),
    ];
    expect(totalCost(entries)).toBe(550);
    expect(abandonedSpend({ allotment: 50_000, allotmentOwner: dead, spentAccounted: 200 }, entries)).toEqual(
      {
        spent: 350 + 1_000,
        unknown: 1_000,
      },
    );
  });

  it('counts an intent a takeover ended, which keeps its reservation, until that holder’s allotment is settled', () => {
    const entries = [
      entry({ status: 'retryable', ownerFence: 'worker-b:4', retiredFrom: dead, reservation: 1_000 }),
      entry({ status: 'retryable', ownerFence: 'worker-b:4', retiredFrom: 'worker-z:1', reservation: 9_999 }),
    ];
    expect(abandonedSpend({ allotment: 5_000, allotmentOwner: dead }, entries)).toEqual({
      spent: 1_000,
      unknown: 1_000,
    });
    // Once the allotment is settled it has no owner, and nothing counts twice.
    expect(abandonedSpend({ allotment: 0, spentAccounted: 0 }, entries)).toEqual({ spent: 0, unknown: 0 });
  });

  it('never counts intents beyond the allotment the holder had', () => {
    const entries = [entry({ status: 'in-flight', ownerFence: 'worker-a:3', reservation: 9_000 })];
    expect(abandonedSpend({ allotment: 4_000, allotmentOwner: 'worker-a:3' }, entries)).toEqual({
      spent: 4_000,
      unknown: 4_000,
    });
  });

  it('counts settled cost in full, even past what the holder held: it was billed', () => {
    const entries = [
      entry({ status: 'done', cost: 5_000 }),
      entry({ status: 'in-flight', ownerFence: dead, reservation: 9_000 }),
    ];
    expect(abandonedSpend({ allotment: 4_000, allotmentOwner: dead, spentAccounted: 0 }, entries)).toEqual({
      spent: 5_000,
      unknown: 0,
    });
    // An allotment already below zero holds nothing to count intents against.
    expect(abandonedSpend({ allotment: -90, allotmentOwner: dead, spentAccounted: 5_000 }, entries)).toEqual({
      spent: 0,
      unknown: 0,
    });
  });
});

describe('Allotments.recover', () => {
  const dead = 'worker-a:3';
  const entries = [
    entry({ status: 'done', cost: 700 }),
    entry({ status: 'in-flight', ownerFence: dead, reservation: 1_000 }),
  ];

  it("returns a dead holder's allotment less what it may have spent, under the new lease", async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const spent = await allotments.recover(
      lease,
      { allotment: 40_000, allotmentOwner: dead, spentAccounted: 100 },
      entries,
    );
    expect(spent).toEqual({ spent: 600 + 1_000, unknown: 1_000 });
    const tx = transactions()[0];
    const cp = update(tx, 'CHUNK#0007#analyze');
    expect(cp?.ConditionExpression).toBe(
      'claimedBy = :me AND fence = :fence AND allotment = :held AND allotmentOwner = :goneOwner',
    );
    expect(cp?.UpdateExpression).toContain('spentUnknown = if_not_exists(spentUnknown, :zero) + :unknown');
    expect(cp?.ExpressionAttributeValues).toMatchObject({
      ':goneOwner': dead,
      ':held': 40_000,
      ':ledger': 700,
      ':unknown': 1_000,
      ':zero': 0,
    });
    // DynamoDB refuses a value its expressions do not use: each update carries its own.
    expect(Object.keys(cp?.ExpressionAttributeValues ?? {}).sort()).toEqual([
      ':fence',
      ':goneOwner',
      ':held',
      ':ledger',
      ':me',
      ':unknown',
      ':zero',
    ]);
    expect(Object.keys(update(tx, 'JOB')?.ExpressionAttributeValues ?? {}).sort()).toEqual([
      ':at',
      ':committed',
      ':held',
      ':spent',
    ]);
    expect(update(tx, 'JOB')?.ExpressionAttributeValues).toMatchObject({
      ':committed': 1_600 - 40_000,
      ':held': 40_000,
      ':spent': 1_600,
    });
  });

  it('does nothing when nothing is held and the ledger is accounted, or when the allotment is its own', async () => {
    const none = { spent: 0, unknown: 0 };
    expect(
      await allotments.recover(lease, { allotment: 0, allotmentOwner: dead, spentAccounted: 700 }, entries),
    ).toEqual(none);
    expect(
      await allotments.recover(lease, { allotment: 500, allotmentOwner: 'worker-b:4' }, entries),
    ).toEqual(none);
    expect(await allotments.recover(lease, { spentAccounted: 700 }, entries)).toEqual(none);
    expect(transactions()).toHaveLength(0);
  });

  it('brings an allotment left below zero back to zero, committing the excess on the job', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    const counted = await allotments.recover(
      lease,
      { allotment: -90, allotmentOwner: dead, spentAccounted: 700 },
      entries,
    );
    expect(counted).toEqual({ spent: 0, unknown: 0 });
    const tx = transactions()[0];
    expect(update(tx, 'CHUNK#0007#analyze')?.ExpressionAttributeValues).toMatchObject({ ':held': -90 });
    expect(update(tx, 'JOB')?.ExpressionAttributeValues).toMatchObject({
      ':committed': 90,
      ':held': -90,
      ':spent': 0,
    });
  });

  it('throws LeaseLostError when the lease or the allotment moved on meanwhile', async () => {
    ddb.on(TransactWriteCommand).rejects(cancelled(['ConditionalCheckFailed', 'None']));
    const error = await allotments
      .recover(lease, { allotment: 40_000, allotmentOwner: dead }, entries)
      .catch((e) => e);
    expect(isLeaseLostError(error)).toBe(true);
  });
});
