import { ChangeMessageVisibilityCommand, DeleteMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** One delivery of a chunk message, as either entry point sees it. */
export interface Delivery {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** SQS's ApproximateReceiveCount of this delivery (1 for the first). */
  readonly receiveCount: number;
  /** The queue it came from, for visibility changes. */
  readonly queueUrl: string;
}

/** What to do with the message: delete it, or leave it to come back after `visibilitySeconds`. */
export type Disposition =
  | { readonly action: 'ack'; readonly outcome: string }
  | { readonly action: 'retry'; readonly reason: string; readonly visibilitySeconds?: number };

/** The tier-2 backoff for a delivery: 30 s after the first, 2 min after the second, 5 min after. */
export function redeliveryDelay(receiveCount: number, schedule: readonly number[]): number {
  const i = Math.min(Math.max(receiveCount, 1), schedule.length) - 1;
  return schedule[i] ?? 0;
}

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
