import { type Topology, topology } from '../../lib/topology.js';
import { type EmulatorClients, emulatorClients } from '../aws-clients.js';
import type { OfflineAnalystName } from '../bedrock/heuristic-types.js';
import type { FaultPlan } from '../bedrock/index.js';
import { type BedrockStandIn, startBedrockStandIn } from '../bedrock/index.js';
import { type MotoServer, startMotoServer } from '../moto-server.js';
import { type ProvisionedResources, provision } from '../provision.js';

/** The emulator, the Bedrock stand-in and the provisioned resources of a local run. */
export interface LocalStack {
  readonly awsEndpoint: string;
  readonly bedrock: BedrockStandIn;
  readonly topology: Topology;
  readonly resources: ProvisionedResources;
  readonly clients: EmulatorClients;
  stop(): Promise<void>;
}

/** Options of {@link startLocalStack}. */
export interface LocalStackOptions {
  /** @default 'clause-review' */
  readonly prefix?: string;
  readonly seed?: number;
  readonly plan?: Partial<FaultPlan>;
  /** Which offline analyst of the stand-in answers. @default 'learned' */
  readonly analyst?: OfflineAnalystName;
  readonly log?: (line: string) => void;
}

/**
 * Brings up what a local run needs: moto (or the emulator in AWS_ENDPOINT_URL), the Bedrock
 * stand-in on loopback, and the topology provisioned with SDK calls.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const external = process.env.AWS_ENDPOINT_URL;
  const moto: MotoServer | undefined = external
    ? undefined
    : await startMotoServer(options.log ? { log: options.log } : {});
  const awsEndpoint = external ?? moto?.endpoint ?? '';
  const bedrock = await startBedrockStandIn({
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.plan ? { plan: options.plan } : {}),
    ...(options.analyst ? { analyst: options.analyst } : {}),
  });
  const t = topology({ prefix: options.prefix ?? 'clause-review' });
  const clients = emulatorClients(awsEndpoint);
  try {
    const resources = await provision(t, clients);
    return {
      awsEndpoint,
      bedrock,
      topology: t,
      resources,
      clients,
      async stop() {
        clients.destroy();
        await bedrock.close();
        await moto?.stop();
      },
    };
  } catch (error) {
    clients.destroy();
    await bedrock.close();
    await moto?.stop();
    throw error;
  }
}
