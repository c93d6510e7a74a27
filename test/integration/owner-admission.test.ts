/**
 * Admission control on the local pipeline: with `maxJobsPerOwner` 1, an owner's second and third
 * uploads wait as `queued` and start one at a time, oldest first, as the owner's running job
 * ends, while another owner's job starts at once; a queued job cancelled ends cancelled without
 * a model call; a start nobody made (a slot given back by a bare status change) is made by the
 * sweeper; a resumed job takes a slot again, or waits queued while its owner is full.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../bin/client/api-client.js';
import { cancelCommand, statusCommand } from '../../bin/commands/api-commands.js';
import type { CliIo } from '../../bin/commands/cli-error.js';
import { resumeCommand } from '../../bin/commands/hold-commands.js';
import { submitCommand } from '../../bin/commands/submit-command.js';
import type { Target } from '../../bin/commands/target.js';
import { cancelJob, pauseJob, resumeJob } from '../../lambdas/core/holds/pause.js';
import { readLiveFindings } from '../../lambdas/core/live/index.js';
import type { JobStatus } from '../../lambdas/core/state/job.js';
import { OwnerSlots } from '../../lambdas/core/state/owner-slots.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { callsAsked, startHarness } from '../helpers/pipeline.js';

// Calls take 400 ms, so one small job runs for a few seconds: long enough for the owner's
// other uploads to reach intake while it runs. The sweeper runs every second.
const h = await startHarness('admission', {
  plan: { latency: { kind: 'fixed', ms: 400 } },
  settings: { maxJobsPerOwner: 1 },
  pipeline: { sweepIntervalMs: 1000 },
});
const { db } = h.pipeline.clients;
const slots = new OwnerSlots(db, h.stack.resources.tableName);
// The status API on loopback, for the CLI's submit, status and cancel as its caller.
const localApi = await startPipelineApi({
  awsEndpoint: h.stack.endpoint,
  db,
  resources: h.stack.resources,
  credentials: { [EMULATOR_CREDENTIALS.accessKeyId]: EMULATOR_CREDENTIALS.secretAccessKey },
});
const scratch = mkdtempSync(join(tmpdir(), 'clause-review-admission-'));
afterAll(async () => {
  await localApi.close();
  rmSync(scratch, { recursive: true, force: true });
});
const api = new ApiClient({ url: localApi.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS });
const target = async (): Promise<Target> => ({
  kind: 'local',
  name: 'local',
  region: LOCAL_REGION,
  api,
  resources: h.stack.resources,
  clients: { ...h.pipeline.clients, sns: h.stack.clients.sns },
  destroy: () => {},
});
/** A CLI's output, captured. */
const io = (): CliIo & { stdout: string[]; stderr: string[] } => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, tty: false, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
};
const run = Date.now().toString(36);
const ALICE = `arn:aws:iam::000000000000:user/alice-${run}`;
const BOB = `arn:aws:iam::000000000000:user/bob-${run}`;

/** A short contract of four clauses (44 model calls), and any `more`. */
const contract = (title: string, more: readonly string[] = []) =>
  [
    `${title}`,
    '1. Term. This Agreement begins on the Effective Date and continues for two years.',
    '2. Liability. Neither party is liable for indirect or consequential damages.',
    '3. Termination. Either party may terminate this Agreement on thirty days written notice.',
    '4. Governing Law. This Agreement is governed by the laws of the State of New York.',
    ...more,
  ].join('\n\n');

/** A clause the stand-in's keyword heuristic rates high risk. */
const ALARMING =
  '5. Indemnity. The Supplier shall indemnify and hold harmless the Customer against unlimited ' +
  'liability, uncapped and irrevocable, at any time and in its sole discretion.';

/** Uploads a contract as `owner` (on the emulator the signed submitter header is taken as given). */
const submit = (name: string, owner: string, metadata: Record<string, string> = {}, more: string[] = []) =>
  h.upload(`${run}-${name}.txt`, contract(`${name.toUpperCase()} SERVICES AGREEMENT`, more), {
    'submitted-by': owner,
    ...metadata,
  });

/** What pause and cancel need, from the harness. */
const holdDeps = () => ({
  db,
  s3: h.pipeline.clients.s3,
  sqs: h.pipeline.clients.sqs,
  tableName: h.stack.resources.tableName,
  resultsBucket: h.stack.resources.resultsBucket,
  laneQueueUrls: h.stack.resources.queueUrls,
  finalizeQueueUrl: h.stack.resources.queueUrls.finalize,
});

/** Samples the statuses of `ids` every 100 ms until `stop()`; each sample maps id to status. */
function sample(ids: readonly string[]) {
  const samples: Map<string, JobStatus | undefined>[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const jobs = await Promise.all(ids.map((id) => h.jobs.find(id)));
      samples.push(new Map(ids.map((id, i) => [id, jobs[i]?.status])));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    samples,
    async stop() {
      running = false;
      await done;
    },
  };
}

