import type { TestProject } from 'vitest/node';
import { startMotoServer } from '../../localstack/moto-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the AWS emulator every integration test talks to. */
    awsEndpoint: string;
    /** 'moto' when this run started its own moto server, else 'external' (e.g. LocalStack). */
    awsEmulator: 'moto' | 'external';
  }
}

/**
 * Starts one moto server for the whole run, unless AWS_ENDPOINT_URL points at an emulator
 * already (LocalStack). When moto cannot start, the run fails here with the reason:
 * integration tests are never skipped silently.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.AWS_ENDPOINT_URL;
  if (external) {
    console.log(`[clause-review tests] AWS emulator: external endpoint ${external} (AWS_ENDPOINT_URL)`);
    project.provide('awsEndpoint', external);
    project.provide('awsEmulator', 'external');
    return async () => {};
  }
  const moto = await startMotoServer({ log: (line) => console.log(`[clause-review tests] ${line}`) });
  console.log(`[clause-review tests] AWS emulator: moto server on ${moto.endpoint}`);
  project.provide('awsEndpoint', moto.endpoint);
  project.provide('awsEmulator', 'moto');
  return () => moto.stop();
}
