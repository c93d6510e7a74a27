/**
 * The Bedrock stand-in's connections through the real SDK client: a hung call as each handler's
 * timeout surfaces it, close() with hung calls open, a late answer, one billed and held up on its
 * way back; and the worker's Bedrock
 * client, which sends every call over one pooled HTTP/2 session and is not billed for a call it
 * aborts on it.
 */
import net from 'node:net';
import {
  BedrockRuntimeClient,
  type BedrockRuntimeClientConfig,
  ConverseCommand,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createClients } from '../../lambdas/shared/runtime.js';
import { type BedrockStandIn, startBedrockStandIn } from '../../localstack/bedrock/index.js';
import {
  clause,
  clientOptions,
  converseInput,
  failure,
  ON_DEMAND,
  plan,
  standIn,
  useStandIn,
} from './bedrock-standin-setup.js';

useStandIn();

describe('hangs and timeouts', () => {
  let hanging: BedrockStandIn;
  const clients: BedrockRuntimeClient[] = [];
  const clientOf = (requestHandler: BedrockRuntimeClientConfig['requestHandler']) => {
    const client = new BedrockRuntimeClient({
      ...clientOptions,
      endpoint: hanging.url,
      maxAttempts: 1,
      requestHandler,
    });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    hanging = await startBedrockStandIn({ seed: 1, plan: { hang: { probability: 1 } } });
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await hanging.close();
  });

  it.each([
    [
      'NodeHttpHandler requestTimeout + throwOnRequestTimeout',
      new NodeHttpHandler({ requestTimeout: 200, throwOnRequestTimeout: true }),
    ],
    ['NodeHttpHandler socketTimeout', new NodeHttpHandler({ socketTimeout: 200 })],
    ['NodeHttp2Handler requestTimeout', { requestTimeout: 200, disableConcurrentStreams: true }],
  ])('a hung call surfaces as a TimeoutError with %s', async (_, handler) => {
    const started = performance.now();
    const error = await failure(clientOf(handler), converseInput(clause(0)));
    expect(error.name).toBe('TimeoutError');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(hanging.accounting().byModel[ON_DEMAND]).toEqual({
      hang: { calls: 1, inputTokens: 0, outputTokens: 0 },
    });
  });

  it('NodeHttpHandler requestTimeout alone only logs a warning and keeps waiting (SDK behaviour)', async () => {
    const warnings: unknown[] = [];
    const logger = { debug() {}, info() {}, warn: (message: unknown) => warnings.push(message), error() {} };
    const call = clientOf(new NodeHttpHandler({ requestTimeout: 100, logger }))
      .send(new ConverseCommand(converseInput(clause(0))))
      .then(
        () => 'answered',
        (error: Error) => `failed: ${error.name}`,
      );
    const early = await Promise.race([
      call,
      new Promise((resolve) => setTimeout(() => resolve('pending'), 600)),
    ]);
    expect(early).toBe('pending');
    expect(String(warnings[0])).toMatch(/exceeded the configured 100 ms requestTimeout/);
    await hanging.close(); // the stand-in cuts the connection
    expect(await call).toMatch(/^failed: /);
  });

  it('close() returns promptly with hung HTTP/1.1 and HTTP/2 calls open', async () => {
    const calls = [
      clientOf(new NodeHttpHandler()).send(new ConverseCommand(converseInput(clause(0)))),
      clientOf(undefined).send(new ConverseCommand(converseInput(clause(1)))),
    ].map((p) =>
      p.then(
        () => 'answered',
        () => 'failed',
      ),
    );
    await expect.poll(() => hanging.accounting().totals.calls).toBe(2);
    const started = performance.now();
    await hanging.close();
    expect(performance.now() - started).toBeLessThan(500);
    expect(await Promise.all(calls)).toEqual(['failed', 'failed']);
  });

  it('a hang with ms answers late', async () => {
    hanging.setPlan({ hang: { probability: 1, ms: 150 } });
    const started = performance.now();
    const output = await clientOf(undefined).send(new ConverseCommand(converseInput(clause(0))));
    expect(output.stopReason).toBe('tool_use');
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('a late answer is billed when it is sent, and a client whose timeout comes first has paid for it', async () => {
    hanging.setPlan({ hang: { probability: 0 }, lateAnswer: { probability: 1, ms: 600 } });
    const impatient = clientOf({ requestTimeout: 200, disableConcurrentStreams: true });
    const error = await failure(impatient, converseInput(clause(0)));
    expect(error.name).toBe('TimeoutError');
    // The same request, waited for: it comes back, 600 ms late, and is billed again.
    const started = performance.now();
    const output = await clientOf(undefined).send(new ConverseCommand(converseInput(clause(0))));
    expect(output.stopReason).toBe('tool_use');
    expect(performance.now() - started).toBeGreaterThanOrEqual(595);
    const books = hanging.accounting();
    expect(books.byModel[ON_DEMAND]).toEqual({ success: expect.objectContaining({ calls: 2 }) });
    expect(Object.values(books.successes).map((s) => s.count)).toEqual([2]);
  });
});

describe("the worker's Bedrock client", () => {
  /** A TCP relay to the stand-in that counts the connections clients open through it. */
  async function countingRelay(): Promise<{ url: string; connections: () => number; close(): void }> {
    let connections = 0;
    const target = new URL(standIn.url);
    const relay = net.createServer((socket) => {
      connections++;
      const upstream = net.connect(Number(target.port), target.hostname);
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(relay.address() as net.AddressInfo).port}`,
      connections: () => connections,
      close: () => relay.close(),
    };
  }

  const calls = async (client: BedrockRuntimeClient) => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.send(new ConverseCommand(converseInput(clause(i))))),
    );
    for (let i = 0; i < 12; i++) await client.send(new ConverseCommand(converseInput(clause(i))));
  };

  it('sends every Converse call over one pooled HTTP/2 session, where the SDK default opens one per call', async () => {
    const relay = await countingRelay();
    try {
      const worker = createClients({
        bedrockEndpoint: relay.url,
        region: 'us-east-1',
        credentials: EMULATOR_CREDENTIALS,
      }).bedrock;
      await calls(worker);
      expect(relay.connections()).toBe(1);
      worker.destroy();

      const before = relay.connections();
      const sdkDefault = new BedrockRuntimeClient({ ...clientOptions, endpoint: relay.url, maxAttempts: 1 });
      await calls(sdkDefault);
      expect(relay.connections() - before).toBe(24);
      sdkDefault.destroy();
    } finally {
      relay.close();
    }
  });

  it('an aborted call on a shared session is not billed, and the calls beside it finish', async () => {
    plan({ latency: { kind: 'fixed', ms: 300 } });
    const worker = createClients({
      bedrockEndpoint: standIn.url,
      region: 'us-east-1',
      credentials: EMULATOR_CREDENTIALS,
    }).bedrock;
    try {
      const abort = new AbortController();
      const aborted = worker
        .send(new ConverseCommand(converseInput(clause(0))), { abortSignal: abort.signal as never })
        .then(
          () => 'answered',
          (error: Error) => error.name,
        );
      const beside = Array.from({ length: 3 }, (_, i) =>
        worker.send(new ConverseCommand(converseInput(clause(i + 1)))),
      );
      setTimeout(() => abort.abort(), 100);
      expect(await aborted).toBe('AbortError');
      expect((await Promise.all(beside)).map((o) => o.stopReason)).toEqual([
        'tool_use',
        'tool_use',
        'tool_use',
      ]);
      await expect.poll(() => standIn.accounting().byModel[ON_DEMAND]?.clientClosed?.calls).toBe(1);
      expect(standIn.accounting().byModel[ON_DEMAND]?.success?.calls).toBe(3);
    } finally {
      worker.destroy();
    }
  });
});
