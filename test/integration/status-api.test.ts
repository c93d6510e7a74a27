/**
 * The status API over HTTP: the same Lambda handler behind the local API server, which checks
 * SigV4 as API Gateway's IAM authorization does. Requests are signed by the CLI's client; the
 * upload goes to the emulator through the presigned URL the API returned.
 */
import http from 'node:http';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, send, uploadDocument } from '../../bin/client/api-client.js';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { JOB_SK } from '../../lambdas/core/state/keys.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { localCallerArn, startPipelineApi } from '../../localstack/runtime/local-api.js';
import { apiRefusal } from '../helpers/cli-target.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

/** Two callers who are not administrators, and one who is. */
const OTHER = { accessKeyId: 'AKIDOTHERCALLER', secretAccessKey: 'other-secret' };
const AUDITOR = { accessKeyId: 'AKIDAUDITOR', secretAccessKey: 'auditor-secret' };

const h = await startHarness('statusapi');
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db: h.pipeline.clients.db,
  resources: h.stack.resources,
  credentials: Object.fromEntries(
    [EMULATOR_CREDENTIALS, OTHER, AUDITOR].map((c) => [c.accessKeyId, c.secretAccessKey]),
  ),
  administrators: [localCallerArn(AUDITOR.accessKeyId)],
});
afterAll(async () => {
  await localApi.close();
});
const api = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS });
const other = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: OTHER });
const auditor = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: AUDITOR });

const errorOf = apiRefusal;

