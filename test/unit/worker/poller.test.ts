import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runPoller } from '../../../lambdas/core/worker/poller.js';
import {
  type Delivery,
  type Disposition,
  processChunk,
  type WorkerDeps,
} from '../../../lambdas/core/worker/process-chunk.js';

// The poller's own job is receiving and disposing; the chunk core is tested on its own.
vi.mock('../../../lambdas/core/worker/process-chunk.js', () => ({ processChunk: vi.fn() }));
const processMock = vi.mocked(processChunk);

const QUEUE_URL = 'http://sqs/chunks-batch';
const sqs = mockClient(SQSClient);
const log = vi.fn();

const deps: WorkerDeps = {
  db: DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
  sqs: new SQSClient({ region: 'us-east-1' }),
  bedrock: new BedrockRuntimeClient({ region: 'us-east-1' }),
  tableName: 'state-table',
  finalizeQueueUrl: 'http://sqs/finalize',
  workerId: 'worker-a',
  leaseMs: 30_000,
  callConcurrency: 4,
  modelTimeoutMs: 60_000,
  redeliveryBackoffSeconds: [30, 120, 300],
  log,
};

function message(n: number, receiveCount = 1): Message {
  return {
    MessageId: `m-${n}`,
    ReceiptHandle: `rh-${n}`,
    Body: `{"n":${n}}`,
    Attributes: { ApproximateReceiveCount: String(receiveCount) },
  };
}

/** Answers receives from a script; once it runs out, stops the poller and answers nothing. */
function receives(controller: AbortController, script: (Message[] | Error)[]) {
  sqs.on(ReceiveMessageCommand).callsFake(() => {
    const next = script.shift();
    if (next === undefined) {
      controller.abort();
      return {};
    }
    if (next instanceof Error) throw next;
    return { Messages: next };
  });
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const receiveInputs = () => sqs.commandCalls(ReceiveMessageCommand).map((c) => c.args[0].input);
const deletes = () => sqs.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input);
const visibilities = () => sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input);

