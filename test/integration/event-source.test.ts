/**
 * The local SQS event source on the emulator: it scales its pollers with the backlog as the
 * event source mapping does. An empty queue keeps two polling and the rest resting; a burst
 * wakes them all, so every message is handled at once up to `maxConcurrency`; once the queue
 * is drained they rest again, and stop ends resting pollers too.
 */
import { CreateQueueCommand, GetQueueAttributesCommand, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, it } from 'vitest';
import { emulatorClients, LOCAL_REGION } from '../../localstack/aws-clients.js';
import { LocalSqsEventSource } from '../../localstack/runtime/event-source.js';
import { awsEndpoint, uniquePrefix } from '../helpers/local-aws.js';

const clients = emulatorClients(awsEndpoint());
afterAll(() => clients.destroy());

async function queue(): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await clients.sqs.send(new CreateQueueCommand({ QueueName: uniquePrefix('source') }));
  const url = QueueUrl ?? '';
  const { Attributes } = await clients.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return { url, arn: Attributes?.QueueArn ?? '' };
}

/** Resolves once `predicate` holds, checking every 50 ms; names `what` when it never does. */
async function until(what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`never saw ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('LocalSqsEventSource', () => {
  it('keeps two pollers asking an empty queue, wakes the rest for a burst, and rests them again', async () => {
    const q = await queue();
    let running = 0;
    let most = 0;
    let handled = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    const source = new LocalSqsEventSource({
      sqs: clients.sqs,
      queueUrl: q.url,
      queueArn: q.arn,
      region: LOCAL_REGION,
      maxConcurrency: 6,
      handler: async (event) => {
        running++;
        most = Math.max(most, running);
        await released;
        running--;
        handled += event.Records.length;
        return { batchItemFailures: [] };
      },
    }).start();
    try {
      await until('four of six pollers resting', () => source.pollers().resting === 4);
      expect(source.pollers().polling).toBeLessThanOrEqual(2);

      await clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: q.url,
          Entries: Array.from({ length: 6 }, (_, i) => ({ Id: String(i), MessageBody: `m${i}` })),
        }),
      );
      // Every message in an invocation of its own at the same time: the resting pollers woke.
      await until('six invocations at once', () => running === 6);
      expect(most).toBe(6);
      release();
      await until('every message handled', () => handled === 6);
      await until('the pollers resting again', () => source.pollers().resting === 4);
    } finally {
      release();
      await source.stop();
    }
    expect(source.pollers()).toEqual({ polling: 0, resting: 0 });
  });
});
