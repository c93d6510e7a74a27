import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  actorOf,
  approverOf,
  COGNITO_OWNER_PREFIX,
  mayActOn,
  ownerNamesOf,
  ownerOf,
} from '../../../lambdas/api/access.js';
import { callerOf, type IamAuthorizerContext } from '../../../lambdas/api/caller.js';
import { configureApi, handler } from '../../../lambdas/api/handler.js';
import { userPoolSignInOf } from '../../../lambdas/api/people.js';
import { askApi } from '../../helpers/api-event.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
// Every person signed in through the identity pool signs with a session of the same role.
const SIGNED_IN = 'arn:aws:sts::123456789012:assumed-role/ReviewerRole/CognitoIdentityCredentials';
const ADMIN_ROLE = 'arn:aws:iam::123456789012:role/ReviewerAdminRole';
const ADMIN_SESSION = 'arn:aws:sts::123456789012:assumed-role/ReviewerAdminRole/CognitoIdentityCredentials';
const POOL = 'us-east-1:00000000-0000-0000-0000-00000000000f';
const ANNA = 'us-east-1:11111111-1111-1111-1111-111111111111';
const BEN = 'us-east-1:22222222-2222-2222-2222-222222222222';
const CLARA = 'us-east-1:33333333-3333-3333-3333-333333333333';

function cognitoContext(identityId: string, arn = SIGNED_IN, amr = ['authenticated']): IamAuthorizerContext {
  return {
    iam: {
      accessKey: 'ASIAEXAMPLE',
      userArn: arn,
      userId: 'AROAEXAMPLE:CognitoIdentityCredentials',
      cognitoIdentity: { identityId, identityPoolId: POOL, amr },
    },
  };
}

describe('callerOf', () => {
  it('reads an IAM caller as its ARN and user id', () => {
    expect(
      callerOf({ iam: { userArn: 'arn:aws:iam::1:user/alice', userId: 'AIDA1', cognitoIdentity: null } }),
    ).toEqual({ arn: 'arn:aws:iam::1:user/alice', userId: 'AIDA1' });
  });

  it("reads a Cognito caller's identity beside the shared role session", () => {
    expect(callerOf(cognitoContext(ANNA))).toEqual({
      arn: SIGNED_IN,
      userId: 'AROAEXAMPLE:CognitoIdentityCredentials',
      cognitoIdentityId: ANNA,
    });
  });

  it('reads the user pool sign-in (pool and sub) behind a Cognito caller from its amr', () => {
    const provider = 'cognito-idp.us-east-1.amazonaws.com/us-east-1_AbC123';
    const sub = '8f1c2a4e-0b7d-4c1e-9a55-3d2f6e7b8c90';
    expect(
      callerOf(
        cognitoContext(ANNA, SIGNED_IN, ['authenticated', provider, `${provider}:CognitoSignIn:${sub}`]),
      ),
    ).toEqual({
      arn: SIGNED_IN,
      userId: 'AROAEXAMPLE:CognitoIdentityCredentials',
      cognitoIdentityId: ANNA,
      userPoolSignIn: { userPoolId: 'us-east-1_AbC123', sub },
    });
    // A REST API's cognitoAuthenticationProvider carries the same entries, comma-separated.
    expect(userPoolSignInOf(`${provider},${provider}:CognitoSignIn:${sub}`)).toEqual({
      userPoolId: 'us-east-1_AbC123',
      sub,
    });
    expect(userPoolSignInOf([provider, 'graph.facebook.com'])).toBeUndefined();
    expect(userPoolSignInOf([`${provider}:CognitoSignIn:not a sub`])).toBeUndefined();
    expect(userPoolSignInOf(null)).toBeUndefined();
  });

  it('admits no unauthenticated (guest) Cognito identity and no caller without an ARN', () => {
    expect(callerOf(cognitoContext(ANNA, SIGNED_IN, ['unauthenticated']))).toBeUndefined();
    expect(
      callerOf({
        iam: { userArn: SIGNED_IN, cognitoIdentity: { identityId: null, amr: ['authenticated'] } },
      }),
    ).toBeUndefined();
    expect(callerOf({ iam: { userArn: null } })).toBeUndefined();
    expect(callerOf(undefined)).toBeUndefined();
  });
});

