import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

/** A Lambda SQS handler. */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | undefined>;

/** Options of {@link LocalSqsEventSource}. */
export interface LocalEventSourceOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly region: string;
  readonly handler: SqsHandler;
  /** Records per invocation, like the event source mapping's BatchSize. @default 1 */
  readonly batchSize?: number;
  /** Concurrent invocations, like ScalingConfig.MaximumConcurrency. @default 2 */
  readonly maxConcurrency?: number;
  /** Long-poll wait per receive. @default 1 */
  readonly waitSeconds?: number;
  /** Called after each invocation. */
  readonly onInvoke?: (info: { records: number; failures: number; error?: unknown }) => void;
}

function context(functionName: string): Context {
  const deadline = Date.now() + 900_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${randomUUID()}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

/**
 * Pollers that keep asking while the queue is empty, as an event source mapping keeps its
 * minimum of two; the others rest until a receive brings messages.
 */
const STANDING_POLLERS = 2;

/**
 * Drives a Lambda SQS handler the way the SQS event source mapping does: long-polls the
 * queue, hands batches of records (with the same fields Lambda sends) to the handler, deletes
 * the records the handler did not report in `batchItemFailures`, and leaves the failed ones
 * to come back after their visibility timeout. A handler that throws fails the whole batch.
 *
 * Like the mapping, it scales its pollers with the backlog: while the queue is empty only two
 * keep polling, and a receive that brings messages wakes the rest, up to `maxConcurrency`.
 * An idle lane of 20 pollers so asks twice a second rather than 20 times, a steady load on
 * the emulator that does nothing.
 */
export class LocalSqsEventSource {
  private readonly stopController = new AbortController();
  private readonly loops: Promise<void>[] = [];
  /** Pollers inside a receive now. */
  private polling = 0;
  /** Resting pollers, woken by the next receive that brings messages (or by stop). */
  private resting: (() => void)[] = [];

  constructor(private readonly options: LocalEventSourceOptions) {}

  /** Starts the pollers. */
  start(): this {
    const n = this.options.maxConcurrency ?? 2;
    // Every poller's long poll listens on the one stop signal.
    setMaxListeners(0, this.stopController.signal);
    for (let i = 0; i < n; i++) this.loops.push(this.loop());
    return this;
  }

  /** Stops receiving and waits for invocations in progress. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.wakeResting();
    await Promise.allSettled(this.loops);
  }

  /** How many pollers are receiving, and how many rest until messages come. */
  pollers(): { polling: number; resting: number } {
    return { polling: this.polling, resting: this.resting.length };
  }

  private wakeResting(): void {
    for (const wake of this.resting.splice(0)) wake();
  }

  private async loop(): Promise<void> {
    const o = this.options;
    const signal = this.stopController.signal;
    const name = o.queueArn.split(':').at(-1) ?? 'queue';
    while (!signal.aborted) {
      let messages: Message[];
      this.polling++;
      try {
        const r = await o.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: o.queueUrl,
            MaxNumberOfMessages: Math.min(10, o.batchSize ?? 1),
            WaitTimeSeconds: o.waitSeconds ?? 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: signal as never },
        );
        messages = r.Messages ?? [];
      } catch (error) {
        if (signal.aborted) return;
        o.onInvoke?.({ records: 0, failures: 0, error });
        await new Promise((r) => setTimeout(r, 200));
        continue;
      } finally {
        this.polling--;
      }
      if (messages.length === 0) {
        // Rest while enough others keep polling; the last ones go on asking.
        if (this.polling >= STANDING_POLLERS) await new Promise<void>((wake) => this.resting.push(wake));
        continue;
      }
      // Messages came: wake every resting poller to take the rest of the backlog.
      this.wakeResting();
      const records: SQSRecord[] = messages.map((m) => ({
        messageId: m.MessageId ?? '',
        receiptHandle: m.ReceiptHandle ?? '',
        body: m.Body ?? '',
        attributes: {
          ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
          SenderId: m.Attributes?.SenderId ?? 'local',
          ApproximateFirstReceiveTimestamp:
            m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: m.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: o.queueArn,
        awsRegion: o.region,
      }));
      let failed = new Set<string>();
      let error: unknown;
      try {
        const response = await o.handler({ Records: records }, context(`local-${name}`));
        failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (e) {
        error = e;
        failed = new Set(records.map((r) => r.messageId));
      }
      const done = records.filter((r) => !failed.has(r.messageId));
      if (done.length > 0) {
        await o.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: o.queueUrl,
            Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
          }),
        );
      }
      o.onInvoke?.({ records: records.length, failures: failed.size, ...(error ? { error } : {}) });
    }
  }
}
