/**
 * Findings as they happen, through the status API and the CLI: the clauses of each chunk are
 * readable as soon as it consolidates, while the job still runs, with a cursor that hands each
 * chunk out once; and GET /jobs lists a caller's own jobs, newest first, page by page. Only the
 * job's owner and the administrators may read either.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, isApiRequestError, send, uploadDocument } from '../../bin/client/api-client.js';
import { clauseLine, jobsCommand, liveFindingsCommand } from '../../bin/commands/live-commands.js';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import type { Report, ReportClause } from '../../lambdas/core/report-types.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { localCallerArn, startPipelineApi } from '../../localstack/runtime/local-api.js';
import { apiRefusal, capture, localTarget } from '../helpers/cli-target.js';
import { fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

/** The owner of the jobs, another caller, and an administrator. */
const OTHER = { accessKeyId: 'AKIDLIVEOTHER', secretAccessKey: 'other-secret' };
const AUDITOR = { accessKeyId: 'AKIDLIVEAUDITOR', secretAccessKey: 'auditor-secret' };

// Three clauses a chunk and calls of 30 ms: a medium contract's chunks consolidate one after
// another over seconds.
const h = await startHarness('livefindings', {
  plan: { latency: { kind: 'fixed', ms: 30 } },
  settings: { chunkClauses: 3, callConcurrency: 8 },
});
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
const target = localTarget(h, api);

const statusOf = apiRefusal;

async function until(id: string, done: (v: JobView) => boolean, client = api): Promise<JobView> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const view = await client.status(id);
    if (done(view)) return view;
    if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Submits a fixture through the API as `client`; returns the job id once intake has read it. */