describe('owners that are Cognito identities', () => {
  const anna = { arn: SIGNED_IN, cognitoIdentityId: ANNA };
  const ben = { arn: SIGNED_IN, cognitoIdentityId: BEN };

  it('name the identity, not the role session', () => {
    expect(ownerOf(anna)).toBe(`${COGNITO_OWNER_PREFIX}${ANNA}`);
    expect(ownerOf({ arn: 'arn:aws:iam::1:user/alice' })).toBe('arn:aws:iam::1:user/alice');
  });

  it('let only that person in, though everyone signs with the same role session', () => {
    const job = { owner: ownerOf(anna) };
    expect(mayActOn(job, anna, [])).toBe(true);
    expect(mayActOn(job, ben, [])).toBe(false);
    // A job some IAM caller recorded under the shared session ARN is no signed-in person's.
    expect(mayActOn({ owner: SIGNED_IN }, anna, [])).toBe(false);
    // Nor may an IAM caller holding the ARN act on a person's job.
    expect(mayActOn(job, { arn: SIGNED_IN }, [])).toBe(false);
  });

  it("list a person's jobs under their identity only, never the shared role session", () => {
    expect(ownerNamesOf({ ...anna, userId: 'AROAEXAMPLE:CognitoIdentityCredentials' })).toEqual([
      ownerOf(anna),
    ]);
    expect(ownerNamesOf({ arn: 'arn:aws:iam::1:user/alice', userId: 'AIDA1' })).toEqual([
      'arn:aws:iam::1:user/alice',
      'AWS:AIDA1',
    ]);
  });

  it("let a member of a group a job's open review waits for see it (not act on it), asking the groups only then", async () => {
    const open = { status: 'awaiting_review' as const };
    const held = { ...open, owner: ownerOf(anna), approverGroups: ['legal-approvers'] };
    expect(approverOf(held, ['commercial-approvers', 'legal-approvers'])).toBe(true);
    expect(approverOf(held, ['commercial-approvers'])).toBe(false);
    expect(approverOf(open, ['legal-approvers'])).toBe(false);
    let asked = 0;
    const ben = actorOf({ arn: SIGNED_IN, cognitoIdentityId: BEN }, [], async () => {
      asked++;
      return ['legal-approvers'];
    });
    expect(ben?.mayActOn(held)).toBe(false);
    expect(await ben?.maySee?.(held)).toBe(true);
    expect(await ben?.maySee?.({ ...open, approverGroups: ['commercial-approvers'] })).toBe(false);
    expect(asked).toBe(2);
    // A job whose review waits for no group needs no question to the user pool.
    expect(await ben?.maySee?.(open)).toBe(false);
    expect(asked).toBe(2);
  });

  it('let an approver see a job no more once its review has closed, whichever way, nor ask the pool about it', async () => {
    const groups = ['legal-approvers'];
    let asked = 0;
    const ben = actorOf({ arn: SIGNED_IN, cognitoIdentityId: BEN }, [], async () => {
      asked++;
      return groups;
    });
    const escalated = { owner: ownerOf(anna), approverGroups: groups };
    const closed = [
      { ...escalated, status: 'completed' as const, reviewCompletedAt: '2026-01-15T12:00:00Z' },
      { ...escalated, status: 'awaiting_review' as const, reviewCompletedAt: '2026-01-15T12:00:00Z' },
      { ...escalated, status: 'incomplete' as const, reviewExpiredAt: '2026-01-15T12:00:00Z' },
      { ...escalated, status: 'cancelled' as const },
    ];
    for (const job of closed) {
      expect([job, await ben?.maySee?.(job), approverOf(job, groups)]).toEqual([job, false, false]);
    }
    expect(asked).toBe(0);
  });

  it('let a session of the administrators role in to every job', () => {
    const clara = { arn: ADMIN_SESSION, cognitoIdentityId: CLARA };
    expect(mayActOn({ owner: ownerOf(anna) }, clara, [ADMIN_ROLE])).toBe(true);
    expect(mayActOn({ owner: ownerOf(anna) }, clara, [])).toBe(false);
  });
});

