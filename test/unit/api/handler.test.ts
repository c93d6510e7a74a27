/**
 * The status API's routes through its handler: POST /jobs (the presigned upload), GET /jobs/{id}
 * (by job or submission id), cancel and the report's URLs, the caller's job list and the live
 * findings, the request size limits and analyst ids, and the error guards. Who may act on a job
 * (ownership, administrators, role sessions, the submitter): handler-access.test.ts.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ListObjectVersionsCommand } from '@aws-sdk/client-s3';
import { BatchGetCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type ApiError,
  BadRequestError,
  HeadersTooLargeError,
  isApiError,
  isBadRequestError,
  isHeadersTooLargeError,
  isJobStateConflictError,
  isJobUnknownError,
  isPayloadTooLargeError,
  JobStateConflictError,
  JobUnknownError,
  PayloadTooLargeError,
} from '../../../lambdas/api/errors.js';
import { handler } from '../../../lambdas/api/handler.js';
import { checkRequestSize, MAX_BODY_BYTES, MAX_HEADER_BYTES } from '../../../lambdas/api/limits.js';
import { API_ROUTES, matchRoute } from '../../../lambdas/api/routes.js';
import { jobIdFor } from '../../../lambdas/core/intake/intake.js';
import {
  ADMIN_SESSION,
  ALICE,
  call,
  event,
  MALLORY,
  MAX_DOCUMENT_BYTES,
  mockedApi,
  NOW,
  policyOf,
  running,
} from './handler-calls.js';

function errorOf(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
/** Epoch milliseconds of an `X-Amz-Date` (yyyymmddThhmmssZ). */
function amzDate(value: string): number {
  return Date.parse(value.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
}

const { ddb, s3mock } = mockedApi();

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
  it('presigns a POST under the submission prefix whose policy fixes the options and bounds the length', async () => {
    const r = await call('POST', '/jobs', JSON.stringify({ filename: 'msa.pdf', ceilingUsd: 1.5 }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      submissionId: 's-00000000000000000001',
      bucket: 'intake-bucket',
      key: 'incoming/s-00000000000000000001/msa.pdf',
      options: { lane: 'realtime', ceilingUsd: 1.5 },
      upload: {
        method: 'POST',
        maxBytes: MAX_DOCUMENT_BYTES,
        expiresAt: new Date(NOW + 600_000).toISOString(),
      },
    });
    const upload = r.body.upload as { url: string; fields: Record<string, string> };
    expect(upload.url).toBe('https://intake-bucket.s3.us-east-1.amazonaws.com/');
    expect(upload.fields).toMatchObject({
      key: 'incoming/s-00000000000000000001/msa.pdf',
      'x-amz-meta-lane': 'realtime',
      'x-amz-meta-ceiling-usd': '1.5',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    });
    expect(upload.fields['x-amz-meta-analysts']?.split(',')).toHaveLength(11);
    const policy = policyOf(upload.fields);
    // Every field the form carries is an exact condition, so none can be changed or added.
    for (const [name, value] of Object.entries(upload.fields)) {
      if (name === 'Policy' || name === 'X-Amz-Signature') continue;
      expect(policy.conditions).toContainEqual({ [name]: value });
    }
    expect(policy.conditions).toContainEqual(['content-length-range', 0, MAX_DOCUMENT_BYTES]);
    expect(Date.parse(policy.expiration) - amzDate(upload.fields['X-Amz-Date'] ?? '')).toBe(600_000);
  });

  it('answers 400 with the reason for a missing body, bad JSON, unknown fields and bad values', async () => {
    expect((await call('POST', '/jobs')).body.message).toMatch(/must be a JSON object; got nothing/);
    expect((await call('POST', '/jobs', '{')).status).toBe(400);
    const unknown = await call('POST', '/jobs', JSON.stringify({ filename: 'a.txt', colour: 'red' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/colour/);
    const ceiling = await call('POST', '/jobs', JSON.stringify({ filename: 'a.txt', ceilingUsd: 1e-9 }));
    expect(ceiling.status).toBe(400);
    expect(ceiling.body.message).toMatch(/ceiling-usd/);
  });

  it("refuses a file name S3 would read as a wildcard, and names the upload's key exactly", async () => {
    const wildcard = ['$', '{filename}'].join('');
    for (const filename of [wildcard, `msa${wildcard}`, 'a{b}.txt', 'cost$.pdf']) {
      const r = await call('POST', '/jobs', JSON.stringify({ filename }));
      expect([filename, r.status]).toEqual([filename, 400]);
      expect(r.body.message).toMatch(/filename: must not hold '\$', '\{' or '\}'/);
    }
    const r = await call('POST', '/jobs', JSON.stringify({ filename: 'msa (final).pdf' }));
    const fields = (r.body.upload as { fields: Record<string, string> }).fields;
    const conditions = policyOf(fields).conditions;
    expect(conditions).toContainEqual({ key: 'incoming/s-00000000000000000001/msa (final).pdf' });
    expect(conditions.filter((c) => Array.isArray(c) && c[0] === 'starts-with')).toEqual([]);
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
      '(attribute_exists(pk) AND #status IN (:from0, :from1, :from2, :from3, :from4)) AND attribute_not_exists(holdsSlot)',
    );
    ddb.reset();
    ddb.on(GetCommand).resolves({ Item: { ...running, status: 'completed' } });
    ddb.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'failed',
        $metadata: {},
        Item: marshall({ ...running, status: 'completed' }),
      }),
    );
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

describe('GET /jobs and findings as they happen', () => {
  it('lists the caller’s jobs from the byOwner index under both names a job may record, newest first', async () => {
    ddb.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
      Items:
        input.ExpressionAttributeValues[':pk'] === `OWNER#${ALICE}`
          ? [{ ...running, gsi2sk: `2026-01-15T11:00:00.000Z#${running.jobId}` }]
          : [
              {
                ...running,
                jobId: 'j-1111111111aaaaaaaaaa',
                gsi2sk: '2026-01-15T11:30:00.000Z#j-1111111111aaaaaaaaaa',
              },
            ],
    }));
    const r = await call('GET', '/jobs', undefined, ALICE, { limit: '5' });
    expect(r.status).toBe(200);
    expect((r.body.jobs as { jobId: string }[]).map((j) => j.jobId)).toEqual([
      'j-1111111111aaaaaaaaaa',
      running.jobId,
    ]);
    const queried = ddb.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queried.map((q) => q.IndexName)).toEqual(['byOwner', 'byOwner']);
    expect(queried.map((q) => q.ExpressionAttributeValues?.[':pk']).sort()).toEqual(
      ['OWNER#AWS:alice', `OWNER#${ALICE}`].sort(),
    );
    expect(queried.every((q) => q.ScanIndexForward === false && q.Limit === 6)).toBe(true);
  });

  it('lets an administrator name another owner, and nobody else; refuses a bad limit or cursor', async () => {
    ddb.on(QueryCommand).resolves({ Items: [] });
    expect((await call('GET', '/jobs', undefined, MALLORY, { owner: ALICE })).status).toBe(400);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
    const admin = await call('GET', '/jobs', undefined, ADMIN_SESSION, { owner: ALICE });
    expect(admin.status).toBe(200);
    expect(
      ddb.commandCalls(QueryCommand).map((c) => c.args[0].input.ExpressionAttributeValues?.[':pk']),
    ).toEqual([`OWNER#${ALICE}`]);
    expect((await call('GET', '/jobs', undefined, ALICE, { limit: '0' })).body.message).toMatch(
      /limit must be/,
    );
    expect((await call('GET', '/jobs', undefined, ALICE, { after: 'page-2' })).body.message).toMatch(
      /jobs cursor/,
    );
  });

  it('answers ?after= with the live findings (nothing consolidated yet: no batch read), 404 to others, 400 for a bad cursor', async () => {
    ddb.on(GetCommand).resolves({ Item: running });
    ddb.on(QueryCommand).resolves({ Items: [{ chunk: 0, stage: 'consolidate', status: 'pending' }] });
    const r = await call('GET', `/jobs/${running.jobId}/findings`, undefined, ALICE, { after: '' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      clauses: [],
      ended: false,
      more: false,
      chunks: { total: 10, consolidated: 0, delivered: 0 },
    });
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
    // `?after=` in the raw query alone is the same request.
    const raw = event('GET', `/jobs/${running.jobId}/findings`);
    const viaRaw = (await handler({ ...raw, rawQueryString: 'after=' })) as APIGatewayProxyStructuredResultV2;
    expect(JSON.parse(viaRaw.body ?? '{}')).toEqual(r.body);
    expect(
      (await call('GET', `/jobs/${running.jobId}/findings`, undefined, MALLORY, { after: '' })).status,
    ).toBe(404);
    const bad = await call('GET', `/jobs/${running.jobId}/findings`, undefined, ALICE, { after: 'chunk-7' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/findings cursor 'chunk-7' does not start with 'v1\.'/);
  });

  it('presigns report.docx beside the other two once finalize wrote it', async () => {
    ddb.on(GetCommand).resolves({
      Item: {
        ...running,
        status: 'completed',
        finalizedAt: 'f',
        reportKey: `reports/${running.jobId}/report.json`,
        htmlReportKey: `reports/${running.jobId}/report.html`,
        docxReportKey: `reports/${running.jobId}/report.docx`,
      },
    });
    const r = await call('GET', `/jobs/${running.jobId}/report`);
    expect(new URL((r.body.docx as { url: string }).url).pathname).toBe(
      `/reports/${running.jobId}/report.docx`,
    );
  });
});

