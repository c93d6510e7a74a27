/**
 * The local status API with temporary keys (those a Cognito identity pool hands out): let in
 * only with the key's session token and before it expires, and the identity behind the key
 * handed to the handler. The requests go over HTTP, signed by the CLI's client; the only route
 * that reaches the handler is POST /jobs, which presigns without calling AWS.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, isApiRequestError } from '../../../bin/client/api-client.js';
import type { TemporaryCaller } from '../../../localstack/runtime/cognito-callers.js';
import { type LocalApi, startLocalApi } from '../../../localstack/runtime/local-api.js';

const REGION = 'us-east-1';
const NOWHERE = 'http://127.0.0.1:1';
const KEY = {
  accessKeyId: 'ASIATEMPORARYKEY0001',
  secretAccessKey: 'temporary-secret',
  sessionToken: 'session-1',
};
const EXPIRED = {
  accessKeyId: 'ASIATEMPORARYKEY0002',
  secretAccessKey: 'expired-secret',
  sessionToken: 'session-2',
};

function caller(
  secret: string,
  sessionToken: string,
  expiresAt: number,
  identityId: string,
): TemporaryCaller {
  return {
    secretAccessKey: secret,
    sessionToken,
    expiresAt,
    arn: 'arn:aws:sts::123456789012:assumed-role/Reviewer/CognitoIdentityCredentials',
    userId: 'AROAREVIEWER:CognitoIdentityCredentials',
    identityId,
    identityPoolId: 'us-east-1:00000000-0000-0000-0000-000000000000',
    amr: ['authenticated'],
  };
}

let api: LocalApi;
const looked: string[] = [];

beforeAll(async () => {
  const aws = { region: REGION, endpoint: NOWHERE, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } };
  api = await startLocalApi({
    deps: {
      db: DynamoDBDocumentClient.from(new DynamoDBClient(aws)),
      s3: new S3Client({ ...aws, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' }),
      tableName: 'state',
      intakeBucket: 'intake',
      intakePrefix: 'incoming/',
      resultsBucket: 'results',
      defaultLane: 'realtime',
      defaultCeilingMicros: 1_000_000,
      uploadUrlSeconds: 600,
      reportUrlSeconds: 600,
      maxDocumentBytes: 10 * 1024 * 1024,
      sqs: new SQSClient(aws),
      laneQueueUrls: { realtime: `${NOWHERE}/rt`, batch: `${NOWHERE}/b` },
      finalizeQueueUrl: `${NOWHERE}/fin`,
      resultsPrefix: 'reports/',
    },
    region: REGION,
    credentials: {},
    temporaryCallers: async (key) => {
      looked.push(key);
      if (key === KEY.accessKeyId)
        return caller(KEY.secretAccessKey, KEY.sessionToken, Date.now() + 60_000, 'us-east-1:anna');
      if (key === EXPIRED.accessKeyId)
        return caller(EXPIRED.secretAccessKey, EXPIRED.sessionToken, Date.now() - 1, 'us-east-1:ben');
      return undefined;
    },
  });
});

afterAll(async () => {
  await api?.close();
});

async function submitAs(credentials: {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}): Promise<{ status: number; message?: string; submittedBy?: string }> {
  const client = new ApiClient({ url: api.url, region: REGION, credentials });
  try {
    const s = await client.submit({ filename: 'msa.txt' });
    return {
      status: 201,
      ...(s.upload.fields['x-amz-meta-submitted-by']
        ? { submittedBy: s.upload.fields['x-amz-meta-submitted-by'] }
        : {}),
    };
  } catch (error) {
    if (isApiRequestError(error)) return { status: error.status, message: error.message };
    throw error;
  }
}

describe('the local API with temporary keys', () => {
  it('hands the handler the identity behind a valid key', async () => {
    expect(await submitAs(KEY)).toEqual({ status: 201, submittedBy: 'cognito-identity:us-east-1:anna' });
    expect(looked).toContain(KEY.accessKeyId);
  });

  it('refuses the key without its session token, with a wrong one, or after it expired', async () => {
    const { sessionToken: _, ...bare } = KEY;
    expect(await submitAs(bare)).toMatchObject({
      status: 403,
      message: expect.stringMatching(/security token .* invalid/),
    });
    expect(await submitAs({ ...KEY, sessionToken: 'session-other' })).toMatchObject({ status: 403 });
    expect(await submitAs(EXPIRED)).toMatchObject({ status: 403, message: expect.stringMatching(/expired/) });
  });

  it('refuses a key signed with the wrong secret, and a key nobody handed out', async () => {
    expect(await submitAs({ ...KEY, secretAccessKey: 'guessed' })).toMatchObject({ status: 403 });
    expect(
      await submitAs({ accessKeyId: 'ASIANOBODY0000000001', secretAccessKey: 'x', sessionToken: 'y' }),
    ).toMatchObject({
      status: 403,
      message: expect.stringMatching(/security token included in the request is invalid/),
    });
  });
});
