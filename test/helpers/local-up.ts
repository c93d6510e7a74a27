/**
 * `clause-review local up` as a real process for the browser tests, on the worker's AWS
 * emulator, with its state file in a folder of the test's own; and people an administrator
 * created in the user pool it provisioned.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import type { LocalState } from '../../bin/commands/local-state.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { awsEndpoint } from './local-aws.js';

/** A running `local up`: what it wrote to its state file, and how to stop it. */
export interface LocalUp {
  readonly state: LocalState;
  stop(): Promise<void>;
}

/**
 * Starts `local up` with `args` (after `local up`), its state under `scratch`, and waits until
 * it has written its state file. @throws Error with its last output when it does not start
 */
export async function startLocalUp(scratch: string, args: readonly string[]): Promise<LocalUp> {
  const env = {
    ...process.env,
    CLAUSE_REVIEW_STATE_DIR: join(scratch, 'state'),
    AWS_ENDPOINT_URL: awsEndpoint(),
    POWERTOOLS_LOG_LEVEL: 'WARN',
  };
  const up: ChildProcess = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/clause-review.js'), 'local', 'up', ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
  let stderr = '';
  up.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-8000);
  });
  up.stdout?.resume();
  const stop = async () => {
    up.kill('SIGTERM');
    await exited;
  };
  const file = join(scratch, 'state', 'local.json');
  for (let i = 0; i < 900 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  if (!existsSync(file)) {
    await stop();
    throw new Error(`local up did not start: ${stderr}`);
  }
  return { state: JSON.parse(readFileSync(file, 'utf8')) as LocalState, stop };
}

/**
 * A person an administrator created in the user pool `local up` provisioned, with a temporary
 * password, as Cognito makes them: the first sign-in must choose a password and set up MFA. In
 * `groups` (the approver groups a playbook escalates to) when given.
 */
export async function createPerson(
  userPoolId: string,
  name: string,
  secret = 'Temporary-passw0rd!',
  groups: readonly string[] = [],
): Promise<{ name: string; secret: string }> {
  const idp = new CognitoIdentityProviderClient({
    endpoint: awsEndpoint(),
    region: LOCAL_REGION,
    credentials: EMULATOR_CREDENTIALS,
  });
  try {
    await idp.send(
      new AdminCreateUserCommand({
        UserPoolId: userPoolId,
        Username: name,
        TemporaryPassword: secret,
        MessageAction: 'SUPPRESS',
        UserAttributes: [
          { Name: 'email', Value: name },
          { Name: 'email_verified', Value: 'true' },
        ],
      }),
    );
    for (const group of groups)
      await idp.send(
        new AdminAddUserToGroupCommand({ UserPoolId: userPoolId, Username: name, GroupName: group }),
      );
  } finally {
    idp.destroy();
  }
  return { name, secret };
}