async function until(id: string, done: (v: JobView) => boolean, timeoutMs = 90_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await api.status(id);
    if (done(view)) return view;
    if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('a submission through the API', () => {
  it('presigns an upload with its options, runs the job, reports progress and links the reports', async () => {
    // In panel order, as intake and the report list them.
    const analysts = ['term-lifecycle', 'liability-counsel', 'ip-counsel'];
    const submission = await api.submit({
      filename: SMALL,
      lane: 'realtime',
      ceilingUsd: 2.5,
      analysts,
    });
    expect(submission.submissionId).toMatch(/^s-[0-9a-f]{20}$/);
    expect(submission.key).toBe(`${h.stack.resources.intakePrefix}${submission.submissionId}/${SMALL}`);
    // The options and the owner are fields of the upload's signed policy.
    expect(submission.upload.fields).toMatchObject({
      key: submission.key,
      'x-amz-meta-lane': 'realtime',
      'x-amz-meta-ceiling-usd': '2.5',
      'x-amz-meta-analysts': analysts.join(','),
      'x-amz-meta-submitted-by': localCallerArn(EMULATOR_CREDENTIALS.accessKeyId),
    });
    expect(submission.upload.maxBytes).toBe(10 * 1024 * 1024);

    // Before the upload the submission names nothing yet.
    const early = await errorOf(api.status(submission.submissionId));
    expect(early.status).toBe(404);
    expect(early.message).toMatch(/no upload for submission/);

    const versionId = await uploadDocument(submission, fixture(SMALL));
    expect(versionId).toBeTruthy();

    const ended = await until(submission.submissionId, (v) => v.finished);
    expect(ended.jobId).toMatch(/^j-[0-9a-f]{20}$/);
    expect(ended.submissionId).toBe(submission.submissionId);
    expect(ended.status).toBe('completed');
    expect(ended.document).toEqual({
      bucket: submission.bucket,
      key: submission.key,
      versionId,
      bytes: fixture(SMALL).length,
    });
    expect(ended.progress.chunksTerminal).toBe(ended.progress.chunksTotal);
    expect(ended.progress.chunksTotal).toBeGreaterThan(0);
    // The options signed into the upload are the ones the job ran with.
    expect(ended.lane).toBe('realtime');
    expect(ended.cost.ceilingMicros).toBe(2_500_000);
    expect(ended.progress.callsPlanned).toBe(ended.progress.clauses * analysts.length);
    expect(ended.cost.spentMicros).toBeGreaterThan(0);
    expect(ended.reportReady).toBe(true);

    // The job id works as well as the submission id.
    expect((await api.status(ended.jobId)).status).toBe('completed');

    const links = await api.report(submission.submissionId);
    expect(links.jobId).toBe(ended.jobId);
    const json = await send(new URL(links.json.url), 'GET', {});
    expect(json.status).toBe(200);
    const report = json.body as Report;
    expect(report.job.jobId).toBe(ended.jobId);
    expect(report.job.status).toBe('completed');
    expect([...report.job.analysts].sort()).toEqual([...analysts].sort());
    const html = await send(new URL(links.html.url), 'GET', {});
    expect(html.status).toBe(200);
    expect(html.text).toMatch(/<html/i);
    // Each report downloads as an attachment named after the contract, with its own type: the
    // HTML never opens inline on the bucket's origin.
    const stem = SMALL.replace(/\.txt$/, '');
    const docx = await send(new URL(links.docx?.url ?? ''), 'GET', {});
    for (const [r, kind, type] of [
      [json, 'json', 'application/json'],
      [html, 'html', 'text/html; charset=utf-8'],
      [docx, 'docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ] as const) {
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe(type);
      expect(r.headers['content-disposition']).toBe(
        `attachment; filename="${stem}.review.${kind}"; filename*=UTF-8''${stem}.review.${kind}`,
      );
    }

    // A job that ended cannot be cancelled.
    const late = await errorOf(api.cancel(ended.jobId));
    expect(late.status).toBe(409);
    expect(late.message).toMatch(/already ended with status 'completed'/);
  });

  it('cancels a running job once, and has no report for it until it is finalized', async () => {
    // The harness runs no batch-lane worker, so a batch job stays running until cancelled.
    const submission = await api.submit({ filename: `cancel-${SMALL}`, lane: 'batch' });
    expect(submission.options.lane).toBe('batch');
    expect(submission.options.ceilingUsd).toBe(20);
    expect(submission.options.analysts).toHaveLength(11);
    await uploadDocument(submission, fixture(SMALL));
    const running = await until(submission.submissionId, (v) => v.status === 'running');

    const cancelled = await api.cancel(submission.submissionId);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.jobId).toBe(running.jobId);
    expect(cancelled.reason).toBe(
      `cancelled by arn:aws:iam::000000000000:user/${EMULATOR_CREDENTIALS.accessKeyId}`,
    );
    expect((await h.jobs.get(running.jobId)).status).toBe('cancelled');

    const again = await errorOf(api.cancel(running.jobId));
    expect(again.status).toBe(409);
    expect(again.message).toMatch(/already ended with status 'cancelled'/);

    const report = await errorOf(api.report(running.jobId));
    expect(report.status).toBe(409);
    expect(report.message).toMatch(/not finalized yet/);
  });
});

describe('jobs belong to their submitter', () => {
  it('shows a job to its submitter and an administrator, and to anyone else as missing', async () => {
    const submission = await api.submit({ filename: `owned-${SMALL}`, lane: 'batch' });
    await uploadDocument(submission, fixture(SMALL));
    const running = await until(submission.submissionId, (v) => v.status === 'running');
    expect((await h.jobs.get(running.jobId)).owner).toBe(localCallerArn(EMULATOR_CREDENTIALS.accessKeyId));

    // What a caller gets for a job id that does not exist, and for a submission with no upload.
    const missingJob = await errorOf(other.status('j-0123456789abcdef0123'));
    const missingSubmission = await errorOf(other.status('s-0123456789abcdef0123'));
    const sameAsMissing = (r: { status: number; body: unknown }, missing: typeof missingJob, id: string) => {
      expect(r.status).toBe(404);
      expect(JSON.stringify(r.body)).toBe(
        JSON.stringify(missing.body).replaceAll(/[js]-0123456789abcdef0123/g, id),
      );
    };
    for (const request of [other.status.bind(other), other.report.bind(other), other.cancel.bind(other)]) {
      sameAsMissing(await errorOf(request(running.jobId)), missingJob, running.jobId);
      sameAsMissing(
        await errorOf(request(submission.submissionId)),
        missingSubmission,
        submission.submissionId,
      );
    }
    // The other caller's cancel changed nothing.
    expect((await h.jobs.get(running.jobId)).status).toBe('running');

    expect((await auditor.status(running.jobId)).status).toBe('running');
    const cancelled = await auditor.cancel(submission.submissionId);
    expect(cancelled.reason).toBe(`cancelled by ${localCallerArn(AUDITOR.accessKeyId)}`);
    expect((await api.status(running.jobId)).status).toBe('cancelled');
  });
});

/** One raw HTTP/1.1 exchange: the response as soon as it arrives, while the body may still be unsent. */
function rawRequest(
  path: string,
  headers: Record<string, string>,
  bodyChunk?: Buffer,
): Promise<{ status: number; body: string; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, localApi.url);
    let sentBytes = 0;
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), sentBytes });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    if (bodyChunk) {
      // Only the first part of the declared body: an answer can only come from the headers.
      req.write(bodyChunk);
      sentBytes += bodyChunk.length;
    } else req.end();
  });
}