beforeEach(() => {
  sqs.reset();
  sqs.on(DeleteMessageCommand).resolves({});
  sqs.on(ChangeMessageVisibilityCommand).resolves({});
  processMock.mockReset();
  log.mockReset();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('runPoller', () => {
  it('long-polls for as many messages as it has free slots, asking for the receive count', async () => {
    const controller = new AbortController();
    receives(controller, [[]]);
    await runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal, concurrency: 3 });
    expect(receiveInputs()[0]).toEqual({
      QueueUrl: QUEUE_URL,
      MaxNumberOfMessages: 3,
      WaitTimeSeconds: 20,
      // Held for twice the 30 s lease from the receive on, not for the queue's timeout.
      VisibilityTimeout: 60,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    });
  });

  it('receives held for twice the lease, rounded up to whole seconds, whatever the lease', async () => {
    const controller = new AbortController();
    receives(controller, [[]]);
    await runPoller({ ...deps, leaseMs: 6_500 }, { queueUrl: QUEUE_URL, signal: controller.signal });
    expect(receiveInputs()[0]?.VisibilityTimeout).toBe(13);
  });

  it('never asks for more than ten messages, the SQS maximum', async () => {
    const controller = new AbortController();
    receives(controller, []);
    await runPoller(deps, {
      queueUrl: QUEUE_URL,
      signal: controller.signal,
      concurrency: 50,
      waitSeconds: 5,
    });
    expect(receiveInputs()[0]).toMatchObject({ MaxNumberOfMessages: 10, WaitTimeSeconds: 5 });
  });

  it('hands each message to the chunk core as a delivery with its receive count', async () => {
    const controller = new AbortController();
    receives(controller, [[message(1, 3)]]);
    processMock.mockResolvedValue({ action: 'ack', outcome: 'done' });
    await runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal });
    expect(processMock).toHaveBeenCalledWith(
      {
        messageId: 'm-1',
        receiptHandle: 'rh-1',
        body: '{"n":1}',
        receiveCount: 3,
        queueUrl: QUEUE_URL,
      } satisfies Delivery,
      deps,
      { onDraining: expect.any(Function) },
    );
  });

  it('deletes what is acknowledged and gives a retry its visibility backoff', async () => {
    const controller = new AbortController();
    receives(controller, [[message(1), message(2), message(3)]]);
    const outcomes: Record<string, Disposition> = {
      'm-1': { action: 'ack', outcome: 'done' },
      'm-2': { action: 'retry', reason: 'tier-1 retries exhausted', visibilitySeconds: 120 },
      'm-3': { action: 'retry', reason: 'lost the lease' },
    };
    processMock.mockImplementation(async (delivery) => outcomes[delivery.messageId] as Disposition);
    const onDisposition = vi.fn();
    await runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal, concurrency: 3, onDisposition });
    expect(deletes()).toEqual([{ QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-1' }]);
    expect(visibilities()).toEqual([{ QueueUrl: QUEUE_URL, ReceiptHandle: 'rh-2', VisibilityTimeout: 120 }]);
    const reported = Object.fromEntries(
      onDisposition.mock.calls.map(([delivery, outcome]) => [(delivery as Delivery).messageId, outcome]),
    );
    expect(reported).toEqual({
      'm-1': 'done',
      'm-2': 'tier-1 retries exhausted',
      'm-3': 'lost the lease',
    });
  });

  it('leaves a message whose processing failed to come back on its own, and says why', async () => {
    const controller = new AbortController();
    receives(controller, [[message(1)]]);
    processMock.mockRejectedValue(new Error('DynamoDB unreachable'));
    const onDisposition = vi.fn();
    await runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal, onDisposition });
    expect(deletes()).toHaveLength(0);
    expect(visibilities()).toHaveLength(0);
    expect(onDisposition).toHaveBeenCalledWith(
      expect.objectContaining({ messageId: 'm-1' }),
      'error: Error: DynamoDB unreachable',
    );
    expect(log).toHaveBeenCalledWith('chunk-failed', {
      messageId: 'm-1',
      error: 'Error: DynamoDB unreachable',
    });
  });

  it('holds at most `concurrency` chunks and receives again only when a slot frees', async () => {
    const controller = new AbortController();
    receives(controller, [[message(1), message(2)], [message(3)]]);
    const gates = new Map<string, ReturnType<typeof deferred<Disposition>>>();
    processMock.mockImplementation((delivery) => {
      const gate = deferred<Disposition>();
      gates.set(delivery.messageId, gate);
      return gate.promise;
    });
    const polling = runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal, concurrency: 2 });
    await settle();
    expect(receiveInputs()).toHaveLength(1);
    expect(receiveInputs()[0]?.MaxNumberOfMessages).toBe(2);
    expect(processMock).toHaveBeenCalledTimes(2);

    gates.get('m-1')?.resolve({ action: 'ack', outcome: 'done' });
    await settle();
    expect(receiveInputs()).toHaveLength(2);
    expect(receiveInputs()[1]?.MaxNumberOfMessages).toBe(1);
    expect(processMock).toHaveBeenCalledTimes(3);

    let finished = false;
    void polling.then(() => {
      finished = true;
    });
    await settle();
    // Stopped receiving, but chunks in progress are awaited.
    expect(finished).toBe(false);
    gates.get('m-2')?.resolve({ action: 'ack', outcome: 'done' });
    gates.get('m-3')?.resolve({ action: 'ack', outcome: 'done' });
    await polling;
    expect(deletes().map((d) => d.ReceiptHandle)).toEqual(['rh-1', 'rh-2', 'rh-3']);
  });

  it('starts the next chunk while one drains its tail, holding at most twice `concurrency`', async () => {
    const controller = new AbortController();
    receives(controller, [[message(1), message(2)], [message(3)], [message(4)]]);
    const gates = new Map<string, ReturnType<typeof deferred<Disposition>>>();
    const draining = new Map<string, () => void>();
    processMock.mockImplementation((delivery, _deps, hooks) => {
      const gate = deferred<Disposition>();
      gates.set(delivery.messageId, gate);
      draining.set(delivery.messageId, () => hooks?.onDraining?.());
      return gate.promise;
    });
    const polling = runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal, concurrency: 2 });
    await settle();
    expect(processMock).toHaveBeenCalledTimes(2);

    // Chunk 1's calls have all started: a slot frees while it is still running.
    draining.get('m-1')?.();
    draining.get('m-1')?.();
    await settle();
    expect(receiveInputs()).toHaveLength(2);
    expect(receiveInputs()[1]?.MaxNumberOfMessages).toBe(1);
    expect(processMock).toHaveBeenCalledTimes(3);

    // Draining chunks 2 and 3 would free two more slots, but four chunks is the most held.
    draining.get('m-2')?.();
    draining.get('m-3')?.();
    await settle();
    expect(receiveInputs()).toHaveLength(3);
    expect(receiveInputs()[2]?.MaxNumberOfMessages).toBe(1);
    expect(processMock).toHaveBeenCalledTimes(4);

    for (const id of ['m-1', 'm-2', 'm-3', 'm-4']) gates.get(id)?.resolve({ action: 'ack', outcome: 'done' });
    await polling;
    expect(deletes()).toHaveLength(4);
  });

  it('waits a second after a failed receive before trying again', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    receives(controller, [new Error('ECONNRESET')]);
    const polling = runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal });
    await vi.advanceTimersByTimeAsync(999);
    expect(receiveInputs()).toHaveLength(1);
    expect(log).toHaveBeenCalledWith('receive-failed', { error: 'Error: ECONNRESET' });
    await vi.advanceTimersByTimeAsync(1);
    await polling;
    expect(receiveInputs()).toHaveLength(2);
  });

  it('ends quietly when the receive fails because the poller was stopped', async () => {
    const controller = new AbortController();
    sqs.on(ReceiveMessageCommand).callsFake(() => {
      controller.abort();
      throw new DOMException('This operation was aborted', 'AbortError');
    });
    await runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal });
    expect(receiveInputs()).toHaveLength(1);
    expect(log).not.toHaveBeenCalled();
  });

  it('does not receive at all once stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    receives(controller, [[message(1)]]);
    await runPoller(deps, { queueUrl: QUEUE_URL, signal: controller.signal });
    expect(receiveInputs()).toHaveLength(0);
    expect(processMock).not.toHaveBeenCalled();
  });
});
