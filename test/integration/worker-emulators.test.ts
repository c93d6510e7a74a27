/**
 * The emulators of a run (test/helpers/global-setup.ts): on the moto ground a moto server per
 * worker, so files running at the same time never queue behind each other's requests, and each
 * file talks to its own worker's; on an external emulator every worker shares it, with one moto
 * server beside it for Cognito.
 */
import { CreateQueueCommand, ListQueuesCommand } from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { awsEndpoint, motoEndpoint, uniquePrefix } from '../helpers/local-aws.js';

describe("a run's emulators", () => {
  it("give this file its worker's emulator and moto server", () => {
    const worker = Number(process.env.VITEST_POOL_ID);
    const endpoints = inject('awsEndpoints');
    if (inject('awsEmulator') === 'moto') {
      expect(endpoints.length).toBeGreaterThanOrEqual(worker);
      expect(awsEndpoint()).toBe(endpoints[worker - 1]);
      expect(motoEndpoint()).toBe(awsEndpoint());
    } else {
      expect(endpoints).toEqual([process.env.AWS_ENDPOINT_URL]);
      expect(awsEndpoint()).toBe(process.env.AWS_ENDPOINT_URL);
      expect(inject('motoEndpoints')).toHaveLength(1);
      expect(motoEndpoint()).not.toBe(awsEndpoint());
    }
  });

  it('are separate servers on the moto ground: what one worker creates, the others do not see', async () => {
    const endpoints = inject('motoEndpoints');
    expect(new Set(endpoints).size).toBe(endpoints.length);
    const name = uniquePrefix('worker');
    const clients = endpoints.map((e) => emulatorClients(e));
    try {
      await clients[0]?.sqs.send(new CreateQueueCommand({ QueueName: name }));
      const seen = await Promise.all(
        clients.map(
          async (c) =>
            ((await c.sqs.send(new ListQueuesCommand({ QueueNamePrefix: name }))).QueueUrls ?? []).length,
        ),
      );
      expect(seen).toEqual(endpoints.map((_, i) => (i === 0 ? 1 : 0)));
    } finally {
      for (const c of clients) c.destroy();
    }
  });
});
