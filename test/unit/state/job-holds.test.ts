import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { isJobNotFoundError } from '../../../lambdas/core/state/errors.js';
import { JobHolds } from '../../../lambdas/core/state/job-holds.js';
import { conditionFailed } from '../../helpers/refusals.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const ddb = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const holds = new JobHolds(db, 'state-table', () => NOW);

beforeEach(() => {
  ddb.reset();
});

describe('JobHolds refused', () => {
  it('answers a pause of an ended job with the job the refusal carried, reading nothing', async () => {
    const ended = { jobId: 'job-1', status: 'completed', finalizedAt: 'x' };
    ddb.on(UpdateCommand).rejects(conditionFailed(ended));
    expect(await holds.pause('job-1', 'ann')).toEqual({ changed: false, job: ended });
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ReturnValuesOnConditionCheckFailure).toBe(
      'ALL_OLD',
    );
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('refuses a pause of a job that is not there by name', async () => {
    ddb.on(UpdateCommand).rejects(conditionFailed());
    const error = await holds.pause('job-9', 'ann').catch((e: unknown) => e);
    expect(isJobNotFoundError(error)).toBe(true);
  });

  it("answers a resume another caller won with the job the transaction's refusal carried", async () => {
    const paused = {
      jobId: 'job-1',
      status: 'paused',
      owner: 'ann',
      pausedAt: new Date(NOW - 60_000).toISOString(),
      deadline: NOW + 3_600_000,
    };
    const resumed = { ...paused, status: 'running', holdsSlot: true };
    ddb.on(GetCommand).resolves({ Item: paused });
    ddb.on(TransactWriteCommand).rejects(
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'ConditionalCheckFailed', Item: marshall(resumed) }, { Code: 'None' }],
      }),
    );
    expect(await holds.resume('job-1')).toEqual({ changed: false, job: resumed });
    const [job] = ddb.commandCalls(TransactWriteCommand)[0]?.args[0].input.TransactItems ?? [];
    expect(job?.Update?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    // The one read is the caller's own, before the transaction; none follows the refusal.
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });
});
