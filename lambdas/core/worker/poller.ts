import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { applyRetryVisibility, deleteDelivery } from './disposition.js';
import { messageHoldSeconds } from './heartbeat.js';
import { type Delivery, processChunk, type WorkerDeps } from './process-chunk.js';

/** Options of the long-running batch-lane poller. */
export interface PollerOptions {
  readonly queueUrl: string;
  /**
   * Chunks processed at once by this process. A chunk whose calls have all started (its tail
   * is draining) no longer counts, so the next chunk starts while the tail finishes and the
   * model stays busy across chunk boundaries; at most twice this many are held at once.
   * @default 2
   */
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
 *
 * A message is received already held for {@link messageHoldSeconds}, as the chunk's heartbeat
 * holds it, not for the queue's visibility timeout: a worker that dies between a receive and
 * its chunk's first heartbeat (or whose receive was answered as it died) leaves the message to
 * come back within twice the lease. The queue's own timeout (300 s on the batch lane) would
 * hide it for five minutes, and the sweeper presumes a message lost only after longer still.
 * ReceiveMessage's VisibilityTimeout applies to the messages that receive returns only:
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html
 */
export async function runPoller(deps: WorkerDeps, options: PollerOptions): Promise<void> {
  const concurrency = options.concurrency ?? 2;
  const inFlight = new Set<Promise<void>>();
  let draining = 0;
  let wake: (() => void) | undefined;
  const log = deps.log ?? (() => {});
  while (!options.signal.aborted) {
    const free = Math.min(concurrency - (inFlight.size - draining), 2 * concurrency - inFlight.size);
    if (free <= 0) {
      await Promise.race([...inFlight, new Promise<void>((r) => (wake = r))]);
      wake = undefined;
      continue;
    }
    let messages: Message[];
    try {
      const r = await deps.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: Math.min(10, free),
          WaitTimeSeconds: options.waitSeconds ?? 20,
          VisibilityTimeout: messageHoldSeconds(deps.leaseMs),
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
      let drained = false;
      const onDraining = () => {
        if (drained) return;
        drained = true;
        draining++;
        wake?.();
      };
      const task = (async () => {
        try {
          const disposition = await processChunk(delivery, deps, { onDraining });
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
      void task.finally(() => {
        inFlight.delete(task);
        if (drained) draining--;
      });
    }
  }
  await Promise.allSettled(inFlight);
}
