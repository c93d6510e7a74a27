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
  /**
   * How it scales up to `maxConcurrency` while messages keep coming: invocations at once when
   * a backlog appears, and how many more each second. @default AWS's: five, then five more a second
   */
  readonly scaling?: { readonly initial: number; readonly perSecond: number };
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
 * How an SQS event source mapping scales (docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html):
 * "When messages are available, Lambda starts processing five batches at a time with five
 * concurrent invocations of your function. If messages are still available, Lambda increases
 * the number of processes that are reading batches by up to 300 more instances per minute."
 */
export const SQS_MAPPING_SCALING = { initial: 5, perSecond: 300 / 60 } as const;

/**
 * Drives a Lambda SQS handler the way the SQS event source mapping does: long-polls the
 * queue, hands batches of records (with the same fields Lambda sends) to the handler, deletes
 * the records the handler did not report in `batchItemFailures`, and leaves the failed ones
 * to come back after their visibility timeout. A handler that throws fails the whole batch.
 *
 * Like the mapping, it scales its pollers with the backlog: while the queue is empty only two
 * keep polling; a receive that brings messages wakes five, and while messages keep coming five
 * more each second, up to `maxConcurrency` ({@link SQS_MAPPING_SCALING}); once the queue is
 * drained and nothing runs, it starts from five again. An idle lane of 20 pollers so asks
 * twice a second rather than 20 times, and a burst of chunks starts the way it would in
 * Lambda, a few invocations first, rather than twenty at the same moment.
 */
export class LocalSqsEventSource {
  private readonly stopController = new AbortController();
  private readonly loops: Promise<void>[] = [];
  /** Pollers inside a receive now. */
  private polling = 0;
  /** Resting pollers, woken by the next receive that brings messages (or by stop). */
  private resting: (() => void)[] = [];
  /** Pollers not resting. */
  private awake = 0;
  /** Invocations running now. */
  private invoking = 0;
  /** Pollers that may be awake (receiving or invoking) now, raised while messages keep coming. */
  private allowed: number;
  /** A receive brought messages since the last scaling step. */
  private backlog = false;
  private scaler: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: LocalEventSourceOptions) {
    this.allowed = this.initial();
  }

  /** Starts the pollers. */
  start(): this {
    const n = this.max();
    // Every poller's long poll listens on the one stop signal.
    setMaxListeners(0, this.stopController.signal);
    for (let i = 0; i < n; i++) this.loops.push(this.loop());
    const perSecond = this.options.scaling?.perSecond ?? SQS_MAPPING_SCALING.perSecond;
    this.scaler = setInterval(() => {
      if (!this.backlog) return;
      this.backlog = false;
      this.allowed = Math.min(n, this.allowed + perSecond);
      this.wakeResting();
    }, 1000);
    this.scaler.unref();
    return this;
  }

  /** Stops receiving and waits for invocations in progress. */
  async stop(): Promise<void> {
    this.stopController.abort();
    clearInterval(this.scaler);
    this.wakeResting();
    await Promise.allSettled(this.loops);
  }

  /** How many pollers are receiving, and how many rest until messages come. */
  pollers(): { polling: number; resting: number } {
    return { polling: this.polling, resting: this.resting.length };
  }

  /** Invocations running now, and how many the scaling allows at this moment. */
  concurrency(): { invoking: number; allowed: number } {
    return { invoking: this.invoking, allowed: Math.floor(this.allowed) };
  }

  private max(): number {
    return this.options.maxConcurrency ?? 2;
  }

  private initial(): number {
    return Math.min(this.max(), this.options.scaling?.initial ?? SQS_MAPPING_SCALING.initial);
  }

  /** Wakes resting pollers up to what the scaling allows (all of them once stopping). */
  private wakeResting(): void {
    const room = this.stopController.signal.aborted
      ? this.resting.length
      : Math.floor(this.allowed) - this.awake;
    for (const wake of this.resting.splice(0, Math.max(0, room))) wake();
  }

  private async rest(): Promise<void> {
    this.awake--;
    await new Promise<void>((wake) => this.resting.push(wake));
    this.awake++;
  }

  private async loop(): Promise<void> {
    const o = this.options;
    const signal = this.stopController.signal;
    const name = o.queueArn.split(':').at(-1) ?? 'queue';
    this.awake++;
    while (!signal.aborted) {
      // More pollers awake than the scaling allows yet: wait to be woken.
      if (this.awake > Math.floor(this.allowed)) {
        await this.rest();
        continue;
      }
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
        // Drained, and nothing running: the next burst starts from the first step again.
        if (this.invoking === 0) this.allowed = this.initial();
        // Rest while enough others keep polling; the last ones go on asking.
        if (this.polling >= STANDING_POLLERS) await this.rest();
        continue;
      }
      // Messages came: wake resting pollers, as many as the scaling allows, for the rest of the backlog.
      this.backlog = true;
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
      this.invoking++;
      try {
        const response = await o.handler({ Records: records }, context(`local-${name}`));
        failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      } catch (e) {
        error = e;
        failed = new Set(records.map((r) => r.messageId));
      } finally {
        this.invoking--;
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
