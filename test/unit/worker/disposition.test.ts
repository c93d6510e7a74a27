import { ChangeMessageVisibilityCommand, DeleteMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { applyRetryVisibility, deleteDelivery } from '../../../lambdas/core/worker/disposition.js';
import type { Delivery } from '../../../lambdas/core/worker/process-chunk.js';

const sqs = mockClient(SQSClient);
const client = new SQSClient({ region: 'us-east-1' });

const delivery: Delivery = {
  messageId: 'm-1',
  receiptHandle: 'rh-1',
  body: '{}',
  receiveCount: 2,
  queueUrl: 'http://sqs/chunks-batch',
};

function visibilities() {
  return sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);
}

beforeEach(() => {
  sqs.reset();
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  sqs.on(DeleteMessageCommand).resolves({});
});

describe('applyRetryVisibility', () => {
  it('holds a retried message back for its backoff, by its receipt handle', async () => {
    await applyRetryVisibility(client, delivery, { action: 'retry', reason: 'x', visibilitySeconds: 120 });
    expect(visibilities()).toEqual([
      { QueueUrl: 'http://sqs/chunks-batch', ReceiptHandle: 'rh-1', VisibilityTimeout: 120 },
    ]);
  });

  it("keeps the timeout inside SQS's range of 0 to 12 hours, in whole seconds", async () => {
    await applyRetryVisibility(client, delivery, { action: 'retry', reason: 'x', visibilitySeconds: 50_000 });
    await applyRetryVisibility(client, delivery, { action: 'retry', reason: 'x', visibilitySeconds: -3 });
    await applyRetryVisibility(client, delivery, { action: 'retry', reason: 'x', visibilitySeconds: 47.6 });
    expect(visibilities().map((v) => v.VisibilityTimeout)).toEqual([43_200, 0, 48]);
  });

  it('leaves the visibility alone for an ack, or a retry without a backoff', async () => {
    await applyRetryVisibility(client, delivery, { action: 'ack', outcome: 'done' });
    await applyRetryVisibility(client, delivery, { action: 'retry', reason: 'malformed' });
    expect(visibilities()).toHaveLength(0);
  });
});

describe('deleteDelivery', () => {
  it('deletes the message by its receipt handle', async () => {
    await deleteDelivery(client, delivery);
    expect(sqs.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input)).toEqual([
      { QueueUrl: 'http://sqs/chunks-batch', ReceiptHandle: 'rh-1' },
    ]);
  });
});
