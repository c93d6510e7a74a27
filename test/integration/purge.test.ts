/**
 * `clause-review purge <job>` on the emulator: jobs the local pipeline ran are purged through
 * the real S3 and DynamoDB APIs, every object version and delete marker included, and the
 * job item stays behind as the record of the purge.
 */
import {
  DeleteObjectCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../bin/client/api-client.js';
import { reportCommand, statusCommand } from '../../bin/commands/api-commands.js';
import { isCliError } from '../../bin/commands/cli-error.js';
import { purgeCommand } from '../../bin/commands/purge.js';
import type { Target } from '../../bin/commands/target.js';
import { documentKey } from '../../lambdas/core/intake/intake.js';
import { isJobNotEndedError, purgeJob } from '../../lambdas/core/purge/index.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { jobPk } from '../../lambdas/core/state/keys.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { startHarness } from '../helpers/pipeline.js';

const h = await startHarness('purge');
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db: h.pipeline.clients.db,
  resources: h.stack.resources,
});
afterAll(() => localApi.close());
const { s3, db } = h.pipeline.clients;
const { intakeBucket, resultsBucket, resultsPrefix, tableName } = h.stack.resources;

const target = async (): Promise<Target> => ({
  kind: 'local',
  name: 'local',
  region: LOCAL_REGION,
  api: new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS }),
  resources: h.stack.resources,
  clients: { ...h.pipeline.clients, sns: h.stack.clients.sns },
  destroy: () => {},
});

const io = () => {
  const out: string[] = [];
  return {
    out,
    err: [] as string[],
    tty: false,
    io: { out: (l: string) => out.push(l), err: () => {}, tty: false },
  };
};

const CONTRACT = [
  '1. Term. This Agreement starts on the Effective Date and renews automatically each year unless either party gives notice.',
  "2. Liability. Supplier's aggregate liability shall not exceed the fees paid in the preceding month.",
  '3. Governing Law. This Agreement is governed by the laws of the State of New York.',
].join('\n\n');

async function versions(bucket: string, prefix: string) {
  const r = await s3.send(new ListObjectVersionsCommand({ Bucket: bucket, Prefix: prefix }));
  return {
    versions: (r.Versions ?? []).map((v) => ({ key: v.Key, versionId: v.VersionId })),
    markers: (r.DeleteMarkers ?? []).map((m) => ({ key: m.Key, versionId: m.VersionId })),
  };
}

async function items(jobId: string) {
  const r = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': jobPk(jobId) },
      ConsistentRead: true,
    }),
  );
  return (r.Items ?? []) as (Job & { sk: string })[];
}

async function run(name: string, body: string): Promise<Job> {
  const job = await h.waitForEnd(await h.upload(name, body), 120_000);
  expect(job.status).toBe('completed');
  return job;
}

