/**
 * Chunk messages carry their job's owner as MessageGroupId, the tenant of the lanes' standard
 * queues as fair queues (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues.html),
 * and a dead letter moved back to its lane keeps it. Through the real SQS client on the run's
 * ground (moto's launcher, or LocalStack, which both keep a standard queue's MessageGroupId).
 */
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { moveBack, receiveAll } from '../../lambdas/core/dlq/dead-letter-queue.js';
import { messageGroupOf, UNOWNED_GROUP } from '../../lambdas/core/intake/message-group.js';
import { sendChunkMessages } from '../../lambdas/core/intake/stored-document.js';
import type { ChunkMessage } from '../../lambdas/core/worker/chunk-message.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('tenants');
const { sqs } = stack.clients;
const lane = stack.resources.queueUrls.realtime;
const ALICE = 'arn:aws:iam::000000000000:user/alice';
const LONG = `arn:aws:sts::000000000000:assumed-role/${'R'.repeat(64)}/${'s'.repeat(64)}`;

const chunks = (jobId: string, n: number): ChunkMessage[] =>
  Array.from({ length: n }, (_, chunk) => ({ v: 1, jobId, chunk, lane: 'realtime', clauses: [] }));

/** Every message of the queue (held invisible), with its MessageGroupId, keyed by body. */
async function groupsOf(queueUrl: string, count: number): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  const deadline = Date.now() + 20_000;
  while (out.size < count && Date.now() < deadline) {
    const r = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 300,
        MessageSystemAttributeNames: ['MessageGroupId'],
      }),
    );
    for (const m of r.Messages ?? []) out.set(m.Body ?? '', m.Attributes?.MessageGroupId);
  }
  return out;
}

describe('chunk messages on a lane queue', () => {
  it("carry the job's owner as MessageGroupId, a hash of an owner too long for one, and 'unowned' without one", async () => {
    await sendChunkMessages(sqs, lane, chunks('j-alice', 12), ALICE);
    await sendChunkMessages(sqs, lane, chunks('j-long', 2), LONG);
    await sendChunkMessages(sqs, lane, chunks('j-nobody', 2), undefined);
    const groups = await groupsOf(lane, 16);
    const of = (jobId: string) =>
      [...groups].filter(([b]) => JSON.parse(b).jobId === jobId).map(([, g]) => g);
    expect(of('j-alice')).toEqual(Array(12).fill(ALICE));
    expect(of('j-long')).toEqual(Array(2).fill(messageGroupOf(LONG)));
    expect(messageGroupOf(LONG)).toMatch(/^owner-sha256:[0-9a-f]{64}$/);
    expect(of('j-nobody')).toEqual(Array(2).fill(UNOWNED_GROUP));
  });

  it('keep their MessageGroupId when triage moves them back from the dead-letter queue', async () => {
    const dlq = stack.resources.dlqUrls.batch;
    const source = stack.resources.queueUrls.batch;
    const body = JSON.stringify(chunks('j-dead', 1)[0]);
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: body, MessageGroupId: ALICE }));
    const [dead] = await receiveAll(sqs, dlq, { max: 1 });
    expect(dead?.groupId).toBe(ALICE);
    if (!dead) throw new Error('no dead letter');
    await moveBack(sqs, dlq, source, dead);
    expect([...(await groupsOf(source, 1))]).toEqual([[body, ALICE]]);
  });
});
