/**
 * The status API when the user pool does not answer a person's groups: Cognito throttling
 * ListUsers or AdminListGroupsForUser during `GET /jobs?awaiting=approval`, or a job shown to
 * its approvers, is answered 503 with Retry-After, never as if the person had no groups (which
 * would lock every approver out); once the pool answers again, so does the API. And the name a
 * caller's budgets are kept under (`rateKeyOf`).
 */
import {
  AdminListGroupsForUserCommand,
  CognitoIdentityProviderClient,
  ListUsersCommand,
  TooManyRequestsException,
} from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { rateKeyOf } from '../../../lambdas/api/access.js';
import { configureApi, handler } from '../../../lambdas/api/handler.js';
import { userPoolGroups } from '../../../lambdas/api/people.js';
import { askApi } from '../../helpers/api-event.js';

const POOL = 'us-east-1_AbC123';
const SUB = '8f1c2a4e-0b7d-4c1e-9a55-3d2f6e7b8c90';
const PROVIDER = `cognito-idp.us-east-1.amazonaws.com/${POOL}`;
const SIGNED_IN = 'arn:aws:sts::123456789012:assumed-role/ReviewerRole/CognitoIdentityCredentials';
const JOB = 'j-0123456789abcdef0123';

const ddb = mockClient(DynamoDBDocumentClient);
const idpMock = mockClient(CognitoIdentityProviderClient);
const idp = new CognitoIdentityProviderClient({ region: 'us-east-1' });
let now = 1_800_000_000_000;

configureApi({
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  s3: new S3Client({ region: 'us-east-1' }),
  sqs: new SQSClient({ region: 'us-east-1' }),
  tableName: 'state',
  intakeBucket: 'intake',
  intakePrefix: 'incoming/',
  resultsBucket: 'results',
  resultsPrefix: 'reports/',
  laneQueueUrls: { realtime: 'https://q/rt', batch: 'https://q/b' },
  finalizeQueueUrl: 'https://q/fin',
  defaultLane: 'realtime',
  defaultCeilingMicros: 1_000_000,
  uploadUrlSeconds: 900,
  reportUrlSeconds: 900,
  maxDocumentBytes: 1024,
  groups: userPoolGroups(idp, POOL, { now: () => now }),
});

beforeEach(() => {
  ddb.reset();
  idpMock.reset();
  // Past the few seconds a person's groups are kept.
  now += 60_000;
});

async function ask(path: string, query = '') {
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whatever the route answered
  return askApi<any>(handler, {
    method: 'GET',
    path,
    query,
    authorizer: {
      iam: {
        userArn: SIGNED_IN,
        userId: 'AROAEXAMPLE:CognitoIdentityCredentials',
        cognitoIdentity: {
          identityId: 'us-east-1:11111111-1111-1111-1111-111111111111',
          identityPoolId: 'us-east-1:pool',
          amr: ['authenticated', PROVIDER, `${PROVIDER}:CognitoSignIn:${SUB}`],
        },
      },
    },
  });
}

const throttled = () => new TooManyRequestsException({ message: 'Rate exceeded', $metadata: {} });
const awaiting = {
  jobId: JOB,
  status: 'awaiting_review',
  owner: 'arn:aws:iam::123456789012:user/someone-else',
  approverGroups: ['legal-approvers'],
  gsi1sk: 'x',
};