describe('limits and analyst ids', () => {
  it('refuses a body over the limit with 413 before parsing it', async () => {
    const big = JSON.stringify({ filename: 'a.txt', pad: 'x'.repeat(MAX_BODY_BYTES) });
    const r = await call('POST', '/jobs', big);
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('PayloadTooLargeError');
  });

  it('checks analyst ids one by one: an id holding a comma is refused, not split in two', async () => {
    const r = await call(
      'POST',
      '/jobs',
      JSON.stringify({ filename: 'a.txt', analysts: ['ip-counsel', 'liability-counsel,ip-counsel'] }),
    );
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual([
      expect.stringMatching(/^analysts\.1: unknown analyst id "liability-counsel,ip-counsel"; known: /),
    ]);
    const ok = await call('POST', '/jobs', JSON.stringify({ filename: 'a.txt', analysts: ['ip-counsel'] }));
    expect((ok.body.upload as { fields: Record<string, string> }).fields['x-amz-meta-analysts']).toBe(
      'ip-counsel',
    );
  });

  it('decides 431 and 413 from the request line, header values and content-length alone', () => {
    const line = 'POST /jobs HTTP/1.1';
    expect(() =>
      checkRequestSize({ requestLine: line, headerValues: ['a'], contentLength: '10' }),
    ).not.toThrow();
    const tooLong = `GET /jobs/j-1?${'a=1&'.repeat(10_000)} HTTP/1.1`;
    const h = errorOf(() => checkRequestSize({ requestLine: tooLong, headerValues: [] }));
    expect([isHeadersTooLargeError(h), (h as ApiError).statusCode]).toEqual([true, 431]);
    const fat = errorOf(() =>
      checkRequestSize({ requestLine: line, headerValues: ['x'.repeat(MAX_HEADER_BYTES)] }),
    );
    expect(isHeadersTooLargeError(fat)).toBe(true);
    const body = errorOf(() =>
      checkRequestSize({ requestLine: line, headerValues: [], contentLength: String(10 * 1024 * 1024) }),
    );
    expect([isPayloadTooLargeError(body), (body as ApiError).statusCode]).toEqual([true, 413]);
    expect(isPayloadTooLargeError(h)).toBe(false);
  });
});

