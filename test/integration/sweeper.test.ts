import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { Claims } from '../../lambdas/core/state/claims.js';
import type { Job } from '../../lambdas/core/state/job.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { JOB_SK, jobPk, STAGES } from '../../lambdas/core/state/keys.js';
import { chunkMessageSchema } from '../../lambdas/core/worker/chunk-message.js';
import { type Delivery, processChunk } from '../../lambdas/core/worker/process-chunk.js';
import { duplicateBilledCalls } from '../../localstack/bedrock/index.js';
import { callsAsked, fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

// The batch lane has no worker until a test starts one, so chunk messages wait in its queue.
// The sweeper runs every 500 ms and presumes a message lost after 3 s of silence.
const h = await startHarness('sweeper', {
  settings: { chunkClauses: 3, leaseSeconds: 5 },
  pipeline: {
    batchWorkers: 0,
    sweepIntervalMs: 500,
    sweepRules: { quietMs: { realtime: 3000, batch: 3000 }, finalizeQuietMs: 3000 },
  },
});
const { sqs, db } = h.pipeline.clients;
const table = h.stack.resources.tableName;
const claims = new Claims(db, table);

async function fannedOut(jobId: string): Promise<Job> {
  for (;;) {
    const job = await h.jobs.find(jobId);
    if (job?.fanoutCompletedAt) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Receives the batch queue's messages of one job (one per chunk), holding them invisible.
 * Messages of other, finished jobs (sweeper re-sends) are deleted on the way.
 */
async function takeJobMessages(jobId: string, count: number): Promise<Delivery[]> {
  const queueUrl = h.stack.resources.queueUrls.batch;
  const got = new Map<number, Delivery>();
  const deadline = Date.now() + 30_000;
  while (got.size < count) {
    if (Date.now() > deadline)
      throw new Error(`only ${got.size} of ${count} chunk messages of ${jobId} arrived`);
    const r = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 300,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    for (const m of r.Messages ?? []) {
      const body = chunkMessageSchema.parse(JSON.parse(m.Body ?? ''));
      if (body.jobId !== jobId || got.has(body.chunk)) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
        continue;
      }
      got.set(body.chunk, {
        messageId: m.MessageId ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        body: m.Body ?? '',
        receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? '1'),
        queueUrl,
      });
    }
  }
  return [...got.values()].sort((a, b) => JSON.parse(a.body).chunk - JSON.parse(b.body).chunk);
}

async function drop(d: Delivery): Promise<void> {
  await sqs.send(new DeleteMessageCommand({ QueueUrl: d.queueUrl, ReceiptHandle: d.receiptHandle }));
}

function successes(): number {
  return Object.values(h.bedrock.accounting().successes).reduce((n, s) => n + s.count, 0);
}

describe('a job past its deadline', () => {
  it('ends incomplete, its unfinished chunks marked dead and named in the job and report', async () => {
    const jobId = await h.upload(`deadline-${SMALL}`, fixture(SMALL), { lane: 'batch' });
    const job = await fannedOut(jobId);
    expect(job.chunkCount).toBeGreaterThan(2);
    const deliveries = await takeJobMessages(jobId, job.chunkCount);
    // Chunk 0 finishes; the others are never worked on.
    const [first] = deliveries;
    if (!first) throw new Error('no delivery');
    expect((await processChunk(first, h.workerDeps('worker-deadline'))).action).toBe('ack');
    await drop(first);
    // The deadline passes (moved back rather than waited for).
    await db.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        UpdateExpression: 'SET deadline = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1000 },
      }),
    );

    const ended = await h.waitForEnd(jobId, 30_000);
    expect(ended.status).toBe('incomplete');
    const missing = Array.from({ length: job.chunkCount - 1 }, (_, i) => i + 1);
    expect(ended.reason).toContain(`${missing.length} chunk(s) did not finish`);
    for (const chunk of missing)
      expect(ended.reason).toContain(`chunk ${chunk} dead (deadline: job deadline`);
    const report = await h.report(ended);
    expect(report.coverage.unfinishedChunks.map((u) => u.chunk)).toEqual(missing);
    for (const u of report.coverage.unfinishedChunks) {
      expect(u.status).toBe('dead');
      expect(u.detail).toMatch(/deadline/);
    }
    const checkpoints = await claims.list(jobId);
    const dead = checkpoints.filter((c) => c.status === 'dead').map((c) => c.chunk);
    expect(dead).toEqual(missing);
    expect(ended.chunksTerminal).toBe(job.chunkCount);
    for (const d of deliveries.slice(1)) await drop(d);
  });
});