describe('the handler with Cognito callers', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const job = {
    jobId: 'j-0123456789abcdef0123',
    status: 'running',
    lane: 'realtime',
    bucket: 'intake-bucket',
    key: 'incoming/s-00000000000000000001/msa.txt',
    owner: `${COGNITO_OWNER_PREFIX}${ANNA}`,
    chunkCount: 2,
    chunksTerminal: 0,
    chunksDone: 0,
    clauseCount: 10,
    callsPlanned: 110,
    ceilingMicros: 1_000_000,
    costSpent: 0,
    costReserved: 0,
    createdAt: 'c',
    updatedAt: 'u',
  };
  configureApi({
    db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
    s3: new S3Client({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }),
    tableName: 'state',
    intakeBucket: 'intake-bucket',
    intakePrefix: 'incoming/',
    resultsBucket: 'results-bucket',
    defaultLane: 'realtime',
    defaultCeilingMicros: 1_000_000,
    uploadUrlSeconds: 600,
    reportUrlSeconds: 300,
    maxDocumentBytes: 10 * 1024 * 1024,
    now: () => NOW,
    newSubmissionId: () => 's-00000000000000000001',
    administrators: [ADMIN_ROLE],
    sqs: new SQSClient({ region: 'us-east-1' }),
    laneQueueUrls: { realtime: 'https://sqs/rt', batch: 'https://sqs/b' },
    finalizeQueueUrl: 'https://sqs/fin',
    resultsPrefix: 'reports/',
  });
  beforeEach(() => ddb.reset());

  async function call(method: string, path: string, context: IamAuthorizerContext, body?: string) {
    return askApi(handler, { method, path, body, authorizer: context, timeEpoch: NOW });
  }

  it("signs the person's identity into the upload as its submitter", async () => {
    const r = await call('POST', '/jobs', cognitoContext(BEN), JSON.stringify({ filename: 'msa.txt' }));
    expect(r.status).toBe(201);
    const upload = r.body.upload as { fields: Record<string, string> };
    expect(upload.fields['x-amz-meta-submitted-by']).toBe(`${COGNITO_OWNER_PREFIX}${BEN}`);
  });

  it("shows a person's job to them and to an administrator, and a 404 to another person", async () => {
    ddb.on(GetCommand).resolves({ Item: job });
    expect((await call('GET', `/jobs/${job.jobId}`, cognitoContext(ANNA))).status).toBe(200);
    expect((await call('GET', `/jobs/${job.jobId}`, cognitoContext(CLARA, ADMIN_SESSION))).status).toBe(200);
    const other = await call('GET', `/jobs/${job.jobId}`, cognitoContext(BEN));
    expect(other.status).toBe(404);
    expect(other.body.error).toBe('JobUnknownError');
  });

  it('records the person, not the shared role, as who cancelled', async () => {
    ddb.on(GetCommand).resolves({ Item: job });
    ddb.on(UpdateCommand).resolves({ Attributes: { ...job, status: 'cancelled' } });
    await call('POST', `/jobs/${job.jobId}/cancel`, cognitoContext(ANNA));
    const update = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(JSON.stringify(update?.ExpressionAttributeValues)).toContain(
      `cancelled by ${COGNITO_OWNER_PREFIX}${ANNA}`,
    );
  });
});
