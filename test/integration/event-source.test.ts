/**
 * The local SQS event source on the emulator: it scales its pollers with the backlog as the
 * event source mapping does. An empty queue keeps two polling and the rest resting; a burst
 * starts five invocations, then five more each second while messages keep coming, up to
 * `maxConcurrency`; once the queue is drained they rest again and the next burst starts from
 * five, and stop ends resting pollers too.
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
  it('keeps two pollers asking an empty queue, wakes five for a burst, five more a second, and rests them again', async () => {
    const q = await queue();
    let running = 0;
    let most = 0;
    let handled = 0;
    // The most invocations running at once beyond what the scaling allowed at that moment.
    let over = 0;
    let release: () => void = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    const source = new LocalSqsEventSource({
      sqs: clients.sqs,
      queueUrl: q.url,
      queueArn: q.arn,
      region: LOCAL_REGION,
      maxConcurrency: 12,
      handler: async (event) => {
        running++;
        most = Math.max(most, running);
        over = Math.max(over, running - source.concurrency().allowed);
        await released;
        running--;
        handled += event.Records.length;
        return { batchItemFailures: [] };
      },
    }).start();
    try {
      await until('ten of twelve pollers resting', () => source.pollers().resting === 10);
      expect(source.pollers().polling).toBeLessThanOrEqual(2);

      const burst = async (n: number, tag: string) => {
        for (let i = 0; i < n; i += 10) {
          await clients.sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: q.url,
              Entries: Array.from({ length: Math.min(10, n - i) }, (_, j) => ({
                Id: String(j),
                MessageBody: `${tag}${i + j}`,
              })),
            }),
          );
        }
      };
      await burst(14, 'a');
      // Five invocations first, as the mapping starts; the rest wait for the next step.
      await until('five invocations at once', () => running === 5);
      expect(source.concurrency().allowed).toBe(5);
      // Messages are still there, so a second later ten, then the most allowed, every message
      // in an invocation of its own, never more at once than the step allowed.
      await until('ten invocations at once', () => running === 10);
      await until('twelve invocations at once', () => running === 12);
      expect(most).toBe(12);
      expect(over).toBe(0);
      release();
      await until('every message handled', () => handled === 14);
      await until('the pollers resting again', () => source.pollers().resting === 10);
      // Drained with nothing running: the next burst starts from five again.
      expect(source.concurrency()).toEqual({ invoking: 0, allowed: 5 });
    } finally {
      release();
      await source.stop();
    }
    expect(source.pollers()).toEqual({ polling: 0, resting: 0 });
  });
});
