import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { processChunk } from '../../lambdas/core/worker/process-chunk.js';
import { callsAsked, fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

const LEASE_SECONDS = 6;

// The batch lane has no worker until a test starts one, so chunk messages wait in its queue.
const h = await startHarness('recovery', {
  settings: { chunkClauses: 3, leaseSeconds: LEASE_SECONDS },
  pipeline: { batchWorkers: 0 },
});
const { sqs, db } = h.pipeline.clients;

/** Whether a chunk of the job being analyzed has calls answered in the ledger and calls still open. */
async function holdsAnsweredAndOpen(jobId: string): Promise<boolean> {
  const ledger = new CallLedger(db, h.stack.resources.tableName);
  for (const cp of await new Claims(db, h.stack.resources.tableName).list(jobId)) {
    if (cp.stage !== 'analyze' || cp.status !== 'running') continue;
    const entries = [...(await ledger.forChunk(jobId, cp.chunk)).values()];
    if (entries.some((e) => e.status === 'done') && entries.some((e) => e.status === 'in-flight'))
      return true;
  }
  return false;
}

function successes(): number {
  return Object.values(h.bedrock.accounting().successes).reduce((n, s) => n + s.count, 0);
}

describe('a chunk message delivered twice at once', () => {
  it('completes the chunk once and bills no call twice', async () => {
    const before = successes();
    const jobId = await h.upload(`dup-${SMALL}`, fixture(SMALL), { lane: 'batch' });
    let job = await h.jobs.get(jobId).catch(() => undefined);
    while (!job?.fanoutCompletedAt) {
      await new Promise((r) => setTimeout(r, 100));
      job = await h.jobs.find(jobId);
    }
    expect(job.chunkCount).toBeGreaterThan(1);
    const deliveries = await h.takeChunkMessages('batch', job.chunkCount);

    // Two worker instances receive the same message (SQS is at-least-once) and race.
    const a = h.workerDeps('worker-a');
    const b = h.workerDeps('worker-b');
    const outcomes = await Promise.all(
      deliveries.map((d) => Promise.all([processChunk(d, a), processChunk({ ...d, receiveCount: 2 }, b)])),
    );
    for (const pair of outcomes) {
      const done = pair.filter((o) => o.action === 'ack' && o.outcome === 'done');
      expect(done).toHaveLength(1);
      // The loser never acknowledges work it did not see finish.
      const other = pair.find((o) => !(o.action === 'ack' && o.outcome === 'done'));
      expect(
        other?.action === 'retry' || (other?.action === 'ack' && other.outcome === 'chunk already terminal'),
      ).toBe(true);
    }
    for (const d of deliveries) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: d.queueUrl, ReceiptHandle: d.receiptHandle }));
    }

    const ended = await h.waitForEnd(jobId);
    expect(ended.status).toBe('completed');
    expect(ended.chunksDone).toBe(ended.chunkCount);
    expect(successes() - before).toBe(callsAsked(ended));
    expect(await h.billedTwice(jobId)).toEqual([]);
  });
});

describe('a batch worker killed mid-chunk', () => {
  it('loses its lease to another worker, which finishes the job without billing a call twice', async () => {
    const callsBefore = h.bedrock.accounting().totals.calls;
    // The full panel: chunks of 33 calls, 16 of them in flight at once.
    const jobId = await h.upload(`kill-${MEDIUM}`, fixture(MEDIUM), { lane: 'batch', 'full-panel': 'true' });
    const victim = h.pipeline.addBatchWorker();

    // The victim is killed only while a chunk it holds has answers settled in the ledger and
    // calls still open, so that the survivor has answers to reuse and calls to make again.
    // Each round lets calls run (latencies from 50 ms to 3 s), then makes every new call wait
    // 8 s on the model; 3.5 s later every earlier call has been answered and settled, and none
    // of the waiting ones can have been: the victim's open calls were never answered, so none
    // of them can be billed twice. A chunk whose last calls had all started before the switch
    // ends meanwhile, and the victim may then hold only a chunk it began after it: the round
    // is tried again once its waiting calls have been answered (12 s after the switch).
    let asked = callsBefore;
    let rounds = 0;
    for (let round = 1; ; round++) {
      rounds = round;
      h.bedrock.setPlan({ latency: { kind: 'uniform', minMs: 50, maxMs: 3000 } });
      asked += 60;
      await h.untilCalls((n) => n >= asked);
      h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 8000 } });
      const switched = Date.now();
      await new Promise((r) => setTimeout(r, 3500));
      if (await holdsAnsweredAndOpen(jobId)) break;
      if (round === 4)
        throw new Error(`the victim never held a chunk with answered and open calls in ${round} rounds`);
      await new Promise((r) => setTimeout(r, Math.max(0, switched + 12_000 - Date.now())));
      asked = h.bedrock.accounting().totals.calls;
    }
    console.log(`the victim killed in round ${rounds} of the kill's setup`);
    const cut = new Promise((r) => victim.once('exit', r));
    victim.kill('SIGKILL');
    await cut;
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 20 } });
    h.pipeline.addBatchWorker();

    // How long the wait must be, from the lease and visibility timings: every message the
    // victim had, held by its heartbeat or only just received, is visible again within twice
    // the lease of the kill (`messageHoldSeconds`: the poller receives with that hold and the
    // heartbeat renews it), when the victim's lease (renewed to one lease ahead) has run out.
    // Should a renewal the victim sent as it died still land, the survivor's claim finds the
    // lease live and the message comes back when it ends, 5 s later at most: the last takeover
    // starts within 2 × 6 + 6 + 5 = 23 s of the kill, plus the emulator's visibility tick
    // (about a second on LocalStack) and the survivor's 1 s long poll. The rest of the 120 s is
    // the survivor's own work on the chunks left, at 20 ms a call. Received with the batch
    // queue's 300 s visibility timeout instead, a message the victim had only just received
    // would outlast the wait.
    const job = await h.waitForEnd(jobId, 120_000);
    expect(job.status).toBe('completed');
    const report = await h.report(job);
    expect(report.coverage.callsDone).toBe(callsAsked(job));
    expect(report.coverage.callsPlanned).toBe(report.clauses.length * ANALYSTS.length);
    expect(report.coverage.callsReused).toBeGreaterThan(0);
    expect(report.coverage.redeliveries).toBeGreaterThan(0);
    // The calls the victim had open were cut off, not answered.
    const outcomes = Object.values(h.bedrock.accounting().byModel).flatMap((m) => Object.keys(m));
    expect(outcomes).toContain('clientClosed');
    expect(await h.billedTwice(jobId)).toEqual([]);
    // Some chunk was claimed more than once: the survivor took over a lease.
    const checkpoints = await new Claims(db, h.stack.resources.tableName).list(jobId);
    expect(Math.max(...checkpoints.map((c) => c.attempts ?? 0))).toBeGreaterThan(1);
    // Up to four rounds of about 16 s to reach the kill, then the 120 s wait for the end.
  }, 300_000);
});
