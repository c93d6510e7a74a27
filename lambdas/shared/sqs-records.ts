import type { SQSRecord } from 'aws-lambda';
import type { Delivery } from '../core/worker/process-chunk.js';

/**
 * The queue URL of a record: the configured URL whose queue name matches the record's
 * source ARN. Config URLs are used (not URLs rebuilt from the ARN) so emulators work too.
 */
export function queueUrlOf(record: SQSRecord, knownUrls: readonly string[]): string {
  const name = record.eventSourceARN.split(':').at(-1);
  const url = knownUrls.find((u) => u.split('/').at(-1) === name);
  if (!url)
    throw new Error(`no configured queue URL for ${record.eventSourceARN} (known: ${knownUrls.join(', ')})`);
  return url;
}

/** A Lambda SQS record as the worker core's delivery. */
export function deliveryOf(record: SQSRecord, knownUrls: readonly string[]): Delivery {
  return {
    messageId: record.messageId,
    receiptHandle: record.receiptHandle,
    body: record.body,
    receiveCount: Number(record.attributes.ApproximateReceiveCount ?? '1'),
    queueUrl: queueUrlOf(record, knownUrls),
  };
}
