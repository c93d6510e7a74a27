import { afterAll } from 'vitest';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { loadConfig } from '../../lambdas/shared/config.js';
import { createClients, intakeDeps } from '../../lambdas/shared/runtime.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import {
  LOCAL_RUN_DEFAULTS,
  type LocalRunSettings,
  localEnvironment,
} from '../../localstack/runtime/local-env.js';
import type { TestStack } from './local-aws.js';

/**
 * The runtime's clients on a test stack and intake's dependencies as a deployed intake reads them
 * from its environment (no model is called: the Bedrock endpoint is a closed port). The clients
 * are closed after the file. Call at the top level of a test file.
 */
export function intakeOn(stack: TestStack, settings: Partial<LocalRunSettings> = {}) {
  const clients = createClients({
    endpoint: stack.endpoint,
    region: LOCAL_REGION,
    credentials: EMULATOR_CREDENTIALS,
  });
  afterAll(() => {
    for (const c of [clients.s3, clients.sqs, clients.db]) c.destroy();
  });
  const env = localEnvironment(stack.endpoint, 'http://127.0.0.1:9', stack.resources, {
    ...LOCAL_RUN_DEFAULTS,
    ...settings,
  });
  return { clients, deps: intakeDeps(loadConfig(env), clients) };
}
