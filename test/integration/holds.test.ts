/**
 * Holds on the local stack, through the status API and the CLI: pause and resume a job mid-run,
 * pause then cancel it, and a review gate that keeps a job in `awaiting_review` until a person
 * has decided every gated finding (or its deadline passes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient, isApiRequestError } from '../../bin/client/api-client.js';
import { statusCommand } from '../../bin/commands/api-commands.js';
import {
  decideCommand,
  findingsCommand,
  pauseCommand,
  resumeCommand,
} from '../../bin/commands/hold-commands.js';
import { submitCommand } from '../../bin/commands/submit-command.js';
import type { JobView } from '../../lambdas/api/jobs-api.js';
import { riskFromScores } from '../../lambdas/core/analysts/consolidate.js';
import type { Score } from '../../lambdas/core/analysts/tool-schema.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { subscribeToAlerts } from '../helpers/alerts.js';
import { capture, localTarget } from '../helpers/cli-target.js';
import { fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

/** A caller who owns none of these jobs and is no administrator. */
const OTHER = { accessKeyId: 'AKIDNOTTHEOWNER', secretAccessKey: 'other-secret' };

// Calls take 40 ms, so a pause lands while a medium contract's calls are running. Reviews may
// be as short as the test needs: a deadline of seconds, seen to pass.
const settings = { ...LOCAL_RUN_DEFAULTS, minReviewHours: 0 };
const h = await startHarness('holds', {
  plan: { latency: { kind: 'fixed', ms: 40 } },
  pipeline: { sweepIntervalMs: 300 },
  settings,
});
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db: h.pipeline.clients.db,
  resources: h.stack.resources,
  settings,
  credentials: Object.fromEntries(
    [EMULATOR_CREDENTIALS, OTHER].map((c) => [c.accessKeyId, c.secretAccessKey]),
  ),
});
const alerts = await subscribeToAlerts(h.stack, h.pipeline.clients.sqs, h.stack.clients.sns);
const scratch = mkdtempSync(join(tmpdir(), 'clause-review-holds-'));
afterAll(async () => {
  await localApi.close();
  rmSync(scratch, { recursive: true, force: true });
});

const api = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS });
const other = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: OTHER });
const target = localTarget(h, api);

// Each wait for a job's state gives it 120 s; a test's own time covers the waits it makes.
async function until(id: string, done: (v: JobView) => boolean, timeoutMs = 120_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await api.status(id);
    if (done(view)) return view;
    if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Submits a fixture with the CLI; returns its job id. */
async function submit(name: string, ...flags: string[]): Promise<string> {
  const file = join(scratch, name);
  writeFileSync(file, fixture(name));
  const io = capture();
  expect(await submitCommand([file, '--lane', 'realtime', '--ceiling', '20', ...flags], io, target)).toBe(0);
  const jobId = /job (j-[0-9a-f]{20})/.exec(io.stdout.join('\n'))?.[1];
  if (!jobId) throw new Error(`submit printed no job id: ${io.stdout.join('\n')}`);
  return jobId;
}

async function refusal(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
  } catch (error) {
    if (isApiRequestError(error)) return error.status;
    throw error;
  }
  throw new Error('expected the API to refuse');
}

