import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ListObjectVersionsCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  BadRequestError,
  isApiError,
  isBadRequestError,
  isJobStateConflictError,
  isJobUnknownError,
  JobStateConflictError,
  JobUnknownError,
} from '../../lambdas/api/errors.js';
import { configureApi, handler } from '../../lambdas/api/handler.js';
import { API_ROUTES, matchRoute, routeKey } from '../../lambdas/api/routes.js';
import { jobIdFor } from '../../lambdas/core/intake/intake.js';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
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
  defaultCostLimit: 5_000_000,
  uploadUrlSeconds: 600,
  reportUrlSeconds: 300,
  now: () => NOW,
  newSubmissionId: () => 's-00000000000000000001',
});

beforeEach(() => {
  ddb.reset();
  s3mock.reset();
});

function event(method: string, path: string, body?: string): APIGatewayProxyEventV2 {
  const matched = matchRoute(method, path);
  return {
    version: '2.0',
    routeKey: matched ? routeKey(matched.route) : '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {},
    ...(matched ? { pathParameters: matched.pathParameters } : {}),
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
    requestContext: {
      accountId: '1',
      apiId: 'a',
      domainName: 'd',
      domainPrefix: 'd',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: '',
      stage: '$default',
      time: '',
      timeEpoch: NOW,
    },
  };
}

async function call(method: string, path: string, body?: string) {
  const r = (await handler(event(method, path, body))) as APIGatewayProxyStructuredResultV2;
  return { status: r.statusCode, body: JSON.parse(r.body ?? '{}') as Record<string, unknown> };
}

const running = {
  jobId: 'j-0123456789abcdef0123',
  status: 'running',
  lane: 'batch',
  bucket: 'intake-bucket',
  key: 'incoming/s-00000000000000000001/msa.pdf',
  versionId: 'v1',
  chunkCount: 10,
  chunksTerminal: 4,
  chunksDone: 4,
  clauseCount: 80,
  callsPlanned: 880,
  costLimit: 5_000_000,
  costSpent: 1_250_000,
  costReserved: 10_000,
  createdAt: 'c',
  updatedAt: 'u',
};

describe('routes', () => {
  it('match method and path like API Gateway, with decoded path parameters', () => {
    expect(matchRoute('GET', '/jobs/j-1/report')).toEqual({
      route: API_ROUTES.find((r) => r.name === 'report'),
      pathParameters: { id: 'j-1' },
    });
    expect(matchRoute('post', '/jobs/')?.route.name).toBe('submit');
    expect(matchRoute('GET', '/jobs/a%2Fb')?.pathParameters).toEqual({ id: 'a/b' });
    expect(matchRoute('DELETE', '/jobs/j-1')).toBeUndefined();
    expect(matchRoute('GET', '/jobs//report')).toBeUndefined();
  });
});

