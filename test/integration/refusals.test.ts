/**
 * A refused conditional write carries the item as it stood, from the emulator as from DynamoDB
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), single writes and transactions alike, and
 * a transaction's refusal is told by the label of the item that failed.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Allotments } from '../../lambdas/core/state/allotments.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { isLeaseLostError, isWriteRefused } from '../../lambdas/core/state/errors.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { JOB_SK, jobPk } from '../../lambdas/core/state/keys.js';
import { conditionHeld, refusable, transactLabelled } from '../../lambdas/core/state/transact.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('refusals');
const db = stack.clients.documents;
const table = stack.resources.tableName;
const jobs = new Jobs(db, table);
const claims = new Claims(db, table);
const allotments = new Allotments(db, table);

async function runningJob(jobId: string): Promise<void> {
  await jobs.createIfAbsent({
    jobId,
    lane: 'batch',
    bucket: 'b',
    key: 'k',
    analysts: ['liability-counsel'],
    ceilingMicros: 1_000_000,
    deadline: Date.now() + 600_000,
  });
  await claims.createAll(jobId, 1);
  await jobs.recordPlan(jobId, {
    chunkCount: 1,
    clauseCount: 1,
    callsPlanned: 1,
    sha256: 'abc',
    bytes: 10,
    format: 'txt',
  });
}

describe('a refused conditional write', () => {
  it('carries the item as it stood, for a single write', async () => {
    await runningJob('j-single');
    const error = await refusable('j-single', 'job', (returnOnRefusal) =>
      db.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: jobPk('j-single'), sk: JOB_SK },
          UpdateExpression: 'SET ceilingMicros = :limit',
          ConditionExpression: '#status = :paused',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':limit': 1, ':paused': 'paused' },
          ...returnOnRefusal,
        }),
      ),
    ).catch((e: unknown) => e);
    expect(isWriteRefused(error)).toBe(true);
    expect(error).toMatchObject({
      label: 'job',
      item: { jobId: 'j-single', status: 'running', ceilingMicros: 1_000_000 },
    });
  });

  it('names the refused item of a transaction by its label, whatever its position, with the item', async () => {
    await runningJob('j-labels');
    const check = (label: string, status: string) => ({
      label,
      item: {
        ConditionCheck: {
          TableName: table,
          Key: { pk: jobPk('j-labels'), sk: JOB_SK },
          ConditionExpression: '#status = :s',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':s': status },
        },
      },
    });
    const touch = {
      label: 'checkpoint',
      item: {
        Update: {
          TableName: table,
          Key: { pk: jobPk('j-labels'), sk: 'CHUNK#0000#analyze' },
          UpdateExpression: 'SET touched = :t',
          ExpressionAttributeValues: { ':t': 1 },
        },
      },
    };
    const error = await transactLabelled(db, 'j-labels', [touch, check('running job', 'paused')]).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: 'WriteRefusedError',
      label: 'running job',
      item: { status: 'running' },
    });
  });

  it('tells an allotment refused by the job from a lost lease, with no read of the job', async () => {
    await runningJob('j-move');
    const claimed = await claims.claim('j-move', 0, 'analyze', 'worker-a', 30_000);
    if (!claimed.won) throw new Error('claim lost');
    await jobs.cancel('j-move');
    const refused = await allotments.move(
      claimed.lease,
      { spent: 0, release: 0, take: 100 },
      { ceilingMicros: 1_000_000 },
    );
    expect(refused).toMatchObject({ ok: false, job: { jobId: 'j-move', status: 'cancelled' } });
    const stale = { ...claimed.lease, fence: claimed.lease.fence + 1 };
    const lost = await allotments
      .move(stale, { spent: 0, release: 0, take: 100 }, { ceilingMicros: 1_000_000 })
      .catch((e: unknown) => e);
    expect(isLeaseLostError(lost)).toBe(true);
  });
});

describe('a conditional write whose caller needs only whether it happened', () => {
  it('is true when its condition held and wrote, false when refused and wrote nothing', async () => {
    await runningJob('j-held');
    const setLimit = (limit: number, wanted: string) => () =>
      db.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: jobPk('j-held'), sk: JOB_SK },
          UpdateExpression: 'SET ceilingMicros = :limit',
          ConditionExpression: '#status = :wanted',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':limit': limit, ':wanted': wanted },
        }),
      );
    expect(await conditionHeld(setLimit(2_000_000, 'running'))).toBe(true);
    expect(await conditionHeld(setLimit(3, 'paused'))).toBe(false);
    expect((await jobs.find('j-held'))?.ceilingMicros).toBe(2_000_000);
    // Anything but a refused condition is the caller's to see.
    const invalid = () =>
      db.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: jobPk('j-held'), sk: JOB_SK },
          UpdateExpression: 'SET ceilingMicros = :undefined',
        }),
      );
    await expect(conditionHeld(invalid)).rejects.toMatchObject({ name: 'ValidationException' });
  });
});