describe('a worker killed after the last chunk but before it enqueued finalize', () => {
  it('is finalized by the sweeper when finalize was never claimed', async () => {
    const jobId = await h.upload(`nofinal-${SMALL}`, fixture(SMALL), { lane: 'batch' });
    const job = await fannedOut(jobId);
    const deliveries = await takeJobMessages(jobId, job.chunkCount);
    // Every chunk is finished through the state functions alone: no maybeFinalize runs.
    for (let chunk = 0; chunk < job.chunkCount; chunk++) {
      for (const stage of STAGES) {
        const claim = await claims.claim(jobId, chunk, stage, 'doomed-worker', 30_000);
        if (!claim.won) throw new Error(`claim of ${chunk}/${stage} lost`);
        if (stage === 'consolidate') await claims.finishChunk(claim.lease, { status: 'done', result: '[]' });
        else await claims.completeStage(claim.lease, {});
      }
    }
    for (const d of deliveries) await drop(d);

    const ended = await h.waitForEnd(jobId, 30_000);
    expect(ended.status).toBe('completed');
    expect(ended.finalizeEnqueuedAt).toBeDefined();
    expect(ended.reportKey).toBeDefined();
  });

  it('sends finalize again when it was claimed but its message was lost', async () => {
    const jobId = await h.upload(`lostfinal-${SMALL}`, fixture(SMALL), { lane: 'batch' });
    const job = await fannedOut(jobId);
    const deliveries = await takeJobMessages(jobId, job.chunkCount);
    // The finalize message goes to a queue nobody reads: it is as good as lost.
    const nowhere = await sqs.send(new CreateQueueCommand({ QueueName: `${h.stack.resources.prefix}-void` }));
    const worker = { ...h.workerDeps('worker-lost-finalize'), finalizeQueueUrl: nowhere.QueueUrl ?? '' };
    const outcomes = await Promise.all(deliveries.map((d) => processChunk(d, worker)));
    expect(outcomes.every((o) => o.action === 'ack')).toBe(true);
    for (const d of deliveries) await drop(d);
    const claimed = await h.jobs.get(jobId);
    expect(claimed.finalizeEnqueuedAt).toBeDefined();
    expect(claimed.finalizedAt).toBeUndefined();

    const ended = await h.waitForEnd(jobId, 30_000);
    expect(ended.status).toBe('completed');
    expect((await new Jobs(db, table).get(jobId)).finalizeResentAt).toBeDefined();
  });
});

describe('one chunk silently missing', () => {
  it('is re-sent by the sweeper after its claim expires, and the job completes without double billing', async () => {
    const before = successes();
    // Earlier tests reviewed the same small contract twice (identical calls, different jobs);
    // this job's contract is reviewed here only, so it may add no duplicate.
    const duplicatesBefore = duplicateBilledCalls(h.bedrock.accounting());
    const jobId = await h.upload(`lost-${MEDIUM}`, fixture(MEDIUM), { lane: 'batch' });
    const job = await fannedOut(jobId);
    const deliveries = await takeJobMessages(jobId, job.chunkCount);
    const [lost, ...rest] = deliveries;
    if (!lost) throw new Error('no delivery');
    const lostChunk = chunkMessageSchema.parse(JSON.parse(lost.body)).chunk;
    // A worker claims the chunk and dies (its lease runs out); its message is deleted in flight.
    const claim = await claims.claim(jobId, lostChunk, 'analyze', 'vanished-worker', 2000);
    expect(claim.won).toBe(true);
    await drop(lost);
    // The other chunks are worked normally.
    const worker = h.workerDeps('worker-rest');
    // Four at a time, as a worker process would hold them: all of them at once on one process
    // with 5 s leases can starve heartbeats on a loaded machine.
    const outcomes: Awaited<ReturnType<typeof processChunk>>[] = [];
    const queue = [...rest];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) outcomes.push(await processChunk(d, worker));
      }),
    );
    expect(outcomes).toHaveLength(rest.length);
    expect(outcomes.every((o) => o.action === 'ack')).toBe(true);
    for (const d of rest) await drop(d);
    expect((await h.jobs.get(jobId)).chunksTerminal).toBe(job.chunkCount - 1);

    // A batch worker drains whatever the sweeper re-sends.
    h.pipeline.addBatchWorker();
    const ended = await h.waitForEnd(jobId, 90_000);
    expect(ended.status).toBe('completed');
    expect(ended.chunksDone).toBe(job.chunkCount);
    const swept = await claims.get(jobId, lostChunk, 'analyze');
    expect(swept?.status).toBe('done');
    expect(swept?.sweeps).toBeGreaterThanOrEqual(1);
    expect(swept?.sweptAt).toBeDefined();
    expect(successes() - before).toBe(callsAsked(ended));
    expect(duplicateBilledCalls(h.bedrock.accounting())).toEqual(duplicatesBefore);
  }, 120_000);
});