async function submit(client: ApiClient, name: string): Promise<string> {
  const submission = await client.submit({ filename: name, lane: 'realtime', ceilingUsd: 20 });
  await uploadDocument(submission, fixture(name));
  for (const deadline = Date.now() + 30_000; ; ) {
    try {
      const view = await client.status(submission.submissionId);
      if (view.status !== 'queued') return view.jobId;
    } catch (error) {
      if (!isApiRequestError(error) || error.status !== 404) throw error;
    }
    if (Date.now() > deadline) throw new Error(`intake never read submission ${submission.submissionId}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function reportOf(jobId: string): Promise<Report> {
  const links = await api.report(jobId);
  return (await send(new URL(links.json.url), 'GET', {})).body as Report;
}

const jobs: string[] = [];

describe('findings as chunks consolidate', () => {
  it('hands out each consolidated chunk once, while the job runs, and ends with exactly the report’s clauses', async () => {
    const jobId = await submit(api, MEDIUM);
    jobs.push(jobId);
    const seen: ReportClause[] = [];
    const whileRunning: number[] = [];
    let cursor = '';
    for (const deadline = Date.now() + 120_000; ; ) {
      const view = await api.liveFindings(jobId, cursor);
      expect(view.jobId).toBe(jobId);
      // Document order within a read.
      const indexes = view.clauses.map((c) => c.index);
      expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
      seen.push(...view.clauses);
      if (
        view.status === 'running' &&
        view.clauses.length > 0 &&
        view.chunks.consolidated < view.chunks.total
      ) {
        whileRunning.push(view.clauses.length);
      }
      cursor = view.cursor;
      if (view.ended) break;
      if (Date.now() > deadline) throw new Error(`findings never ended: ${JSON.stringify(view.chunks)}`);
      if (!view.more) await new Promise((r) => setTimeout(r, 150));
    }
    // Findings came in several reads before the job was done.
    expect(whileRunning.length).toBeGreaterThanOrEqual(2);
    const ended = await until(jobId, (v) => v.finished);
    expect(ended.status).toBe('completed');
    const report = await reportOf(jobId);
    // Each clause once, and the same entries as report.json's.
    expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
    expect([...seen].sort((a, b) => a.index - b.index)).toEqual(report.clauses);
    expect(report.clauses.some((c) => c.findings.length > 0)).toBe(true);
    // Once everything is delivered, reading on from the cursor gives nothing new.
    const after = await api.liveFindings(jobId, cursor);
    expect(after.clauses).toEqual([]);
    expect(after.ended).toBe(true);
    expect(after.chunks.delivered).toBe(after.chunks.total);

    // The CLI prints the same: one line per clause with its id, risk and categories.
    const io = capture();
    expect(await liveFindingsCommand([jobId], io, target)).toBe(0);
    expect(io.stdout).toEqual(report.clauses.map(clauseLine));
    const risky = report.clauses.find((c) => c.risk === 'high' || c.risk === 'critical');
    if (risky) expect(io.stdout).toContain(clauseLine(risky));
    expect(io.stderr.join('\n')).toMatch(/clause\(s\) from \d+ of \d+ chunk\(s\); job completed/);
  });

  it('refuses a cursor it never handed out, naming it', async () => {
    const [jobId] = jobs;
    if (!jobId) throw new Error('the first case submits the job');
    const bad = await statusOf(api.liveFindings(jobId, 'v1.____________________'));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/findings cursor 'v1\.___.*' names (more chunks|chunk \d+)/);
    const junk = await statusOf(api.liveFindings(jobId, 'after-chunk-3'));
    expect(junk.status).toBe(400);
    expect(junk.message).toMatch(/does not start with 'v1\.'/);
  });

  it('shows a job’s findings to its owner and the administrators only', async () => {
    const [jobId] = jobs;
    if (!jobId) throw new Error('the first case submits the job');
    expect((await statusOf(other.liveFindings(jobId, ''))).status).toBe(404);
    const admin = await auditor.liveFindings(jobId, '');
    expect(admin.clauses.length).toBeGreaterThan(0);
  });
});

describe('GET /jobs', () => {
  it('lists the caller’s own jobs newest first, page by page, and nobody else’s', async () => {
    jobs.push(await submit(api, SMALL));
    const othersJob = await submit(other, SMALL);
    const first = await api.jobs({ limit: 1 });
    expect(first.jobs.map((j) => j.jobId)).toEqual([jobs[1]]);
    expect(first.cursor).toBeTruthy();
    const second = await api.jobs({ limit: 1, after: first.cursor });
    expect(second.jobs.map((j) => j.jobId)).toEqual([jobs[0]]);
    expect(second.cursor).toBeUndefined();
    const all = await api.jobs();
    expect(all.jobs.map((j) => j.jobId)).toEqual([jobs[1], jobs[0]]);
    expect(all.jobs[1]).toMatchObject({
      status: 'completed',
      document: expect.stringMatching(/MEDIUM|TRANSPORTATION/),
    });
    expect(all.jobs[1]?.cost.spentMicros).toBeGreaterThan(0);
    // The document's hash once intake has read it: what the Word add-in finds a review by.
    const hashOf = (name: string) => createHash('sha256').update(fixture(name)).digest('hex');
    expect(all.jobs[1]?.sha256).toBe(hashOf(MEDIUM));
    expect((await other.jobs()).jobs.map((j) => j.jobId)).toEqual([othersJob]);
    // An administrator may list another owner's jobs; nobody else may.
    const owner = localCallerArn(EMULATOR_CREDENTIALS.accessKeyId);
    expect((await auditor.jobs({ owner })).jobs.map((j) => j.jobId)).toEqual([jobs[1], jobs[0]]);
    const refused = await statusOf(other.jobs({ owner }));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/only an administrator/);
    expect((await statusOf(api.jobs({ after: 'v1.bm90LWEta2V5' }))).status).toBe(400);

    const io = capture();
    expect(await jobsCommand([], io, target)).toBe(0);
    expect(io.stdout).toHaveLength(2);
    expect(io.stdout[0]).toMatch(new RegExp(`^${jobs[1]}  \\S+`));
    expect(io.stdout[1]).toMatch(
      new RegExp(`^${jobs[0]}  completed\\s+(\\d+)/\\1 chunks\\s+\\$\\d+\\.\\d\\d of \\$20\\.00`),
    );
    await until(othersJob, (v) => v.finished, other);
    await until(jobs[1] ?? '', (v) => v.finished);
  });
});
