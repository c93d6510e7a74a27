import { availableParallelism } from 'node:os';
import type { TestProject } from 'vitest/node';
import { type MotoServer, startMotoServer } from '../../localstack/moto-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Endpoints of the AWS emulators, one per worker (`VITEST_POOL_ID` 1 takes the first), so
     * files that run at the same time never wait on each other's requests; a single one when
     * AWS_ENDPOINT_URL names an emulator every worker shares (LocalStack). Read it through
     * `awsEndpoint()` (test/helpers/local-aws.ts).
     */
    awsEndpoints: string[];
    /** 'moto' when this run started its own moto servers, else 'external' (e.g. LocalStack). */
    awsEmulator: 'moto' | 'external';
    /**
     * Moto servers of the project's launcher, one per worker: the workers' emulators on the moto
     * ground, else one started beside the external emulator for what only the launcher serves
     * (Cognito user pools with TOTP MFA, identity pools that hand each person their own key).
     * Read it through `motoEndpoint()`.
     */
    motoEndpoints: string[];
  }
}

/** How many files vitest runs at once, worked out as vitest does. */
function workerCount(project: TestProject): number {
  const configured = project.config.maxWorkers ?? project.vitest.config.maxWorkers;
  return typeof configured === 'number' && configured > 0
    ? configured
    : Math.max(availableParallelism() - 1, 1);
}

/**
 * Starts one moto server per worker for the whole run; a worker's files use its own (by
 * prefix, as before, so two files of one worker never meet either). When AWS_ENDPOINT_URL
 * points at an emulator already (LocalStack), the tests share that one, and a single moto
 * server serves only the sign-in files. When moto cannot start, the run fails here with the
 * reason: integration tests are never skipped silently.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = (line: string) => console.log(`[clause-review tests] ${line}`);
  const external = process.env.AWS_ENDPOINT_URL;
  const started = await Promise.allSettled(
    Array.from({ length: external ? 1 : workerCount(project) }, () => startMotoServer({ log })),
  );
  const motos = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async () => {
    await Promise.all(motos.map((m: MotoServer) => m.stop()));
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const endpoints = motos.map((m) => m.endpoint);
  project.provide('motoEndpoints', endpoints);
  if (external) {
    log(
      `AWS emulator: external endpoint ${external} (AWS_ENDPOINT_URL); Cognito: moto server on ${endpoints[0]}`,
    );
    project.provide('awsEndpoints', [external]);
    project.provide('awsEmulator', 'external');
  } else {
    log(`AWS emulator: a moto server per worker, on ${endpoints.join(', ')}`);
    project.provide('awsEndpoints', endpoints);
    project.provide('awsEmulator', 'moto');
  }
  return stop;
}
