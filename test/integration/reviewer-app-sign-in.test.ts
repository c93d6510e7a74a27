/**
 * The reviewer app's Cognito sign-in (lambdas/app/cognito.ts, through session.ts) against the
 * emulator's user pool and identity pool: a person's name and password become temporary
 * credentials with a session token; a wrong password and an account that must first set its
 * password are refused with a reason.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { isSignInError, signIn } from '../../lambdas/app/session.js';
import { startMotoServer } from '../../localstack/moto-server.js';
import { uniquePrefix } from '../helpers/local-aws.js';

// LocalStack's community build serves no Cognito: on that ground the pools come from a moto of
// this file's own.
const own = inject('awsEmulator') === 'moto' ? undefined : await startMotoServer();
afterAll(async () => {
  await own?.stop();
});
const endpoint = own?.endpoint ?? inject('awsEndpoint');
const REGION = 'us-east-1';

/** One JSON call to the emulator, as the provisioning side (an administrator) makes it. */
async function admin<T>(target: string, body: unknown): Promise<T> {
  const r = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${target}: HTTP ${r.status} ${text}`);
  return JSON.parse(text || '{}') as T;
}

async function pools() {
  const prefix = uniquePrefix('signin');
  const { UserPool } = await admin<{ UserPool: { Id: string } }>(
    'AWSCognitoIdentityProviderService.CreateUserPool',
    {
      PoolName: prefix,
    },
  );
  const { UserPoolClient } = await admin<{ UserPoolClient: { ClientId: string } }>(
    'AWSCognitoIdentityProviderService.CreateUserPoolClient',
    {
      UserPoolId: UserPool.Id,
      ClientName: 'app',
      ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
    },
  );
  const { IdentityPoolId } = await admin<{ IdentityPoolId: string }>(
    'AWSCognitoIdentityService.CreateIdentityPool',
    {
      IdentityPoolName: prefix.replace(/-/g, '_'),
      AllowUnauthenticatedIdentities: false,
      CognitoIdentityProviders: [
        {
          ProviderName: `cognito-idp.${REGION}.amazonaws.com/${UserPool.Id}`,
          ClientId: UserPoolClient.ClientId,
        },
      ],
    },
  );
  // Cognito hands out credentials only for a pool with an authenticated role. (A moto without
  // the project launcher's Cognito additions has no SetIdentityPoolRoles, and answers 500.)
  const roles = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'AWSCognitoIdentityService.SetIdentityPoolRoles',
    },
    body: JSON.stringify({
      IdentityPoolId,
      Roles: { authenticated: `arn:aws:iam::123456789012:role/${prefix}-reviewer` },
    }),
  });
  if (!roles.ok && roles.status !== 500)
    throw new Error(`SetIdentityPoolRoles: HTTP ${roles.status} ${await roles.text()}`);
  const user = async (name: string, password: string, permanent: boolean) => {
    await admin('AWSCognitoIdentityProviderService.AdminCreateUser', {
      UserPoolId: UserPool.Id,
      Username: name,
      TemporaryPassword: password,
      MessageAction: 'SUPPRESS',
    });
    if (permanent) {
      await admin('AWSCognitoIdentityProviderService.AdminSetUserPassword', {
        UserPoolId: UserPool.Id,
        Username: name,
        Password: password,
        Permanent: true,
      });
    }
  };
  return {
    config: {
      kind: 'cognito' as const,
      userPoolId: UserPool.Id,
      clientId: UserPoolClient.ClientId,
      identityPoolId: IdentityPoolId,
      endpoint,
    },
    user,
  };
}

describe('Cognito sign-in of the reviewer app', () => {
  it("turns a person's name and password into temporary credentials of the identity pool", async () => {
    const { config, user } = await pools();
    await user('ada@example.com', 'Correct-Horse-9', true);
    const session = await signIn(config, { name: 'ada@example.com', secret: 'Correct-Horse-9' }, REGION);
    expect(session.who).toBe('ada@example.com');
    const credentials = await session.credentials();
    expect(credentials.accessKeyId).toMatch(/^[A-Z0-9]{16,}$/);
    expect(credentials.secretAccessKey.length).toBeGreaterThan(10);
    expect(credentials.sessionToken?.length).toBeGreaterThan(0);
    const expiresIn = (credentials.expiration?.getTime() ?? 0) - Date.now();
    expect(expiresIn).toBeGreaterThan(0);
    // Credentials are renewed from the identity pool in their last 5 minutes (stock moto's last
    // 90 s, the launcher's an hour), and kept until then.
    const next = await session.credentials();
    if (expiresIn < 5 * 60_000) {
      expect(next).not.toBe(credentials);
      expect(next.expiration?.getTime()).toBeGreaterThanOrEqual(credentials.expiration?.getTime() ?? 0);
    } else expect(next).toBe(credentials);
  });

  it('refuses a wrong password, and an account that must first set its password, saying why', async () => {
    const { config, user } = await pools();
    await user('bob@example.com', 'Correct-Horse-9', true);
    await user('cy@example.com', 'Temporary-Pass-1', false);
    const wrong = await signIn(config, { name: 'bob@example.com', secret: 'wrong-Password-1' }, REGION).catch(
      (e: unknown) => e,
    );
    expect(isSignInError(wrong) && wrong.message).toBe('sign-in refused: the name or password is not right');
    const fresh = await signIn(config, { name: 'cy@example.com', secret: 'Temporary-Pass-1' }, REGION).catch(
      (e: unknown) => e,
    );
    expect(isSignInError(fresh) && fresh.message).toMatch(/NEW_PASSWORD_REQUIRED challenge/);
  });
});
