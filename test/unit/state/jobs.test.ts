import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { isJobNotFoundError } from '../../../lambdas/core/state/errors.js';
import { type Job, type NewJob, TERMINAL_STATUSES } from '../../../lambdas/core/state/job.js';
import { Jobs } from '../../../lambdas/core/state/jobs.js';
import { conditionFailed } from '../../helpers/refusals.js';

const TABLE = 'state-table';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const AT = new Date(NOW).toISOString();

const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const jobs = new Jobs(db, TABLE, () => NOW);

const newJob: NewJob = {
  jobId: 'job-1',
  lane: 'realtime',
  bucket: 'intake',
  key: 'contracts/msa.pdf',
  analysts: ['liability-counsel'],
  ceilingMicros: 2_000_000,
  deadline: NOW + 3_600_000,
};

function updates() {
  return ddb.commandCalls(UpdateCommand).map((c) => c.args[0].input);
}

beforeEach(() => {
  ddb.reset();
});

describe('Jobs.find and get', () => {
  it('reads the job item strongly consistently, so a cancel is seen at once', async () => {
    ddb.on(GetCommand).resolves({ Item: { jobId: 'job-1', status: 'running' } });
    expect(await jobs.find('job-1')).toEqual({ jobId: 'job-1', status: 'running' });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { pk: 'JOB#job-1', sk: 'JOB' },
      ConsistentRead: true,
    });
  });

  it("reads a record written under the ceiling's earlier name, costLimit, as ceilingMicros", async () => {
    ddb.on(GetCommand).resolves({ Item: { jobId: 'job-1', status: 'running', costLimit: 5_000_000 } });
    const job = await jobs.find('job-1');
    expect(job?.ceilingMicros).toBe(5_000_000);
    expect(job).not.toHaveProperty('costLimit');
    // A record with the current name is read as it is.
    ddb.on(GetCommand).resolves({ Item: { jobId: 'job-1', status: 'running', ceilingMicros: 7 } });
    expect((await jobs.find('job-1'))?.ceilingMicros).toBe(7);
  });

  it('find gives undefined and get throws JobNotFoundError for an unknown job', async () => {
    ddb.on(GetCommand).resolves({});
    expect(await jobs.find('job-9')).toBeUndefined();
    const error = await jobs.get('job-9').catch((e: unknown) => e);
    expect(isJobNotFoundError(error)).toBe(true);
    expect(error).toMatchObject({ jobId: 'job-9' });
  });
});

describe('Jobs.createIfAbsent', () => {
  it('creates the job in status intake with every counter at zero, only if absent', async () => {
    ddb.on(PutCommand).resolves({});
    const result = await jobs.createIfAbsent(newJob);
    expect(result.created).toBe(true);
    expect(result.job).toMatchObject({
      ...newJob,
      status: 'intake',
      chunkCount: 0,
      chunksTerminal: 0,
      chunksDone: 0,
      costCommitted: 0,
      costReserved: 0,
      costSpent: 0,
      createdAt: AT,
    });
    const [put] = ddb.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put?.Item).toMatchObject({
      pk: 'JOB#job-1',
      sk: 'JOB',
      status: 'intake',
      gsi1pk: 'STATUS#intake',
      gsi1sk: `${AT}#job-1`,
    });
  });

  it('returns the existing job when a repeated S3 event finds it', async () => {
    const existing = { jobId: 'job-1', status: 'running', fanoutCompletedAt: AT };
    ddb.on(PutCommand).rejects(conditionFailed(existing));
    expect(await jobs.createIfAbsent(newJob)).toEqual({ created: false, job: existing });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });
});

describe('Jobs.markRunning and markFannedOut', () => {
  it('moves only an intake job to running, with its plan', async () => {
    ddb.on(UpdateCommand).resolves({});
    await jobs.markRunning('job-1', {
      chunkCount: 4,
      clauseCount: 30,
      callsPlanned: 330,
      sha256: 'abc',
      bytes: 1234,
      format: 'pdf',
    });
    const [input] = updates();
    expect(input?.ConditionExpression).toBe('attribute_exists(pk) AND #status IN (:from0)');
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':status': 'running',
      ':from0': 'intake',
      ':chunkCount': 4,
      ':clauseCount': 30,
      ':callsPlanned': 330,
      ':format': 'pdf',
      ':gpk': 'STATUS#running',
    });
    expect(input?.UpdateExpression).toContain('gsi1sk = :gsk');
  });

  it('records the fan-out time once', async () => {
    ddb.on(UpdateCommand).resolves({});
    await jobs.markFannedOut('job-1');
    expect(updates()[0]?.UpdateExpression).toBe(
      'SET fanoutCompletedAt = if_not_exists(fanoutCompletedAt, :at)',
    );
  });
});

