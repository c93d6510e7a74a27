/**
 * A queued job whose chunk messages were never sent, because the invocation that was to send
 * them died: a cancel that gave back its owner's slot and started the owner's queued job (the
 * start taken, the messages not yet out), and a cancel of a queued job that died before sending
 * its chunks for workers to end. Intake had handed such a job over when it queued it, so no
 * intake message is left to retry; the sweeper sends its chunks once they have been silent for
 * its quiet period, and the job ends. Before, the sweeper took any job without a completed
 * fan-out for intake's, and both stayed where they were until their deadline, hours on (a
 * chaos soak found the second).
 */
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../lambdas/core/holds/pause.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { STATUS_INDEX } from '../../lambdas/core/state/keys.js';
import { type SweeperDeps, sweep, sweepRules } from '../../lambdas/core/sweeper/index.js';
import { callsAsked, startHarness } from '../helpers/pipeline.js';
import { InvocationDiedError, mortalClients } from '../soak/mortal.js';

// Calls take 1.5 s, so an owner's first job runs long enough for its second to be queued behind
// it. The sweeper does not run on its own: its start of a queued job would race the dying
// invocation's; the test runs it, as the schedule would, once the invocation has died.
const h = await startHarness('queuedstart', {
  plan: { latency: { kind: 'fixed', ms: 1500 } },
  settings: { maxJobsPerOwner: 1 },
  pipeline: { sweepIntervalMs: 0 },
});
const run = Date.now().toString(36);
const r = h.stack.resources;
// A message is presumed lost after 3 s of silence.
const sweeperDeps: SweeperDeps = {
  db: h.pipeline.clients.db,
  sqs: h.pipeline.clients.sqs,
  s3: h.pipeline.clients.s3,
  tableName: r.tableName,
  statusIndexName: STATUS_INDEX,
  resultsBucket: r.resultsBucket,
  laneQueueUrls: r.queueUrls,
  finalizeQueueUrl: r.queueUrls.finalize,
  rules: {
    ...sweepRules(h.stack.topology, 20_000),
    quietMs: { realtime: 3000, batch: 3000 },
    finalizeQuietMs: 3000,
  },
};

/** Sweeps every 500 ms until the job has ended; the job as it ended. */
async function sweptToEnd(jobId: string, timeoutMs = 120_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await h.jobs.find(jobId);
    if (job?.finalizedAt) return job;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} did not end within ${timeoutMs} ms: ${JSON.stringify(job)}`);
    await sweep(sweeperDeps);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Waits until intake has nothing received or in hand: an intake that queued a job then tries to
 * start the owner's next queued job itself, and would otherwise race the test's cancel for the
 * slot it gives back.
 */
async function intakeSettled(timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { Attributes: a } = await h.pipeline.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: r.queueUrls.intake,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    if (a?.ApproximateNumberOfMessages === '0' && a.ApproximateNumberOfMessagesNotVisible === '0') return;
    if (Date.now() > deadline) throw new Error(`intake still had messages after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An eight-clause contract (88 model calls) uploaded as `owner`. */
const submit = (name: string, owner: string) =>
  h.upload(
    `${name}-${run}.txt`,
    [
      `${name.toUpperCase()} ${run}`,
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${i + 1}. Term ${i + 1}. Either party may end this Agreement on ${i + 30} days written notice.`,
      ),
    ].join('\n\n'),
    { 'submitted-by': owner, 'ceiling-usd': '5' },
  );

const holdDeps = (clients: Pick<typeof h.pipeline.clients, 'db' | 's3' | 'sqs'>) => ({
  db: clients.db,
  s3: clients.s3,
  sqs: clients.sqs,
  tableName: h.stack.resources.tableName,
  resultsBucket: h.stack.resources.resultsBucket,
  laneQueueUrls: h.stack.resources.queueUrls,
  finalizeQueueUrl: h.stack.resources.queueUrls.finalize,
});

describe('a queued job whose messages the invocation that was to send them never sent', () => {
  it('is sent on by the sweeper when its start died after taking the slot, and completes', async () => {
    const owner = `arn:aws:iam::000000000000:user/start-died-${run}`;
    const first = await submit('first', owner);
    await h.until(first, (j) => j.status === 'running');
    const second = await submit('second', owner);
    await h.until(second, (j) => j.status === 'queued');
    await intakeSettled();
    expect((await h.jobs.get(first)).status).toBe('running');
    // The cancel gives back the first job's slot and starts the second, and dies right after the take.
    const dying = mortalClients(h.pipeline.clients, { landmark: 'slot-take', later: 0 });
    await expect(cancelJob(first, 'cancelled by the test', holdDeps(dying.clients))).rejects.toBeInstanceOf(
      InvocationDiedError,
    );
    const started = await h.jobs.get(second);
    expect(started).toMatchObject({ status: 'running', holdsSlot: true });
    expect(started.fanoutCompletedAt).toBeUndefined();
    const ended = await sweptToEnd(second);
    expect(ended.status).toBe('completed');
    expect((await h.report(ended)).coverage.callsDone).toBe(callsAsked(ended));
    expect((await h.waitForEnd(first)).status).toBe('cancelled');
  }, 240_000);

  it('is ended by the sweeper when its cancel died before sending its chunks', async () => {
    const owner = `arn:aws:iam::000000000000:user/cancel-died-${run}`;
    const first = await submit('running', owner);
    await h.until(first, (j) => j.status === 'running');
    const second = await submit('waiting', owner);
    await h.until(second, (j) => j.status === 'queued');
    const dying = mortalClients(h.pipeline.clients, { landmark: 'cancelled', later: 0 });
    await expect(cancelJob(second, 'cancelled by the test', holdDeps(dying.clients))).rejects.toBeInstanceOf(
      InvocationDiedError,
    );
    expect((await h.jobs.get(second)).status).toBe('cancelled');
    const ended = await sweptToEnd(second);
    expect(ended.status).toBe('cancelled');
    expect(ended.costSpent).toBe(0);
    expect((await h.report(ended)).coverage.callsCancelled).toBe(callsAsked(ended));
    expect((await h.waitForEnd(first, 120_000)).status).toBe('completed');
  }, 240_000);
});
