import { ChangeMessageVisibilityCommand, DeleteMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Delivery, Disposition } from './process-chunk.js';

/**
 * Carries out a retry's visibility backoff (tier 2): the message stays in the queue and
 * returns after the given seconds; SQS counts the receive toward maxReceiveCount.
 */
export async function applyRetryVisibility(
  sqs: SQSClient,
  delivery: Delivery,
  disposition: Disposition,
): Promise<void> {
  if (disposition.action !== 'retry' || disposition.visibilitySeconds === undefined) return;
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: delivery.queueUrl,
      ReceiptHandle: delivery.receiptHandle,
      VisibilityTimeout: Math.min(43_200, Math.max(0, Math.round(disposition.visibilitySeconds))),
    }),
  );
}

/** Deletes an acknowledged message (pollers only: Lambda's event source deletes for us). */
export async function deleteDelivery(sqs: SQSClient, delivery: Delivery): Promise<void> {
  await sqs.send(
    new DeleteMessageCommand({ QueueUrl: delivery.queueUrl, ReceiptHandle: delivery.receiptHandle }),
  );
}
