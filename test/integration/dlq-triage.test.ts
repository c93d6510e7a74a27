import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { dlqCommand } from '../../bin/commands/dlq.js';
import { DeadLetterRecords, listDeadLetters, triageDeadLetters } from '../../lambdas/core/dlq/index.js';
import { Claims } from '../../lambdas/core/state/claims.js';
import { chunkMessageSchema } from '../../lambdas/core/worker/chunk-message.js';
import { processChunk } from '../../lambdas/core/worker/process-chunk.js';
import { subscribeToAlerts, testDlqDeps } from '../helpers/alerts.js';
import { callsAsked, fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

// Short tier-1 and tier-2 backoffs so a failing chunk reaches its DLQ in seconds; no fallback
// model, so throttling keeps failing; no sweeper, so only triage moves dead letters. Leases are
// the local runs' 20 s: no chunk here should lose its lease (a lost one is classified
// `infrastructure`, not `transient`), and a 5 s lease has run out on a loaded ground.
const h = await startHarness('dlqtriage', {
  settings: { chunkClauses: 3, callConcurrency: 8, leaseSeconds: 20, redeliveryBackoffSeconds: [1, 1, 1] },
  pipeline: {
    batchWorkers: 0,
    sweepIntervalMs: 0,
    workerOverrides: {
      backoff: { baseMs: 20, maxRetries: 1, totalCapMs: 500, throttlesBeforeFallback: 1000 },
    },
  },
});
const { sqs, db } = h.pipeline.clients;
const claims = new Claims(db, h.stack.resources.tableName);
const alerts = await subscribeToAlerts(h.stack, h.stack.clients.sqs, h.stack.clients.sns);
const deps = testDlqDeps(h.stack);

/** Requests the model answers before it throttles: fewer than the 11 calls of one clause. */
const ANSWERED = 7;

function successes(): number {
  return Object.values(h.bedrock.accounting().successes).reduce((n, s) => n + s.count, 0);
}

async function dlqDepth(role: 'realtime' | 'batch'): Promise<number> {
  const r = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: h.stack.resources.dlqUrls[role],
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(r.Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(r.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

describe('a chunk that keeps failing with throttling', () => {
  it('lands in the DLQ, is classified transient and redriven, and completes without re-billing a call', async () => {
    const before = successes();
    // The model's quota admits seven requests a minute, fewer than the 11 calls of the smallest
    // chunk (one clause), so no chunk can finish however its messages are scheduled; once those
    // seven are answered the model throttles everything.
    h.bedrock.setPlan({ capacity: { requestsPerMinute: ANSWERED }, errorRates: {} });
    const jobId = await h.upload(`throttle-${SMALL}`, fixture(SMALL));
    await h.untilCalls(() => successes() - before >= ANSWERED);
    h.bedrock.setPlan({ capacity: { requestsPerMinute: null }, errorRates: { ThrottlingException: 1 } });

    const job = await (async () => {
      for (;;) {
        const j = await h.jobs.get(jobId);
        if (j.fanoutCompletedAt) return j;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    // Three receives, then the local event source's next receive makes moto move each message.
    const deadline = Date.now() + 150_000;
    while ((await dlqDepth('realtime')) < job.chunkCount) {
      if (Date.now() > deadline)
        throw new Error(`only ${await dlqDepth('realtime')} of ${job.chunkCount} chunks dead-lettered`);
      await new Promise((r) => setTimeout(r, 500));
    }
    // A message can pass its last receive while the worker that took it is still ending the
    // chunk (its visibility ran out first): the claim is settled once that worker lets go.
    let partial = (await claims.list(jobId)).filter((c) => c.stage === 'analyze');
    while (partial.some((c) => c.status === 'running') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      partial = (await claims.list(jobId)).filter((c) => c.stage === 'analyze');
    }
    expect(partial.map((c) => `${c.chunk}: ${c.status} ${c.errorClass} ${c.lastError ?? ''}`)).toEqual(
      partial.map((c) => `${c.chunk}: retrying transient ${c.lastError ?? ''}`),
    );
    const answeredBefore = successes() - before;
    expect(answeredBefore).toBe(ANSWERED);

    // `dlq ls` shows every chunk, transient, with its last error.
    const rows = await listDeadLetters(deps);
    const mine = rows.filter((r) => r.jobId === jobId);
    expect(mine.map((r) => r.chunk).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      Array.from({ length: job.chunkCount }, (_, i) => i),
    );
    expect(mine.every((r) => r.errorClass === 'transient' && /Throttling/.test(r.lastError ?? ''))).toBe(
      true,
    );
    const printed: string[] = [];
    expect(await dlqCommand(['ls'], { ...h.stack, print: (l) => printed.push(l) })).toBe(0);
    expect(printed.join('\n')).toMatch(new RegExp(`realtime\\s+${jobId}\\s+0\\s+transient`));

    // The model recovers; triage redrives every chunk to the realtime queue.
    h.bedrock.setPlan({ errorRates: { ThrottlingException: 0 } });
    const summary = await triageDeadLetters(deps);
    const decided = summary.decisions.filter((d) => d.jobId === jobId);
    expect(decided).toHaveLength(job.chunkCount);
    expect(decided.every((d) => d.decision === 'redriven' && d.errorClass === 'transient')).toBe(true);

    const ended = await h.waitForEnd(jobId, 90_000);
    expect(ended.status).toBe('completed');
    // Calls answered before the DLQ were reused from the ledger, not made again.
    expect(successes() - before).toBe(callsAsked(ended));
    expect(await h.billedTwice(jobId)).toEqual([]);
    const checkpoints = await claims.list(jobId);
    expect(
      checkpoints.filter((c) => c.stage === 'analyze').every((c) => c.redrives === 1 && c.redrivenAt),
    ).toBe(true);
    const records = await new DeadLetterRecords(db, h.stack.resources.tableName).between(
      new Date(Date.now() - 600_000).toISOString(),
      new Date().toISOString(),
    );
    expect(records.filter((r) => r.jobId === jobId && r.decision === 'redriven')).toHaveLength(
      job.chunkCount,
    );
    const sent = await alerts.take();
    expect(sent.some((a) => a.context.jobId === jobId && a.context.decision === 'redriven')).toBe(true);
  }, 240_000);
});

describe('a dead letter with a permanent failure', () => {
  it('is marked dead, the job ends incomplete with the reason, an alert is published and a record written', async () => {
    h.bedrock.setPlan({ capacity: { requestsPerMinute: null }, errorRates: { ThrottlingException: 0 } });
    const jobId = await h.upload(`logic-${MEDIUM}`, fixture(MEDIUM), { lane: 'batch' });
    let job = await h.jobs.find(jobId);
    while (!job?.fanoutCompletedAt) {
      await new Promise((r) => setTimeout(r, 100));
      job = await h.jobs.find(jobId);
    }
    const deliveries = await h.takeChunkMessages('batch', job.chunkCount);
    const [doomed, ...rest] = deliveries.sort((a, b) => JSON.parse(a.body).chunk - JSON.parse(b.body).chunk);
    if (!doomed) throw new Error('no delivery');
    const chunk = chunkMessageSchema.parse(JSON.parse(doomed.body)).chunk;
    const worker = h.workerDeps('worker-logic');
    for (const d of rest) {
      expect((await processChunk(d, worker)).action).toBe('ack');
      await sqs.send(new DeleteMessageCommand({ QueueUrl: d.queueUrl, ReceiptHandle: d.receiptHandle }));
    }
    // A worker fails the chunk permanently and releases it; after its last receive SQS moves
    // the message to the DLQ (sent there directly: moto moves it only on a later receive).
    const claim = await claims.claim(jobId, chunk, 'analyze', 'worker-denied', 5000);
    if (!claim.won) throw new Error('claim lost');
    await claims.release(claim.lease, {
      lastError: "AccessDeniedException: You don't have access to the model with the specified model ID.",
      errorClass: 'logic',
    });
    await sqs.send(
      new SendMessageCommand({ QueueUrl: h.stack.resources.dlqUrls.batch, MessageBody: doomed.body }),
    );
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: doomed.queueUrl, ReceiptHandle: doomed.receiptHandle }),
    );

    const summary = await triageDeadLetters(deps);
    const decided = summary.decisions.find((d) => d.jobId === jobId);
    expect(decided).toMatchObject({ chunk, errorClass: 'logic', decision: 'dead', queue: 'batch' });

    const ended = await h.waitForEnd(jobId, 30_000);
    expect(ended.status).toBe('incomplete');
    expect(ended.reason).toContain(`chunk ${chunk} dead (dead letter: logic`);
    expect(ended.reason).toContain('AccessDeniedException');
    const cp = await claims.get(jobId, chunk, 'analyze');
    expect(cp).toMatchObject({ status: 'dead', errorClass: 'logic' });

    const records = await new DeadLetterRecords(db, h.stack.resources.tableName).between(
      new Date(Date.now() - 600_000).toISOString(),
      new Date().toISOString(),
    );
    const record = records.find((r) => r.jobId === jobId);
    expect(record).toMatchObject({
      queue: 'batch',
      chunk,
      stage: 'analyze',
      errorClass: 'logic',
      decision: 'dead',
    });
    expect(record?.lastError).toContain('AccessDeniedException');

    const sent = await alerts.take();
    const alert = sent.find((a) => a.context.jobId === jobId);
    expect(alert?.subject).toBe('clause-review dead letter: logic, dead (batch)');
    expect(alert?.context).toMatchObject({
      chunk,
      errorClass: 'logic',
      decision: 'dead',
      kind: 'dead-letter',
    });
    expect(String(alert?.context.reason)).toContain('AccessDeniedException');
    // Nothing is left behind in the DLQ.
    const left = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: h.stack.resources.dlqUrls.batch, WaitTimeSeconds: 1 }),
    );
    expect(left.Messages ?? []).toEqual([]);
    // Seventeen chunks analysed one after another by one worker: on LocalStack, beside the rest
    // of the suite on two cores, that has taken 70 s and more.
  }, 180_000);
});