describe('Jobs.recordPlan', () => {
  const plan = {
    chunkCount: 2,
    clauseCount: 9,
    callsPlanned: 99,
    sha256: 'abc',
    bytes: 10,
    format: 'pdf',
  } as const;

  it('answers from the refusal when the job had left intake, reading nothing', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed({ jobId: 'job-1', status: 'queued' }));
    expect(await jobs.recordPlan('job-1', plan)).toBe('queued');
    expect(updates()).toHaveLength(1);
    expect(updates()[0]?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('gives a job cancelled in intake its plan, and answers cancelled', async () => {
    ddb
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ jobId: 'job-1', status: 'cancelled', chunkCount: 0 }))
      .resolves({});
    expect(await jobs.recordPlan('job-1', plan)).toBe('cancelled');
    expect(updates()[1]?.ConditionExpression).toBe('#status = :cancelled AND chunkCount = :zero');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('takes the status from the second refusal when the plan was recorded already', async () => {
    ddb
      .on(UpdateCommand)
      .rejectsOnce(conditionFailed({ jobId: 'job-1', status: 'cancelled', chunkCount: 2 }))
      .rejectsOnce(conditionFailed({ jobId: 'job-1', status: 'cancelled', chunkCount: 2 }));
    expect(await jobs.recordPlan('job-1', plan)).toBe('cancelled');
    expect(updates()[1]?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('refuses a job that is not there by name', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    const error = await jobs.recordPlan('job-9', plan).catch((e: unknown) => e);
    expect(isJobNotFoundError(error)).toBe(true);
  });
});

describe('Jobs.cancel', () => {
  it('flips only a job that has not ended (intake, queued, running, paused, awaiting review) and holds no slot to cancelled, and returns it', async () => {
    const cancelled = { jobId: 'job-1', status: 'cancelled', cancelledAt: AT };
    ddb.on(UpdateCommand).resolves({ Attributes: cancelled });
    expect(await jobs.cancel('job-1', 'wrong file')).toEqual({ cancelled: true, job: cancelled });
    const [input] = updates();
    expect(input?.ConditionExpression).toBe(
      '(attribute_exists(pk) AND #status IN (:from0, :from1, :from2, :from3, :from4)) AND attribute_not_exists(holdsSlot)',
    );
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':status': 'cancelled',
      ':from0': 'intake',
      ':from1': 'queued',
      ':from2': 'running',
      ':from3': 'paused',
      ':from4': 'awaiting_review',
      ':reason': 'wrong file',
      ':at': AT,
      ':gpk': 'STATUS#cancelled',
    });
    expect(input?.UpdateExpression).toContain('cancelledAt = :at');
    expect(input?.ReturnValues).toBe('ALL_NEW');
  });

  it('returns false with the current job when it had already ended', async () => {
    const completed = { jobId: 'job-1', status: 'completed' };
    ddb.on(UpdateCommand).rejects(conditionFailed(completed));
    expect(await jobs.cancel('job-1')).toEqual({ cancelled: false, job: completed });
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('throws JobNotFoundError when the refusal sends no job back', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    await expect(jobs.cancel('job-1')).rejects.toMatchObject({ name: 'JobNotFoundError' });
  });
});

describe('Jobs.claimFinalize', () => {
  it('succeeds once, and only when every chunk is terminal and the job is not held', async () => {
    ddb.on(UpdateCommand).resolvesOnce({}).rejects(conditionFailed());
    expect(await jobs.claimFinalize('job-1')).toBe(true);
    expect(await jobs.claimFinalize('job-1')).toBe(false);
    expect(updates()[0]?.ConditionExpression).toBe(
      'attribute_not_exists(finalizeEnqueuedAt) AND chunksTerminal >= chunkCount AND #status IN (:running, :cancelled)',
    );
  });

  it('propagates failures that are not a lost race', async () => {
    ddb.on(UpdateCommand).rejects(new Error('throttled'));
    await expect(jobs.claimFinalize('job-1')).rejects.toThrow('throttled');
  });
});

describe('Jobs.finish', () => {
  it('moves the job to a terminal status once, from the allowed statuses only', async () => {
    ddb.on(UpdateCommand).resolves({});
    expect(
      await jobs.finish('job-1', 'completed', { reportKey: 'r/job-1.json', reason: undefined }, ['running']),
    ).toBe(true);
    const [input] = updates();
    expect(input?.ConditionExpression).toBe(
      '(attribute_exists(pk) AND #status IN (:from0) AND attribute_not_exists(finalizedAt)) AND attribute_not_exists(holdsSlot)',
    );
    expect(input?.UpdateExpression).toBe(
      'SET #status = :status, updatedAt = :at, finalizedAt = :at, gsi1pk = :gpk, gsi1sk = :gsk, #reportKey = :reportKey',
    );
    expect(input?.ExpressionAttributeNames).toEqual({ '#status': 'status', '#reportKey': 'reportKey' });
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':status': 'completed',
      ':from0': 'running',
      ':reportKey': 'r/job-1.json',
      ':gpk': 'STATUS#completed',
    });
    expect(input?.ExpressionAttributeValues).not.toHaveProperty(':reason');
  });

  it('leaves intake and running by default', async () => {
    ddb.on(UpdateCommand).resolves({});
    await jobs.finish('job-1', 'incomplete', { reason: 'deadline passed' });
    expect(updates()[0]?.ConditionExpression).toContain('#status IN (:from0, :from1)');
    expect(updates()[0]?.ExpressionAttributeValues).toMatchObject({
      ':from0': 'running',
      ':from1': 'intake',
    });
  });

  it('returns false when the job was finished already or is in another status', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    expect(await jobs.finish('job-1', 'completed', {})).toBe(false);
  });

  it('rejects bad input only from intake, with the reason a person reads', async () => {
    ddb.on(UpdateCommand).resolves({});
    await jobs.markRejected('job-1', 'the PDF is encrypted', { format: 'pdf' });
    const [input] = updates();
    expect(input?.ConditionExpression).toBe(
      '(attribute_exists(pk) AND #status IN (:from0) AND attribute_not_exists(finalizedAt)) AND attribute_not_exists(holdsSlot)',
    );
    expect(input?.ExpressionAttributeValues).toMatchObject({
      ':status': 'rejected',
      ':from0': 'intake',
      ':reason': 'the PDF is encrypted',
      ':format': 'pdf',
    });
  });
});

describe('TERMINAL_STATUSES', () => {
  it('lists every status a job never leaves, and neither intake nor running', () => {
    const all: Job['status'][] = ['completed', 'incomplete', 'cancelled', 'budget_exceeded', 'rejected'];
    expect([...TERMINAL_STATUSES].sort()).toEqual([...all].sort());
  });
});
