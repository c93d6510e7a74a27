/**
 * SQS fair queues on the moto launcher, through the real SQS client: a standard queue whose
 * messages carry a MessageGroupId per tenant delivers a quiet tenant's message ahead of a noisy
 * tenant's backlog, and drops nothing
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html).
 *
 * The ground asserted on is the moto launcher this file starts itself (localstack/moto_serve.py
 * with moto_fair_queues.py), on every run, LocalStack runs included: LocalStack 2026.3 keeps a
 * standard queue's MessageGroupId but serves its visible messages from one priority queue in
 * send order (`StandardQueue` in localstack-core/localstack/services/sqs/models.py has no
 * tenant measure), so there a quiet tenant's message waits behind the whole backlog, as on
 * stock moto. The last case shows that order on the launcher with the model turned off.
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { type MotoServer, startMotoServer } from '../../localstack/moto-server.js';

const BACKLOG = 300;
const servers: MotoServer[] = [];
const clients: SQSClient[] = [];
let sqs: SQSClient;
let queues = 0;

async function ground(fairQueues: boolean): Promise<SQSClient> {
  const moto = await startMotoServer({ fairQueues });
  servers.push(moto);
  const client = new SQSClient({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  clients.push(client);
  return client;
}

beforeAll(async () => {
  sqs = await ground(true);
}, 60_000);
afterAll(async () => {
  for (const c of clients) c.destroy();
  await Promise.all(servers.map((s) => s.stop()));
});

async function newQueue(client: SQSClient): Promise<string> {
  const r = await client.send(new CreateQueueCommand({ QueueName: `fair-${++queues}` }));
  return r.QueueUrl ?? '';
}

/** Sends `count` messages of a tenant, numbered from `from` (`quiet-0`, `quiet-1`, …). */
async function send(client: SQSClient, url: string, tenant: string, count: number, from = 0): Promise<void> {
  for (let i = 0; i < count; i += 10) {
    const entries = Array.from({ length: Math.min(10, count - i) }, (_, j) => ({
      Id: String(i + j),
      MessageBody: `${tenant}-${from + i + j}`,
      MessageGroupId: tenant,
    }));
    await client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
  }
}

/** Ten messages held for a minute (not deleted), as a consumer still working on them. */
async function receive(client: SQSClient, url: string): Promise<Message[]> {
  const r = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      VisibilityTimeout: 60,
      MessageSystemAttributeNames: ['MessageGroupId'],
    }),
  );
  return r.Messages ?? [];
}

/** Receives until the quiet tenant's message comes; how many receives that took. */
async function receivesUntil(client: SQSClient, url: string, body: string, limit: number): Promise<number> {
  for (let n = 1; n <= limit; n++) {
    if ((await receive(client, url)).some((m) => m.Body === body)) return n;
  }
  return Number.POSITIVE_INFINITY;
}

/** Receives and deletes until the queue is empty; every body received. */
async function drain(client: SQSClient, url: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let empty = 0; empty < 2; ) {
    const got = await receive(client, url);
    if (got.length === 0) {
      empty++;
      continue;
    }
    empty = 0;
    bodies.push(...got.map((m) => m.Body ?? ''));
    await client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: url,
        Entries: got.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
  return bodies;
}

/** A hot tenant's backlog of 300 with 30 of them in flight, then one message of a quiet tenant. */
async function noisyBacklog(client: SQSClient): Promise<string> {
  const url = await newQueue(client);
  await send(client, url, 'hot', BACKLOG);
  for (let i = 0; i < 3; i++) expect(await receive(client, url)).toHaveLength(10);
  await send(client, url, 'quiet', 1);
  return url;
}

describe('fair queues on the moto launcher', () => {
  it("delivers a quiet tenant's message within a few receives of a noisy tenant's backlog of hundreds", async () => {
    const url = await noisyBacklog(sqs);
    expect(await receivesUntil(sqs, url, 'quiet-0', 30)).toBeLessThanOrEqual(2);
  });

  it('drops nothing: every message of both tenants is received once the queue is drained', async () => {
    const url = await noisyBacklog(sqs);
    await send(sqs, url, 'quiet', 20, 1);
    // The 30 held at first come back after their minute; drain the rest now and count them apart.
    const bodies = await drain(sqs, url);
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(bodies.filter((b) => b.startsWith('quiet-'))).toHaveLength(21);
    expect(bodies.filter((b) => b.startsWith('hot-'))).toHaveLength(BACKLOG - 30);
    // The quiet tenant's 21 all come before the hot tenant's backlog resumes.
    expect(bodies.slice(0, 21).every((b) => b.startsWith('quiet-'))).toBe(true);
  }, 120_000);

  it("puts a tenant whose few messages take the consumers' time behind a tenant sent later (processing time share)", async () => {
    const url = await newQueue(sqs);
    await send(sqs, url, 'slow', 20);
    await send(sqs, url, 'fast', 20);
    const first = await receive(sqs, url);
    expect(first.every((m) => m.Body?.startsWith('slow-'))).toBe(true); // no history yet: send order
    // 10 in flight (fewer than the concurrency measure's 30) held a moment: all the time taken.
    await new Promise((r) => setTimeout(r, 300));
    const next = await receive(sqs, url);
    expect(next.map((m) => m.Body?.split('-')[0])).toEqual(Array(10).fill('fast'));
  });

  it('without the model (moto as it is) the quiet message waits behind the whole backlog', async () => {
    const stock = await ground(false);
    const url = await noisyBacklog(stock);
    expect(await receivesUntil(stock, url, 'quiet-0', 40)).toBe((BACKLOG - 30) / 10 + 1);
  }, 120_000);
});