describe('an owner capped at one running job', () => {
  it('queues its second and third jobs, starts them oldest first, and lets another owner in at once', async () => {
    const a1 = await submit('a1', ALICE);
    expect((await h.until(a1, (j) => j.status !== 'intake')).status).toBe('running');
    const a2 = await submit('a2', ALICE);
    const queued2 = await h.until(a2, (j) => j.status !== 'intake');
    const a3 = await submit('a3', ALICE);
    const queued3 = await h.until(a3, (j) => j.status !== 'intake');
    expect([queued2.status, queued3.status]).toEqual(['queued', 'queued']);
    // Queued with its plan, and nothing sent: its chunks wait for a slot.
    expect(queued2.chunkCount).toBeGreaterThan(0);
    expect(queued2.fanoutCompletedAt).toBeUndefined();
    // A reader of its findings as they happen keeps reading: more will come once it starts.
    const live = await readLiveFindings(queued2, '', {
      db,
      s3: h.pipeline.clients.s3,
      tableName: h.stack.resources.tableName,
      resultsBucket: h.stack.resources.resultsBucket,
    });
    expect(live).toMatchObject({ status: 'queued', clauses: [], ended: false });
    const watch = sample([a1, a2, a3]);
    const b1 = await submit('b1', BOB);
    const bob = await h.until(b1, (j) => j.status !== 'intake');
    expect(bob.status).toBe('running');
    // Bob started while Alice's later jobs still waited.
    expect((await h.jobs.find(a3))?.status).toBe('queued');

    const ended = [await h.waitForEnd(a1), await h.waitForEnd(a2), await h.waitForEnd(a3)];
    await watch.stop();
    expect(ended.map((j) => j.status)).toEqual(['completed', 'completed', 'completed']);
    const [e1, e2, e3] = ended.map((j) => Date.parse(j.finalizedAt ?? ''));
    expect(e1).toBeLessThan(e2 ?? 0);
    expect(e2).toBeLessThan(e3 ?? 0);
    // Never two of Alice's jobs running at once, and each queued one ran in turn.
    const runningAtOnce = watch.samples.map((s) => [...s.values()].filter((v) => v === 'running').length);
    expect(Math.max(...runningAtOnce)).toBe(1);
    for (const id of [a2, a3]) expect(watch.samples.some((s) => s.get(id) === 'running')).toBe(true);
    // a3 stayed queued until a2 had started.
    const a3Start = watch.samples.findIndex((s) => s.get(a3) === 'running');
    const a2Start = watch.samples.findIndex((s) => s.get(a2) === 'running');
    expect(a2Start).toBeGreaterThanOrEqual(0);
    expect(a3Start).toBeGreaterThan(a2Start);
    expect((await h.waitForEnd(b1)).status).toBe('completed');
    expect(await slots.held(ALICE)).toBe(0);
    expect(await slots.held(BOB)).toBe(0);
  }, 180_000);

  it('cancels a queued job without a model call, and its owner keeps its one slot', async () => {
    const owner = `${ALICE}-cancel`;
    const c1 = await submit('c1', owner);
    await h.until(c1, (j) => j.status === 'running');
    const c2 = await submit('c2', owner);
    await h.until(c2, (j) => j.status === 'queued');
    const result = await cancelJob(c2, 'cancelled by the test', holdDeps());
    expect(result.cancelled).toBe(true);
    // The cancelled job held no slot: the running one keeps it.
    expect(await slots.held(owner)).toBe(1);
    const cancelled = await h.waitForEnd(c2);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.costSpent).toBe(0);
    const report = await h.report(cancelled);
    expect(report.coverage.callsCancelled).toBe(callsAsked(cancelled));
    expect(report.coverage.callsDone).toBe(0);
    expect((await h.waitForEnd(c1)).status).toBe('completed');
    expect(await slots.held(owner)).toBe(0);
  }, 120_000);

  it('has the sweeper start a queued job whose start was missed', async () => {
    const owner = `${ALICE}-missed`;
    const d1 = await submit('d1', owner);
    await h.until(d1, (j) => j.status === 'running');
    const d2 = await submit('d2', owner);
    await h.until(d2, (j) => j.status === 'queued');
    // The bare state change gives the slot back and starts nothing, as a starter that died would.
    expect(await h.jobs.cancel(d1, 'cancelled by the test')).toMatchObject({ gaveBackSlot: true });
    const started = await h.until(d2, (j) => j.status === 'running', 20_000);
    expect(started.holdsSlot).toBe(true);
    expect((await h.waitForEnd(d2)).status).toBe('completed');
    expect((await h.waitForEnd(d1)).status).toBe('cancelled');
    expect(await slots.held(owner)).toBe(0);
  }, 120_000);

  it('gives the slot to the next queued job when a job waits for its review, and when one is paused', async () => {
    const owner = `${ALICE}-holds`;
    // The stand-in's keyword heuristic rates the indemnity clause high: the gate holds it.
    const f1 = await submit('f1', owner, { gate: 'high' }, [ALARMING]);
    await h.until(f1, (j) => j.status === 'running');
    const f2 = await submit('f2', owner);
    await h.until(f2, (j) => j.status === 'queued');
    const f3 = await submit('f3', owner);
    await h.until(f3, (j) => j.status === 'queued');
    await h.until(f1, (j) => j.status === 'awaiting_review', 60_000);
    expect((await h.until(f2, (j) => j.status === 'running')).holdsSlot).toBe(true);
    expect((await h.jobs.find(f3))?.status).toBe('queued');
    const paused = await pauseJob(f2, 'the test', holdDeps());
    expect((await h.until(f3, (j) => j.status === 'running')).holdsSlot).toBe(true);
    // Resumed (by an administrator, through the CLI) while f3 holds the owner's one slot, f2
    // waits queued, still paused: no slot taken, no chunk sent, nothing run past the cap; the
    // CLI says why it waits.
    const out = io();
    expect(await resumeCommand([f2], out, target)).toBe(0);
    expect(out.stdout.join('\n')).toMatch(new RegExp(`^${f2} .* · queued`));
    expect(out.stderr.join('\n')).toMatch(/^queued: its owner has as many jobs running as the owner's cap/);
    const resumed = await h.jobs.get(f2);
    expect(resumed.status).toBe('queued');
    expect(resumed.pausedAt).toBe(paused.pausedAt);
    expect(resumed.holdsSlot).toBeUndefined();
    expect(await slots.held(owner)).toBe(1);
    expect(await slots.queued(owner)).toEqual([f2]);
    const watch = sample([f2, f3]);
    // When f3 ends, f2 takes the slot and goes on from its checkpoints; its deadline moved by
    // its pause and its wait together.
    expect((await h.waitForEnd(f3)).status).toBe('completed');
    const restarted = await h.until(f2, (j) => j.status === 'running' || j.status === 'completed', 60_000);
    expect(restarted.pausedAt).toBeUndefined();
    expect(restarted.pausedMs).toBeGreaterThan(0);
    expect(restarted.deadline).toBeGreaterThanOrEqual(paused.deadline + (restarted.pausedMs ?? 0));
    const ended = await h.waitForEnd(f2);
    await watch.stop();
    expect(ended.status).toBe('completed');
    expect((await h.report(ended)).coverage.callsDone).toBe(callsAsked(ended));
    // Never both running at once: the cap held through the pause and the resume.
    expect(watch.samples.some((s) => s.get(f2) === 'running' && s.get(f3) === 'running')).toBe(false);
    expect(await slots.held(owner)).toBe(0);
  }, 120_000);

  it('resumes a paused job at once when its owner has a slot free, taking the slot', async () => {
    const owner = `${ALICE}-resume`;
    const e1 = await submit('e1', owner);
    await h.until(e1, (j) => j.status === 'running');
    await pauseJob(e1, 'the test', holdDeps());
    expect(await slots.held(owner)).toBe(0);
    const resumed = await resumeJob(e1, holdDeps());
    expect(resumed.job.status).toBe('running');
    expect(resumed.job.holdsSlot).toBe(true);
    expect(await slots.held(owner)).toBe(1);
    // The owner's next upload waits behind it.
    const e2 = await submit('e2', owner);
    await h.until(e2, (j) => j.status === 'queued');
    expect((await h.waitForEnd(e1)).status).toBe('completed');
    expect((await h.waitForEnd(e2)).status).toBe('completed');
    expect(await slots.held(owner)).toBe(0);
  }, 120_000);

  it('shows queued through the status API and the CLI, and cancels it from the CLI', async () => {
    /** Submits a contract through the API with the CLI, as the API's caller; returns its job id. */
    const cliSubmit = async (name: string): Promise<string> => {
      const file = join(scratch, `${run}-${name}.txt`);
      writeFileSync(file, contract(`${name.toUpperCase()} SERVICES AGREEMENT`));
      const out = io();
      expect(await submitCommand([file, '--lane', 'realtime'], out, target)).toBe(0);
      const jobId = /job (j-[0-9a-f]{20})/.exec(out.stdout.join('\n'))?.[1];
      if (!jobId) throw new Error(`submit printed no job id: ${out.stdout.join('\n')}`);
      return jobId;
    };
    const g1 = await cliSubmit('g1');
    await h.until(g1, (j) => j.status === 'running');
    const g2 = await cliSubmit('g2');
    await h.until(g2, (j) => j.status === 'queued');
    const view = await api.status(g2);
    expect(view).toMatchObject({ jobId: g2, status: 'queued', finished: false });
    expect(view.progress.chunksTotal).toBeGreaterThan(0);
    const status = io();
    expect(await statusCommand([g2], status, target)).toBe(0);
    expect(status.stdout.join('\n')).toContain(
      'queued (its owner has as many jobs running as allowed: it starts when one of them ends)',
    );
    expect(await cancelCommand([g2], io(), target)).toBe(0);
    const cancelled = await h.waitForEnd(g2);
    expect(cancelled).toMatchObject({ status: 'cancelled', costSpent: 0 });
    expect((await h.waitForEnd(g1)).status).toBe('completed');
  }, 120_000);
});