/** Waits until no chunk of the job holds a lease, and returns how many calls the stand-in has had. */
async function settled(jobId: string): Promise<number> {
  const claims = new Claims(h.pipeline.clients.db, h.stack.resources.tableName);
  for (const deadline = Date.now() + 30_000; ; ) {
    const held = (await claims.list(jobId)).filter(
      (c) => c.claimedBy && (c.claimExpiresAt ?? 0) > Date.now(),
    );
    if (held.length === 0) return h.bedrock.accounting().totals.calls;
    if (Date.now() > deadline) throw new Error(`chunks still held: ${held.map((c) => c.chunk).join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('pause and resume', () => {
  it('stops new calls and frees every lease and allotment, then finishes from the checkpoints with no call billed twice', async () => {
    const jobId = await submit(MEDIUM);
    await h.untilCalls((n) => n >= 60);
    const paused = capture();
    expect(await pauseCommand([jobId], paused, target)).toBe(0);
    expect(paused.stdout.join('\n')).toMatch(/paused since/);

    const watchPaused = capture();
    expect(await statusCommand([jobId, '--watch'], watchPaused, target)).toBe(0);
    expect(watchPaused.stderr.join('\n')).toMatch(/paused: 'clause-review resume j-/);
    const callsAtRest = await settled(jobId);
    await new Promise((r) => setTimeout(r, 1500));
    // No call started while paused, and every chunk gave its allotment back.
    expect(h.bedrock.accounting().totals.calls).toBe(callsAtRest);
    const held = await h.jobs.get(jobId);
    expect(held.status).toBe('paused');
    expect(held.costReserved).toBe(0);
    expect(held.chunksTerminal).toBeLessThan(held.chunkCount);
    // The sweeper leaves a paused job alone: nothing is re-sent while it waits.
    const claims = await new Claims(h.pipeline.clients.db, h.stack.resources.tableName).list(jobId);
    expect(claims.some((c) => c.sweeps)).toBe(false);
    // Resuming a job that is not paused, or pausing it twice, is refused with its state.
    expect(await refusal(api.pause(jobId))).toBe(409);

    const resumed = capture();
    expect(await resumeCommand([jobId], resumed, target)).toBe(0);
    const watch = capture();
    expect(await statusCommand([jobId, '--watch', '--interval', '0.3'], watch, target)).toBe(0);
    const job = await h.jobs.get(jobId);
    expect(job.status).toBe('completed');
    expect(job.pausedMs).toBeGreaterThanOrEqual(1500);
    // The deadline moved by the time spent paused.
    expect(job.deadline - Date.parse(job.createdAt)).toBeGreaterThan(job.pausedMs ?? 0);
    const report = await h.report(job);
    expect(report.coverage.callsDone).toBe(report.coverage.callsPlanned - report.coverage.callsScreened);
    expect(await h.billedTwice(jobId)).toEqual([]);
    expect(Object.keys(h.bedrock.accounting().successes)).toHaveLength(report.coverage.callsDone);
    expect(await refusal(api.resume(jobId))).toBe(409);
    // Two whole runs of a 52-clause contract with a pause between: on LocalStack, beside the
    // rest of the suite on two cores, that has taken more than the default minute.
  }, 180_000);

  it('cancels a paused job: its unfinished chunks end cancelled and every call is accounted for', async () => {
    const jobId = await submit(MEDIUM);
    const before = h.bedrock.accounting();
    await h.untilCalls((n) => n >= before.totals.calls + 40);
    await api.pause(jobId);
    await settled(jobId);
    const view = await api.cancel(jobId);
    expect(view.status).toBe('cancelled');
    const ended = await until(jobId, (v) => v.finished);
    expect(ended.status).toBe('cancelled');
    const report = await h.report(await h.jobs.get(jobId));
    const c = report.coverage;
    expect(c.callsNotRun).toBe(0);
    expect(c.callsDone + c.callsFailed + c.callsSkippedBudget + c.callsCancelled + c.callsScreened).toBe(
      c.callsPlanned,
    );
    expect(c.callsCancelled).toBeGreaterThan(0);
    // The same contract ran before: each of its questions may be billed once more, never twice.
    const after = h.bedrock.accounting().successes;
    const twice = Object.entries(after).filter(([fp, e]) => e.count - (before.successes[fp]?.count ?? 0) > 1);
    expect(twice).toEqual([]);
  }, 180_000);

  it('answers 404 to a caller who does not own the job', async () => {
    const jobId = await submit(SMALL);
    expect(await refusal(other.pause(jobId))).toBe(404);
    expect(await refusal(other.resume(jobId))).toBe(404);
    await until(jobId, (v) => v.finished);
  }, 180_000);
});

describe('the review gate', () => {
  it('holds the job until the last decision; the report carries the decisions, the trail and the decided risk', async () => {
    const jobId = await submit(MEDIUM, '--gate', 'high');
    const waiting = await until(jobId, (v) => v.status === 'awaiting_review' || v.finished);
    expect(waiting.status).toBe('awaiting_review');
    expect(waiting.reportReady).toBe(false);
    expect(waiting.review?.gate).toBe('high');
    const gatedCount = waiting.review?.gatedFindings ?? 0;
    // Watching a held job stops at the hold and says what the reviewer does next.
    const watching = capture();
    expect(await statusCommand([jobId, '--watch', '--interval', '0.3'], watching, target)).toBe(0);
    expect(watching.stdout.join('\n')).toMatch(
      /awaiting_review \(\d+ finding\(s\) at gate 'high', review due /,
    );
    expect(watching.stderr.join('\n')).toMatch(/waiting for a reviewer: 'clause-review findings j-/);
    expect(gatedCount).toBeGreaterThan(1);

    const listed = capture();
    expect(await findingsCommand([jobId, '--gated'], listed, target)).toBe(0);
    const view = await api.findings(jobId);
    const gated = view.findings.filter((f) => f.gated);
    expect(gated).toHaveLength(gatedCount);
    for (const f of gated) {
      expect(listed.stdout.join('\n')).toContain(f.id);
      expect(f.score).toBeGreaterThanOrEqual(2);
      expect(['high', 'critical']).toContain(f.clauseRisk);
      expect(f.quotes.length).toBeGreaterThan(0);
      expect(f.analysts.length).toBeGreaterThan(0);
    }

    // A caller who does not own the job cannot decide on it, nor see its findings.
    expect(await refusal(other.decide(jobId, { findings: [gated[0]?.id ?? ''], verdict: 'approve' }))).toBe(
      404,
    );
    expect(await refusal(other.findings(jobId))).toBe(404);
    // Malformed decisions are refused with what is wrong.
    const badScore = await decideCommand([jobId, gated[0]?.id ?? '', 'override'], capture(), target).catch(
      (e: unknown) => e,
    );
    expect(String(badScore)).toMatch(/override needs --score/);
    expect(await refusal(api.decide(jobId, { findings: ['c9999/liability'], verdict: 'approve' }))).toBe(400);

    // Override every gated finding of one clause: its risk drops, recomputed from the decided scores.
    const report0 = await api.findings(jobId);
    const clauseIds = [...new Set(gated.map((f) => f.clauseId))];
    const clauseId = clauseIds.sort(
      (a, b) => gated.filter((f) => f.clauseId === a).length - gated.filter((f) => f.clauseId === b).length,
    )[0];
    const chosen = gated.filter((f) => f.clauseId === clauseId);
    const note = 'standard for agreements of this size';
    const decided = capture();
    expect(
      await decideCommand(
        [jobId, ...chosen.map((f) => f.id), 'override', '--score', '1', '--note', note],
        decided,
        target,
      ),
    ).toBe(0);
    const left = gatedCount - chosen.length;
    expect(decided.stderr.join('\n')).toMatch(new RegExp(`${left} held item\\(s\\) still undecided`));
    // Still held: some findings are undecided.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api.status(jobId)).status).toBe('awaiting_review');
    expect(report0.undecided).toBe(gatedCount);

    const all = capture();
    expect(await decideCommand([jobId, '--approve-all'], all, target)).toBe(0);
    expect(all.stdout).toHaveLength(left);
    expect(all.stderr.join('\n')).toMatch(/report ready \(completed\): clause-review report j-/);
    const ended = await until(jobId, (v) => v.finished);
    expect(ended.status).toBe('completed');

    const report = await h.report(await h.jobs.get(jobId));
    expect(report.review?.outcome).toBe('decided');
    expect(report.review?.trail).toHaveLength(gatedCount);
    for (const [i, f] of chosen.entries()) {
      expect(report.review?.trail[i]).toMatchObject({ findingId: f.id, verdict: 'override', score: 1, note });
    }
    expect(report.review?.trail[0]?.by).toMatch(/^arn:aws:/);
    expect(report.review?.findings.filter((f) => f.decision === 'approved')).toHaveLength(left);
    const clause = report.clauses.find((c) => c.id === clauseId);
    const modelRisk = chosen[0]?.clauseRisk;
    expect(clause?.model?.risk).toBe(modelRisk);
    const decidedScores = {
      ...clause?.model?.scores,
      ...Object.fromEntries(chosen.map((f) => [f.category, 1])),
    };
    expect(clause?.scores).toEqual(decidedScores);
    expect(clause?.risk).toBe(riskFromScores(Object.values(decidedScores) as (Score | null)[]));
    expect(['low', 'none']).toContain(clause?.risk);
    for (const f of chosen) {
      const finding = clause?.findings.find((x) => x.category === f.category);
      expect(finding?.review).toMatchObject({
        decision: 'overridden',
        modelScore: f.score,
        decidedScore: 1,
        note,
      });
    }
    expect(report.summary.riskCounts[clause?.risk ?? 'none']).toBeGreaterThan(0);

    const links = await api.report(jobId);
    const html = await (await fetch(links.html.url)).text();
    expect(html).toContain('Reviewer decisions');
    expect(html).toContain('Overridden');
    expect(html).toContain(note);
    // Decisions after the review closed are refused.
    expect(await refusal(api.decide(jobId, { allUndecided: true, verdict: 'approve' }))).toBe(409);
  }, 300_000);

  it('alerts when the review deadline passes, and writes the report with the findings unreviewed', async () => {
    await alerts.take();
    // A 2-second review deadline.
    const jobId = await submit(MEDIUM, '--gate', 'high', '--review-hours', String(2 / 3600));
    const ended = await until(jobId, (v) => v.finished);
    expect(ended.status).toBe('completed');
    const job = await h.jobs.get(jobId);
    expect(job.reviewExpiredAt).toBeDefined();
    const report = await h.report(job);
    expect(report.review?.outcome).toBe('expired');
    expect(report.review?.findings.length).toBeGreaterThan(0);
    expect(report.review?.findings.every((f) => f.decision === 'unreviewed')).toBe(true);
    expect(report.review?.trail).toEqual([]);
    const sent = await alerts.take();
    const alert = sent.find((a) => a.context.jobId === jobId);
    expect(alert?.subject).toMatch(/passed its deadline/);
    expect(alert?.context).toMatchObject({ event: 'review-expired', gate: 'high' });
  }, 180_000);
});