describe('purge', () => {
  it('deletes an ended job’s upload (delete marker included), work files, reports and items; the job item records it', async () => {
    const job = await run('nda.txt', CONTRACT);
    const workPrefix = `work/${job.jobId}/`;
    const reportPrefix = `${resultsPrefix}${job.jobId}/`;
    expect((await versions(resultsBucket, workPrefix)).versions).toContainEqual(
      expect.objectContaining({ key: documentKey(job.jobId) }),
    );
    // report.json, report.html and report.docx.
    expect((await versions(resultsBucket, reportPrefix)).versions).toHaveLength(3);
    expect((await items(job.jobId)).length).toBeGreaterThan(1);
    // Someone deleted the upload the plain way: on a versioned bucket that only hides it
    // behind a delete marker, and the contract is still there as a noncurrent version.
    await s3.send(new DeleteObjectCommand({ Bucket: intakeBucket, Key: job.key }));
    expect((await versions(intakeBucket, job.key)).versions).toHaveLength(1);

    const out = io();
    expect(await purgeCommand([job.jobId, '--local'], out.io, target)).toBe(0);
    expect(out.out[0]).toMatch(
      new RegExp(
        `^purged ${job.jobId}: \\d+ object version\\(s\\) and 1 delete marker\\(s\\) deleted .*, \\d+ table item\\(s\\) deleted; the job record stays, marked purgedAt \\d{4}-`,
      ),
    );

    expect(await versions(intakeBucket, job.key)).toEqual({ versions: [], markers: [] });
    expect(await versions(resultsBucket, workPrefix)).toEqual({ versions: [], markers: [] });
    expect(await versions(resultsBucket, reportPrefix)).toEqual({ versions: [], markers: [] });
    const left = await items(job.jobId);
    expect(left.map((i) => i.sk)).toEqual(['JOB']);
    const record = left[0];
    expect(record?.purgedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(record?.purge?.items).toBeGreaterThan(0);
    expect(record?.purge?.objects).toBeGreaterThanOrEqual(5);
    expect(record).not.toHaveProperty('reportKey');
    expect(record).not.toHaveProperty('htmlReportKey');
    expect(record).not.toHaveProperty('docxReportKey');
    expect(record).not.toHaveProperty('sha256');
    expect(record?.status).toBe('completed');

    // The status API still answers for the job, and says what happened to its report.
    const status = io();
    expect(await statusCommand([job.jobId, '--local'], status.io, target)).toBe(0);
    expect(status.out[0]).toContain(`completed · purged ${record?.purgedAt}`);
    const report = await reportCommand([job.jobId, '--local'], io().io, target).catch((e) => e);
    expect(isCliError(report) && report.message).toBe(
      `job ${job.jobId} was purged at ${record?.purgedAt}: its document, work files and report are deleted`,
    );

    // Again: nothing is left to delete, and it says the job was purged before.
    const again = await purgeJob(job.jobId, { db, s3, tableName, resultsBucket, resultsPrefix });
    expect(again).toMatchObject({ objects: [], items: 0, previouslyPurgedAt: record?.purgedAt });
  }, 180_000);

  it('deletes every version of the results on a versioned bucket, and keeps another upload of the same key', async () => {
    await s3.send(
      new PutBucketVersioningCommand({
        Bucket: resultsBucket,
        VersioningConfiguration: { Status: 'Enabled' },
      }),
    );
    const first = await run('lease.txt', CONTRACT);
    const second = await run('lease.txt', `${CONTRACT}\n\n4. Notices. Notices go to the addresses above.`);
    expect(second.key).toBe(first.key);
    expect(second.versionId).not.toBe(first.versionId);
    // More versions of the first job's files: a rewritten report and a deleted work file.
    const reportKey = first.reportKey ?? '';
    await s3.send(
      new PutObjectCommand({ Bucket: resultsBucket, Key: reportKey, Body: '{"rewritten":true}' }),
    );
    await s3.send(new DeleteObjectCommand({ Bucket: resultsBucket, Key: documentKey(first.jobId) }));
    const before = await versions(resultsBucket, `work/${first.jobId}/`);
    expect(before.markers).toHaveLength(1);
    expect((await versions(resultsBucket, reportKey)).versions).toHaveLength(2);

    const out = io();
    expect(await purgeCommand([first.jobId, '--local'], out.io, target)).toBe(0);
    expect(out.out).toContain(
      `kept s3://${intakeBucket}/${first.key} version ${second.versionId}: another upload to the same key, with other bytes`,
    );

    expect(await versions(resultsBucket, `work/${first.jobId}/`)).toEqual({ versions: [], markers: [] });
    expect(await versions(resultsBucket, `${resultsPrefix}${first.jobId}/`)).toEqual({
      versions: [],
      markers: [],
    });
    // Only the second upload is left under the key, current and readable.
    expect(await versions(intakeBucket, first.key)).toEqual({
      versions: [{ key: first.key, versionId: second.versionId }],
      markers: [],
    });
    // The second job is untouched: its report.json, report.html and report.docx.
    expect((await versions(resultsBucket, `${resultsPrefix}${second.jobId}/`)).versions).toHaveLength(3);
    expect((await items(second.jobId)).length).toBeGreaterThan(1);
    expect((await h.jobs.find(second.jobId))?.purgedAt).toBeUndefined();
  }, 240_000);

  it('refuses a job that has not ended, and deletes nothing', async () => {
    const jobId = 'j-00000000000000000000';
    await h.jobs.createIfAbsent({
      jobId,
      lane: 'realtime',
      bucket: intakeBucket,
      key: `${h.stack.resources.intakePrefix}running.txt`,
      analysts: ['deal-balance'],
      ceilingMicros: 1_000_000,
      deadline: Date.now() + 60_000,
    });
    await s3.send(new PutObjectCommand({ Bucket: resultsBucket, Key: documentKey(jobId), Body: '{}' }));
    const error = await purgeJob(jobId, { db, s3, tableName, resultsBucket, resultsPrefix }).catch((e) => e);
    expect(isJobNotEndedError(error)).toBe(true);
    expect((error as Error).message).toMatch(/is intake and has not ended.*cancel it/);
    expect((await versions(resultsBucket, documentKey(jobId))).versions).toHaveLength(1);
    expect((await h.jobs.find(jobId))?.purgedAt).toBeUndefined();

    const cli = await purgeCommand([jobId, '--local'], io().io, target).catch((e) => e);
    expect(isCliError(cli) && cli.exitCode).toBe(1);
  });

  it('says so for an unknown job and for something that is not a job id', async () => {
    const unknown = await purgeCommand(['j-ffffffffffffffffffff', '--local'], io().io, target).catch(
      (e) => e,
    );
    expect(isCliError(unknown) && unknown.message).toBe('no job j-ffffffffffffffffffff on local');
    const submission = await purgeCommand(['s-0123456789abcdef0123'], io().io, target).catch((e) => e);
    expect(isCliError(submission) && submission.message).toMatch(
      /not a job id .*'clause-review status s-0123456789abcdef0123' shows the job id/,
    );
  });
});
