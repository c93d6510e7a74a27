/**
 * A batch worker can die at any point after a receive, before its chunk's heartbeat holds the
 * message: its chunk must come back to another worker within twice the lease, as it does when
 * the worker dies holding it, not after the queue's visibility timeout.
 */
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChunkMessage } from '../../lambdas/core/worker/chunk-message.js';
import { messageHoldSeconds } from '../../lambdas/core/worker/heartbeat.js';
import { runPoller } from '../../lambdas/core/worker/poller.js';
import type { WorkerDeps } from '../../lambdas/core/worker/process-chunk.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { provisionTestStack } from '../helpers/local-aws.js';

const stack = await provisionTestStack('pollerdeath');
const bedrock = new BedrockRuntimeClient({ region: LOCAL_REGION });
afterAll(() => bedrock.destroy());

const LEASE_MS = 5000;

describe('a batch worker that dies between a receive and its chunk heartbeat', () => {
  it("leaves the chunk's message to come back within twice the lease, not after the queue's visibility timeout", async () => {
    const url = stack.resources.queueUrls.batch;
    const hold = messageHoldSeconds(LEASE_MS);
    // What the test tells apart: the queue's own timeout is far longer than the hold.
    expect(stack.topology.queues.batch.visibilityTimeoutSeconds).toBeGreaterThan(10 * hold);
    const message: ChunkMessage = {
      v: 1,
      jobId: 'j-poller-death',
      chunk: 0,
      lane: 'batch',
      clauses: [{ index: 0, id: 'c0001', start: 0, end: 5, text: 'Terms' }],
    };
    const sent = await stack.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(message) }),
    );

    // The worker dies at its chunk's first state read, the step after the receive: the
    // abort stops its loop, and the read never answers. Nothing holds the message after that.
    const death = new AbortController();
    const frozen = {
      send: () => {
        death.abort();
        return Promise.reject(new Error('the worker died here'));
      },
    } as unknown as DynamoDBDocumentClient;
    const deps: WorkerDeps = {
      db: frozen,
      sqs: stack.clients.sqs,
      bedrock,
      tableName: stack.resources.tableName,
      finalizeQueueUrl: stack.resources.queueUrls.finalize,
      workerId: 'worker-dies',
      leaseMs: LEASE_MS,
      callConcurrency: 1,
      modelTimeoutMs: 1000,
      redeliveryBackoffSeconds: [1],
    };
    const outcomes: string[] = [];
    await runPoller(deps, {
      queueUrl: url,
      waitSeconds: 1,
      signal: death.signal,
      onDisposition: (_d, outcome) => outcomes.push(outcome),
    });
    expect(outcomes).toEqual(['error: Error: the worker died here']);
    const diedAt = Date.now();

    // Another worker asks. The message is hidden for the hold, then back: the wait is the
    // hold plus a few seconds for the emulator's visibility tick (LocalStack's is about one
    // second late), far inside the queue's 300 s.
    let again: { MessageId?: string; Attributes?: Record<string, string> } | undefined;
    while (!again && Date.now() < diedAt + (hold + 5) * 1000) {
      const r = await stack.clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: url,
          WaitTimeSeconds: 1,
          VisibilityTimeout: 30,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
      );
      again = r.Messages?.[0];
    }
    expect(again?.MessageId).toBe(sent.MessageId);
    expect(again?.Attributes?.ApproximateReceiveCount).toBe('2');
  }, 60_000);
});