/** Ids of every job item in the table, whoever owns it. */
async function jobIds(): Promise<string[]> {
  const ids: string[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await h.pipeline.clients.db.send(
      new ScanCommand({
        TableName: h.stack.resources.tableName,
        FilterExpression: 'sk = :job',
        ExpressionAttributeValues: { ':job': JOB_SK },
        ProjectionExpression: 'pk',
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    ids.push(...(page.Items ?? []).map((i) => String(i.pk)));
    start = page.LastEvaluatedKey;
  } while (start);
  return ids.sort();
}

/** Keys of every object under the intake prefix. */
async function intakeKeys(): Promise<string[]> {
  const r = await h.pipeline.clients.s3.send(
    new ListObjectsV2Command({
      Bucket: h.stack.resources.intakeBucket,
      Prefix: h.stack.resources.intakePrefix,
    }),
  );
  return (r.Contents ?? []).map((o) => o.Key ?? '').sort();
}

describe('a quote through the API', () => {
  it('prices a document as intake then prices it, with no job recorded and nothing uploaded', async () => {
    const analysts = ['term-lifecycle', 'ip-counsel'];
    const [jobsBefore, keysBefore] = await Promise.all([jobIds(), intakeKeys()]);
    const quoted = await api.quote({
      filename: SMALL,
      document: fixture(SMALL).toString('base64'),
      analysts,
      ceilingUsd: 0.000001,
    });
    expect(quoted).toMatchObject({
      filename: SMALL,
      format: 'txt',
      options: { analysts },
      wouldStart: false,
    });
    expect(quoted.calls + quoted.callsScreened).toBe(quoted.clauses * analysts.length);
    expect(quoted.quote.expectedMicros).toBeGreaterThan(1);
    expect(await jobIds()).toEqual(jobsBefore);
    expect(await intakeKeys()).toEqual(keysBefore);

    // The way a quote was learned before: a submission intake refuses for its ceiling, keeping
    // its quote on a rejected job. The two quotes are the same.
    const submission = await api.submit({ filename: SMALL, analysts, ceilingUsd: 0.000001 });
    await uploadDocument(submission, fixture(SMALL));
    const rejected = await until(submission.submissionId, (v) => v.status === 'rejected');
    expect(rejected.reason).toMatch(/below this job's expected cost/);
    expect(rejected.cost.quote).toMatchObject({
      expectedUsd: quoted.quote.expectedUsd,
      worstCaseUsd: quoted.quote.worstCaseUsd,
      computeUsd: quoted.quote.computeUsd,
    });
    expect(await jobIds()).toEqual([...jobsBefore, `JOB#${rejected.jobId}`].sort());
  });

  it('reads a document-sized body for a quote only, and says why a document cannot be read', async () => {
    const document = Buffer.alloc(200 * 1024, 'The Supplier shall deliver. ').toString('base64');
    const big = await api.quote({ filename: 'long.txt', document, analysts: ['ip-counsel'] });
    expect(big.bytes).toBe(200 * 1024);
    const tooBig = await errorOf(api.submit({ filename: 'a.txt', gate: 'none', padding: document } as never));
    expect(tooBig.status).toBe(413);
    const unreadable = await errorOf(
      api.quote({ filename: 'tool.exe', document: Buffer.from([0x4d, 0x5a, 0, 1]).toString('base64') }),
    );
    expect(unreadable.status).toBe(422);
    expect(unreadable.message).toMatch(/^tool\.exe cannot be quoted/);
  });
});

describe('size limits', () => {
  it('answers 413 for a 10 MB body from its content-length, before the body is sent', async () => {
    const signed = await api.sign('POST', 'jobs', { filename: 'a.txt' });
    const r = await rawRequest(
      'jobs',
      { ...signed.headers, 'content-length': String(10 * 1024 * 1024) },
      Buffer.alloc(64 * 1024, 'x'),
    );
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body)).toMatchObject({ error: 'PayloadTooLargeError' });
    expect(r.sentBytes).toBe(64 * 1024);
    // Unsigned, too: the size is decided before the signature is looked at.
    const unsigned = await rawRequest(
      'jobs',
      { 'content-length': String(10 * 1024 * 1024) },
      Buffer.alloc(1024),
    );
    expect(unsigned.status).toBe(413);
  });

  it('answers 431 for 10,000 query parameters and for oversized headers', async () => {
    const query = await rawRequest(`jobs?${Array.from({ length: 10_000 }, (_, i) => `p${i}=1`).join('&')}`, {
      'content-length': '0',
    });
    expect(query.status).toBe(431);
    expect(JSON.parse(query.body)).toMatchObject({ error: 'HeadersTooLargeError' });
    const header = await rawRequest('jobs', { 'content-length': '0', 'x-padding': 'y'.repeat(12_000) });
    expect(header.status).toBe(431);
    // Past the server's own header buffer, the same answer.
    const huge = await rawRequest('jobs', { 'content-length': '0', 'x-padding': 'y'.repeat(300_000) });
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toMatchObject({ error: 'HeadersTooLargeError' });
  });

  it('routes and authenticates before reading a body', async () => {
    const nowhere = await rawRequest('nowhere', { 'content-length': '1000' }, Buffer.alloc(10));
    expect(nowhere.status).toBe(404);
    const unsigned = await rawRequest('jobs', { 'content-length': '1000' }, Buffer.alloc(10));
    expect(unsigned.status).toBe(403);
    expect(JSON.parse(unsigned.body)).toEqual({ message: 'Missing Authentication Token' });
  });
});

describe('refusals', () => {
  it('refuses an unsigned request with 403', async () => {
    const r = await send(new URL('jobs', localApi.url), 'POST', { 'content-type': 'application/json' }, '{}');
    expect(r.status).toBe(403);
    expect((r.body as { message: string }).message).toBe('Missing Authentication Token');
  });

  it('refuses a request signed with the wrong secret with 403', async () => {
    const wrong = new ApiClient({
      url: localApi.url,
      region: LOCAL_REGION,
      credentials: { accessKeyId: EMULATOR_CREDENTIALS.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    const r = await errorOf(wrong.status('j-00000000000000000000'));
    expect(r.status).toBe(403);
    expect(r.message).toMatch(/signature we calculated does not match/);
  });

  it('refuses a request whose body was changed after signing with 403', async () => {
    const signed = await api.sign('POST', 'jobs', { filename: 'a.txt' });
    const tampered = '{"filename":"b.txt"}';
    const r = await send(
      signed.url,
      'POST',
      { ...signed.headers, 'content-length': String(tampered.length) },
      tampered,
    );
    expect(r.status).toBe(403);
    // The signature covers the payload hash: the changed body no longer matches it.
    expect((r.body as { message: string }).message).toMatch(/does not match/);
    // The untouched request goes through.
    expect((await send(signed.url, 'POST', signed.headers, signed.payload)).status).toBe(201);
  });

  it('answers a malformed submission with 400 and the reason', async () => {
    const r = await errorOf(api.submit({ filename: 'x/y.txt', lane: 'slow' as 'batch', ceilingUsd: -1 }));
    expect(r.status).toBe(400);
    const issues = (r.body as { issues: string[] }).issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^filename: must be a plain file name/),
        expect.stringMatching(/^lane: /),
        expect.stringMatching(/^ceilingUsd: /),
      ]),
    );
    const analysts = await errorOf(api.submit({ filename: 'a.txt', analysts: ['astrologer'] }));
    expect(analysts.status).toBe(400);
    expect(analysts.message).toMatch(/analysts.*astrologer/);
    const comma = await errorOf(
      api.submit({ filename: 'a.txt', analysts: ['ip-counsel,liability-counsel'] }),
    );
    expect(comma.status).toBe(400);
    expect(comma.message).toMatch(/unknown analyst id "ip-counsel,liability-counsel"/);
    const notJson = await api.request('POST', 'jobs', '{"filename": ');
    expect(notJson.status).toBe(400);
    expect((notJson.body as { message: string }).message).toMatch(/not valid JSON/);
  });

  it('answers an unknown job with 404 and a malformed id with 400', async () => {
    const unknown = await errorOf(api.status('j-0123456789abcdef0123'));
    expect(unknown.status).toBe(404);
    expect(unknown.message).toBe("no job with id 'j-0123456789abcdef0123'");
    expect((await errorOf(api.cancel('j-0123456789abcdef0123'))).status).toBe(404);
    expect((await errorOf(api.report('s-0123456789abcdef0123'))).status).toBe(404);
    const malformed = await errorOf(api.status('not-a-job'));
    expect(malformed.status).toBe(400);
    expect(malformed.message).toMatch(/is not a job id/);
  });
});

describe('per-caller budgets of the costly routes', () => {
  it('answers 429 with Retry-After to a caller over their budget, while another caller goes on', async () => {
    const callers = [
      { accessKeyId: 'AKIDBUSYCALLER', secretAccessKey: 'busy-secret' },
      { accessKeyId: 'AKIDQUIETCALLER', secretAccessKey: 'quiet-secret' },
    ];
    const limited = await startPipelineApi({
      awsEndpoint: h.stack.endpoint,
      db: h.pipeline.clients.db,
      resources: h.stack.resources,
      credentials: Object.fromEntries(callers.map((c) => [c.accessKeyId, c.secretAccessKey])),
      callerBudgets: { quote: { burst: 2, perMinute: 1 }, submit: { burst: 3, perMinute: 1 } },
    });
    try {
      const [busy, quiet] = callers.map(
        (credentials) => new ApiClient({ url: limited.url, region: LOCAL_REGION, credentials }),
      ) as [ApiClient, ApiClient];
      const quote = {
        filename: SMALL,
        document: fixture(SMALL).toString('base64'),
        analysts: ['ip-counsel'],
      };
      const statuses = async (client: ApiClient, path: 'quote' | 'jobs', body: unknown, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await client.request('POST', path, body)).status);
        return out;
      };
      expect(await statuses(busy, 'quote', quote, 2)).toEqual([200, 200]);
      const refused = await busy.request('POST', 'quote', quote);
      expect(refused.status).toBe(429);
      // One a minute: the next is a minute away, give or take the seconds this test took.
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(30);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(refused.body).toMatchObject({
        error: 'TooManyRequestsError',
        message: expect.stringMatching(
          /^too many quote requests from this caller: at most 2 at once and 1 a minute/,
        ),
      });
      // Another caller's budget is their own.
      expect(await statuses(quiet, 'quote', quote, 2)).toEqual([200, 200]);
      // Submissions have a budget of their own, per caller too.
      const submit = { filename: SMALL, lane: 'realtime' };
      expect(await statuses(busy, 'jobs', submit, 4)).toEqual([201, 201, 201, 429]);
      expect(await statuses(quiet, 'jobs', submit, 1)).toEqual([201]);
      // The budgets are kept in the state table, one item per caller and route.
      const items = await h.pipeline.clients.db.send(
        new ScanCommand({
          TableName: h.stack.resources.tableName,
          FilterExpression: 'begins_with(pk, :p)',
          ExpressionAttributeValues: { ':p': 'RATE#' },
        }),
      );
      const ours = (items.Items ?? []).filter((i) => /AKID(BUSY|QUIET)CALLER/.test(String(i.pk)));
      expect(ours.map((i) => `${i.pk} ${i.sk}`).sort()).toEqual(
        [
          `RATE#${localCallerArn('AKIDBUSYCALLER')} quote`,
          `RATE#${localCallerArn('AKIDBUSYCALLER')} submit`,
          `RATE#${localCallerArn('AKIDQUIETCALLER')} quote`,
          `RATE#${localCallerArn('AKIDQUIETCALLER')} submit`,
        ].sort(),
      );
    } finally {
      await limited.close();
    }
  });
});
