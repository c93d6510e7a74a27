import type { TestProject } from 'vitest/node';
import { startMotoServer } from '../../localstack/moto-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Endpoint of the AWS emulator every integration test talks to. */
    awsEndpoint: string;
    /** 'moto' when this run started its own moto server, else 'external' (e.g. LocalStack). */
    awsEmulator: 'moto' | 'external';
    /**
     * A moto server of the project's launcher: the run's emulator on the moto ground, else one
     * started beside the external emulator for what only the launcher serves (Cognito user
     * pools with TOTP MFA, identity pools that hand each person their own key).
     */
    motoEndpoint: string;
  }
}

/**
 * Starts one moto server for the whole run. When AWS_ENDPOINT_URL points at an emulator
 * already (LocalStack), the tests use that one, and the moto server serves only the sign-in
 * files, shared by them rather than started by each. When moto cannot start, the run fails
 * here with the reason: integration tests are never skipped silently.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.AWS_ENDPOINT_URL;
  const moto = await startMotoServer({ log: (line) => console.log(`[clause-review tests] ${line}`) });
  project.provide('motoEndpoint', moto.endpoint);
  if (external) {
    console.log(`[clause-review tests] AWS emulator: external endpoint ${external} (AWS_ENDPOINT_URL)`);
    console.log(`[clause-review tests] Cognito: moto server on ${moto.endpoint}`);
    project.provide('awsEndpoint', external);
    project.provide('awsEmulator', 'external');
  } else {
    console.log(`[clause-review tests] AWS emulator: moto server on ${moto.endpoint}`);
    project.provide('awsEndpoint', moto.endpoint);
    project.provide('awsEmulator', 'moto');
  }
  return () => moto.stop();
}