describe('a group lookup the user pool does not answer', () => {
  it('answers the approvals list 503 with Retry-After, and the list once the pool answers again', async () => {
    ddb.on(QueryCommand).resolves({ Items: [awaiting] });
    idpMock.on(ListUsersCommand).rejects(throttled());
    const refused = await ask('/jobs', 'awaiting=approval');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.body).toMatchObject({ error: 'GroupLookupError' });
    // Not "no groups": nothing was listed at all.
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);

    idpMock.reset();
    idpMock.on(ListUsersCommand).resolves({ Users: [{ Username: 'lee', Attributes: [] }] });
    idpMock.on(AdminListGroupsForUserCommand).resolves({ Groups: [{ GroupName: 'legal-approvers' }] });
    const served = await ask('/jobs', 'awaiting=approval');
    expect(served.status).toBe(200);
    expect(served.body.jobs.map((j: { jobId: string }) => j.jobId)).toEqual([JOB]);
  });

  it("answers a job shown to its approvers 503, not the 404 of a job the caller may not see, when the groups' page is throttled", async () => {
    ddb.on(GetCommand).resolves({ Item: awaiting });
    idpMock.on(ListUsersCommand).resolves({ Users: [{ Username: 'lee', Attributes: [] }] });
    idpMock.on(AdminListGroupsForUserCommand).rejects(throttled());
    const refused = await ask(`/jobs/${JOB}`);
    expect([refused.status, refused.headers['retry-after']]).toEqual([503, '2']);
  });
});

describe("an approver's reads", () => {
  const member = () => {
    idpMock.on(ListUsersCommand).resolves({ Users: [{ Username: 'lee', Attributes: [] }] });
    idpMock.on(AdminListGroupsForUserCommand).resolves({ Groups: [{ GroupName: 'legal-approvers' }] });
  };
  const job = {
    ...awaiting,
    lane: 'realtime',
    bucket: 'intake',
    key: 'incoming/s-1/msa.docx',
    chunkCount: 1,
    chunksTerminal: 1,
    chunksDone: 1,
    clauseCount: 3,
    callsPlanned: 3,
    ceilingMicros: 1_000_000,
    costSpent: 100,
    createdAt: 'c',
    updatedAt: 'u',
  };

  it('see the job while its review waits for their group, and not its report once the review has closed', async () => {
    member();
    ddb.on(GetCommand).resolves({ Item: job });
    expect((await ask(`/jobs/${JOB}`)).status).toBe(200);
    now += 60_000;
    const closed = {
      ...job,
      status: 'completed',
      reviewCompletedAt: '2026-01-15T12:00:00Z',
      finalizedAt: '2026-01-15T12:00:01Z',
      reportKey: `reports/${JOB}/report.json`,
      htmlReportKey: `reports/${JOB}/report.html`,
      docxReportKey: `reports/${JOB}/report.docx`,
    };
    ddb.on(GetCommand).resolves({ Item: closed });
    for (const path of [`/jobs/${JOB}/report`, `/jobs/${JOB}`]) {
      const refused = await ask(path);
      expect([path, refused.status, refused.body.error]).toEqual([path, 404, 'JobUnknownError']);
    }
  });
});

describe('rateKeyOf', () => {
  it("names a person by their sub, a role's sessions by the role, and a session-named role's by the session", () => {
    const cognito = {
      arn: SIGNED_IN,
      cognitoIdentityId: 'us-east-1:1',
      userPoolSignIn: { userPoolId: POOL, sub: SUB },
    };
    expect(rateKeyOf(cognito, [])).toBe(`cognito-sub:${POOL}:${SUB}`);
    expect(rateKeyOf({ arn: SIGNED_IN, cognitoIdentityId: 'us-east-1:1' }, [])).toBe(
      'cognito-identity:us-east-1:1',
    );
    expect(rateKeyOf({ arn: 'arn:aws:iam::123456789012:user/alice' }, [])).toBe(
      'arn:aws:iam::123456789012:user/alice',
    );
    const ops = (name: string) => ({ arn: `arn:aws:sts::123456789012:assumed-role/Ops/${name}` });
    expect(rateKeyOf(ops('a'), [])).toBe('arn:aws:iam::123456789012:role/Ops');
    expect(rateKeyOf(ops('b'), [])).toBe(rateKeyOf(ops('a'), []));
    const trusted = ['arn:aws:iam::123456789012:role/Ops'];
    expect(rateKeyOf(ops('dee'), trusted)).toBe('arn:aws:sts::123456789012:assumed-role/Ops/dee');
  });
});
