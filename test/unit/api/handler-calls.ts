/**
 * The status API's handler as the handler tests call it: its clients mocked and configured (one
 * submission id, a fixed clock, an administrator role), a request signed by a caller, and a
 * running job's record.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import { configureApi, handler } from '../../../lambdas/api/handler.js';
import { apiEvent, iamCaller } from '../../helpers/api-event.js';

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const ALICE = 'arn:aws:iam::123456789012:user/alice';
export const MALLORY = 'arn:aws:iam::123456789012:user/mallory';
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
export const ADMIN_ROLE = 'arn:aws:iam::123456789012:role/ops/Auditor';
export const ADMIN_SESSION = 'arn:aws:sts::123456789012:assumed-role/Auditor/carol';

/** The decoded policy of a presigned POST's fields. */
export function policyOf(fields: Record<string, string>): { expiration: string; conditions: unknown[] } {
  return JSON.parse(Buffer.from(fields.Policy ?? '', 'base64').toString('utf8'));
}

/**
 * Mocks DynamoDB and S3, configures the API on them, and resets both mocks before each test.
 * Called at the top of each test file: unit files share a worker's modules, and the mocks are
 * taken off after every file (test/helpers/unit-setup.ts).
 */
export function mockedApi() {
  const ddb = mockClient(DynamoDBDocumentClient);
  const s3mock = mockClient(S3Client);
  const s3 = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });

  configureApi({
    db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
    s3,
    tableName: 'state',
    intakeBucket: 'intake-bucket',
    intakePrefix: 'incoming/',
    resultsBucket: 'results-bucket',
    defaultLane: 'realtime',
    defaultCeilingMicros: 5_000_000,
    uploadUrlSeconds: 600,
    reportUrlSeconds: 300,
    maxDocumentBytes: MAX_DOCUMENT_BYTES,
    now: () => NOW,
    newSubmissionId: () => 's-00000000000000000001',
    administrators: [ADMIN_ROLE],
    sqs: new SQSClient({ region: 'us-east-1' }),
    laneQueueUrls: {
      realtime: 'https://sqs.us-east-1.amazonaws.com/1/rt',
      batch: 'https://sqs.us-east-1.amazonaws.com/1/b',
    },
    finalizeQueueUrl: 'https://sqs.us-east-1.amazonaws.com/1/fin',
    resultsPrefix: 'reports/',
  });

  beforeEach(() => {
    ddb.reset();
    s3mock.reset();
  });
  return { ddb, s3mock };
}

/** The event of a request signed by `caller`. */
export function event(method: string, path: string, body?: string, caller = ALICE): APIGatewayProxyEventV2 {
  return apiEvent({ method, path, body, authorizer: iamCaller(caller), timeEpoch: NOW });
}

/** The handler's answer to a request signed by `caller`: its status and parsed body. */
export async function call(
  method: string,
  path: string,
  body?: string,
  caller = ALICE,
  query?: Record<string, string>,
) {
  const e = event(method, path, body, caller);
  const r = (await handler(
    query ? { ...e, queryStringParameters: query } : e,
  )) as APIGatewayProxyStructuredResultV2;
  return { status: r.statusCode, body: JSON.parse(r.body ?? '{}') as Record<string, unknown> };
}

/** A running job of Alice's, as its record reads. */
export const running = {
  jobId: 'j-0123456789abcdef0123',
  status: 'running',
  lane: 'batch',
  bucket: 'intake-bucket',
  key: 'incoming/s-00000000000000000001/msa.pdf',
  versionId: 'v1',
  owner: ALICE,
  chunkCount: 10,
  chunksTerminal: 4,
  chunksDone: 4,
  clauseCount: 80,
  callsPlanned: 880,
  ceilingMicros: 5_000_000,
  costSpent: 1_250_000,
  costReserved: 10_000,
  createdAt: 'c',
  updatedAt: 'u',
};
