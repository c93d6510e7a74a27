/**
 * A parse the wall clock cuts short with CPU time to spare (a busy machine, not a costly
 * document) is not a rejection: intake puts the intake message back with a backoff and reads the
 * upload again, and only on the queue's last receive says the job could not be read under load
 * (`parse-timeout-under-load`), distinct from `too-complex`; nothing reaches the dead-letter queue.
 * Here every parse is cut short (a wall clock of 1 ms), so every receive of the message is used.
 */
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS } from '../../lambdas/core/documents/index.js';
import { startHarness } from '../helpers/pipeline.js';

const h = await startHarness('busyretry', {
  settings: { redeliveryBackoffSeconds: [1] },
  pipeline: {
    intakeOverrides: { documentLimits: { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 60_000, parseWallMs: 1 } },
  },
});

async function messages(sqs: SQSClient, url: string): Promise<number> {
  const r = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(r.Attributes?.ApproximateNumberOfMessages) +
    Number(r.Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
}

describe('an upload whose parse a busy machine cuts short', () => {
  it('is read again after a backoff on every receive, and rejected as parse-timeout-under-load on the last', async () => {
    // Text whose splitting takes a while: the 1 ms wall clock always stops it first.
    const slow = new TextEncoder().encode('1. '.repeat(200_000));
    const jobId = await h.upload('slow.txt', slow);
    const receives = h.stack.topology.queues.intake.maxReceiveCount;
    const job = await h.waitForEnd(jobId, 60_000);
    expect(job.status).toBe('rejected');
    expect(job.rejection).toBe('parse-timeout-under-load');
    expect(job.reason).toMatch(
      new RegExp(
        `^The service was too busy to read the document: reading it was cut short on each of ${receives} tries`,
      ),
    );
    expect(job.reason).toMatch(/Nothing was found wrong with the document: upload it again later\.$/);
    expect(job.bytes).toBe(slow.length);
    expect(await messages(h.pipeline.clients.sqs, h.stack.resources.dlqUrls.intake)).toBe(0);
  }, 90_000);
});
