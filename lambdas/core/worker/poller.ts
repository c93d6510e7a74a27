import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { applyRetryVisibility, deleteDelivery } from './disposition.js';
import { type Delivery, processChunk, type WorkerDeps } from './process-chunk.js';

/** Options of the long-running batch-lane poller. */
export interface PollerOptions {
  readonly queueUrl: string;
  /** Chunks processed at once by this process. @default 2 */
  readonly concurrency?: number;
  /** Long-poll wait. @default 20 */
  readonly waitSeconds?: number;
  /** Stops receiving; chunks in progress finish (or are abandoned to redelivery if they overrun). */
  readonly signal: AbortSignal;
  /** Called after each delivery with what happened to it. */
  readonly onDisposition?: (delivery: Delivery, outcome: string) => void;
}

/**
 * The batch lane's worker loop (a Fargate task): receive, process with the same core as the
 * Lambda handler, delete what is acknowledged, give the rest its visibility backoff.
 */
export async function runPoller(deps: WorkerDeps, options: PollerOptions): Promise<void> {
  const concurrency = options.concurrency ?? 2;
  const inFlight = new Set<Promise<void>>();
  const log = deps.log ?? (() => {});
  while (!options.signal.aborted) {
    const free = concurrency - inFlight.size;
    if (free <= 0) {
      await Promise.race(inFlight);
      continue;
    }
    let messages: Message[];
    try {
      const r = await deps.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: Math.min(10, free),
          WaitTimeSeconds: options.waitSeconds ?? 20,
          MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        }),
        { abortSignal: options.signal as never },
      );
      messages = r.Messages ?? [];
    } catch (error) {
      if (options.signal.aborted) break;
      log('receive-failed', { error: String(error) });
      await new Promise((r) => setTimeout(r, 1000));
      continue;
    }
    for (const m of messages) {
      const delivery: Delivery = {
        messageId: m.MessageId ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        body: m.Body ?? '',
        receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? '1'),
        queueUrl: options.queueUrl,
      };
      const task = (async () => {
        try {
          const disposition = await processChunk(delivery, deps);
          if (disposition.action === 'ack') await deleteDelivery(deps.sqs, delivery);
          else await applyRetryVisibility(deps.sqs, delivery, disposition);
          options.onDisposition?.(
            delivery,
            disposition.action === 'ack' ? disposition.outcome : disposition.reason,
          );
        } catch (error) {
          // Left alone, the message returns after its visibility timeout: an infrastructure retry.
          log('chunk-failed', { messageId: delivery.messageId, error: String(error) });
          options.onDisposition?.(delivery, `error: ${String(error)}`);
        }
      })();
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    }
  }
  await Promise.allSettled(inFlight);
}