describe('POST /jobs', () => {
  it('presigns a PUT under the submission prefix with the options as signed metadata headers', async () => {
    const r = await call('POST', '/jobs', JSON.stringify({ filename: 'msa.pdf', costCeilingUsd: 1.5 }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      submissionId: 's-00000000000000000001',
      bucket: 'intake-bucket',
      key: 'incoming/s-00000000000000000001/msa.pdf',
      options: { lane: 'realtime', costCeilingUsd: 1.5 },
      upload: { method: 'PUT', expiresAt: new Date(NOW + 600_000).toISOString() },
    });
    const upload = r.body.upload as { url: string; headers: Record<string, string> };
    expect(upload.headers['x-amz-meta-lane']).toBe('realtime');
    expect(upload.headers['x-amz-meta-analysts']?.split(',')).toHaveLength(11);
    const url = new URL(upload.url);
    expect(url.pathname).toBe('/incoming/s-00000000000000000001/msa.pdf');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(
      expect.arrayContaining(['x-amz-meta-lane', 'x-amz-meta-cost-ceiling-usd', 'x-amz-meta-analysts']),
    );
    // No checksum of an empty body is signed into the URL.
    expect([...url.searchParams.keys()].filter((k) => k.toLowerCase().includes('checksum'))).toEqual([]);
  });

  it('answers 400 with the reason for a missing body, bad JSON, unknown fields and bad values', async () => {
    expect((await call('POST', '/jobs')).body.message).toMatch(/must be a JSON object; got nothing/);
    expect((await call('POST', '/jobs', '{')).status).toBe(400);
    const unknown = await call('POST', '/jobs', JSON.stringify({ filename: 'a.txt', colour: 'red' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/colour/);
    const ceiling = await call('POST', '/jobs', JSON.stringify({ filename: 'a.txt', costCeilingUsd: 1e-9 }));
    expect(ceiling.status).toBe(400);
    expect(ceiling.body.message).toMatch(/cost-ceiling-usd/);
  });
});

describe('GET /jobs/{id}', () => {
  it('reports status, progress and cost of a job', async () => {
    ddb.on(GetCommand).resolves({ Item: running });
    const r = await call('GET', `/jobs/${running.jobId}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      jobId: running.jobId,
      status: 'running',
      finished: false,
      reportReady: false,
      progress: { chunksTerminal: 4, chunksTotal: 10, callsPlanned: 880 },
      cost: { spentMicros: 1_250_000, ceilingMicros: 5_000_000, spentUsd: 1.25, ceilingUsd: 5 },
    });
  });

  it('resolves a submission id through the latest upload version, and says queued before intake', async () => {
    s3mock.on(ListObjectVersionsCommand).resolves({
      Versions: [
        { Key: 'incoming/s-00000000000000000001/msa.pdf', VersionId: 'v2', IsLatest: true, ETag: '"e"' },
      ],
    });
    ddb.on(GetCommand).resolves({});
    const r = await call('GET', '/jobs/s-00000000000000000001');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'queued',
      submissionId: 's-00000000000000000001',
      jobId: jobIdFor({
        bucket: 'intake-bucket',
        key: 'incoming/s-00000000000000000001/msa.pdf',
        versionId: 'v2',
      }),
    });
    expect(s3mock.commandCalls(ListObjectVersionsCommand)[0]?.args[0].input).toMatchObject({
      Bucket: 'intake-bucket',
      Prefix: 'incoming/s-00000000000000000001/',
    });
  });

  it('answers 404 for an unknown job, 400 for a malformed id, 500 without details for a failure', async () => {
    ddb.on(GetCommand).resolves({});
    expect((await call('GET', '/jobs/j-99999999999999999999')).status).toBe(404);
    expect((await call('GET', '/jobs/../etc')).status).toBe(404);
    const malformed = await call('GET', '/jobs/x');
    expect(malformed.status).toBe(400);
    ddb.on(GetCommand).rejects(new Error('socket hang up'));
    const failed = await call('GET', `/jobs/${running.jobId}`);
    expect(failed).toEqual({
      status: 500,
      body: { error: 'InternalError', message: 'the request failed; see the API function logs' },
    });
  });
});

describe('POST /jobs/{id}/cancel and GET /jobs/{id}/report', () => {
  it('flips a running job to cancelled with the caller in the reason, and 409s a job that ended', async () => {
    ddb
      .on(GetCommand)
      .resolvesOnce({ Item: running })
      .resolves({ Item: { ...running, status: 'cancelled' } });
    ddb.on(UpdateCommand).resolves({ Attributes: { ...running, status: 'cancelled' } });
    const r = await call('POST', `/jobs/${running.jobId}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('cancelled');
    expect(ddb.commandCalls(UpdateCommand)[0]?.args[0].input.ConditionExpression).toBe(
      '#status IN (:intake, :running)',
    );
    ddb.reset();
    ddb.on(GetCommand).resolves({ Item: { ...running, status: 'completed' } });
    ddb.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }));
    const late = await call('POST', `/jobs/${running.jobId}/cancel`);
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/already ended with status 'completed'/);
  });

  it('409s a report before finalize and presigns both report URLs after', async () => {
    ddb.on(GetCommand).resolves({ Item: running });
    expect((await call('GET', `/jobs/${running.jobId}/report`)).status).toBe(409);
    ddb.on(GetCommand).resolves({
      Item: {
        ...running,
        status: 'completed',
        finalizedAt: 'f',
        reportKey: `reports/${running.jobId}/report.json`,
        htmlReportKey: `reports/${running.jobId}/report.html`,
      },
    });
    const r = await call('GET', `/jobs/${running.jobId}/report`);
    expect(r.status).toBe(200);
    const json = new URL((r.body.json as { url: string }).url);
    expect(json.pathname).toBe(`/reports/${running.jobId}/report.json`);
    expect(json.hostname).toBe('results-bucket.s3.us-east-1.amazonaws.com');
    expect(json.searchParams.get('X-Amz-Expires')).toBe('300');
  });
});

describe('error guards', () => {
  it('recognise each API error and carry the status it maps to', () => {
    const bad = new BadRequestError('bad', ['a: b']);
    const unknown = new JobUnknownError('j-1');
    const conflict = new JobStateConflictError('ended', 'j-1', 'completed');
    expect([bad, unknown, conflict].map((e) => [e.name, e.statusCode, isApiError(e)])).toEqual([
      ['BadRequestError', 400, true],
      ['JobUnknownError', 404, true],
      ['JobStateConflictError', 409, true],
    ]);
    expect([isBadRequestError(bad), isBadRequestError(unknown)]).toEqual([true, false]);
    expect([isJobUnknownError(unknown), isJobUnknownError(new Error('x'))]).toEqual([true, false]);
    expect([isJobStateConflictError(conflict), isJobStateConflictError(bad)]).toEqual([true, false]);
  });
});