describe('error guards', () => {
  it('recognise each API error and carry the status it maps to', () => {
    const bad = new BadRequestError('bad', ['a: b']);
    const unknown = new JobUnknownError('j-1');
    const conflict = new JobStateConflictError('ended', 'j-1', 'completed');
    const big = new PayloadTooLargeError(2, 1);
    const headers = new HeadersTooLargeError(2, 1);
    expect([bad, unknown, conflict, big, headers].map((e) => [e.name, e.statusCode, isApiError(e)])).toEqual([
      ['BadRequestError', 400, true],
      ['JobUnknownError', 404, true],
      ['JobStateConflictError', 409, true],
      ['PayloadTooLargeError', 413, true],
      ['HeadersTooLargeError', 431, true],
    ]);
    expect([isPayloadTooLargeError(big), isPayloadTooLargeError(headers)]).toEqual([true, false]);
    expect([isHeadersTooLargeError(headers), isHeadersTooLargeError(big)]).toEqual([true, false]);
    expect([isBadRequestError(bad), isBadRequestError(unknown)]).toEqual([true, false]);
    expect([isJobUnknownError(unknown), isJobUnknownError(new Error('x'))]).toEqual([true, false]);
    expect([isJobStateConflictError(conflict), isJobStateConflictError(bad)]).toEqual([true, false]);
  });
});
