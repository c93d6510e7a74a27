import { randomBytes } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import { type Topology, type TopologyOptions, topology } from '../../lib/topology.js';
import { type EmulatorClients, emulatorClients } from '../../localstack/aws-clients.js';
import { type ProvisionedResources, provision } from '../../localstack/provision.js';

/** A topology provisioned under a prefix unique to this test file and run. */
export interface TestStack {
  readonly topology: Topology;
  readonly resources: ProvisionedResources;
  readonly clients: EmulatorClients;
  readonly endpoint: string;
}

/** The one of `endpoints` that belongs to this worker (`VITEST_POOL_ID` counts from 1). */
function ofThisWorker(endpoints: readonly string[]): string {
  const id = Number(process.env.VITEST_POOL_ID ?? '1');
  const endpoint = endpoints[(id - 1) % endpoints.length];
  if (!endpoint) throw new Error('the run provided no AWS emulator endpoint (test/helpers/global-setup.ts)');
  return endpoint;
}

/** The AWS emulator this test file talks to: its worker's own moto server, or the shared external one. */
export function awsEndpoint(): string {
  return ofThisWorker(inject('awsEndpoints'));
}

/**
 * A moto server of the project's launcher for this file: its worker's emulator on the moto
 * ground, else the one beside the external emulator (Cognito, which LocalStack's community
 * build does not serve).
 */
export function motoEndpoint(): string {
  return ofThisWorker(inject('motoEndpoints'));
}

/** A resource prefix no other test file or run shares, so files can run in parallel on one emulator. */
export function uniquePrefix(label: string): string {
  return `t-${label
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 10)}-${randomBytes(3).toString('hex')}`;
}

/**
 * Provisions a fresh copy of the topology in the run's emulator and destroys the clients
 * after the file. Call at the top level of a test file (or in beforeAll).
 */
export async function provisionTestStack(label: string, options: TopologyOptions = {}): Promise<TestStack> {
  const endpoint = awsEndpoint();
  const clients = emulatorClients(endpoint);
  afterAll(() => clients.destroy());
  const t = topology({ ...options, prefix: uniquePrefix(label) });
  const resources = await provision(t, clients);
  return { topology: t, resources, clients, endpoint };
}
