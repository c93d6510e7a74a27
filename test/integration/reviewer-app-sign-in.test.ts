/**
 * The reviewer app's Cognito sign-in (lambdas/app/cognito.ts, through session.ts) against the
 * emulator's user pool and identity pool: a person's name and password become temporary
 * credentials with a session token, by SRP; a wrong password is refused with a reason, by SRP's
 * own proof; a client without USER_PASSWORD_AUTH refuses that flow; signing out revokes the
 * refresh token, which Cognito then refuses, and forgets the credentials; in a pool that,
 * like the stack's, requires TOTP MFA, an account an administrator created chooses its password
 * (Cognito's policy refusals shown as Cognito words them), sets up an authenticator with a
 * secret of its own, and later signs in with the app's code; wrong codes are refused. On moto
 * these run through the project launcher's TOTP model (localstack/moto_cognito_mfa.py) and its
 * SRP, auth-flow and revocation model (localstack/moto_cognito_auth.py).
 */
import { describe, expect, it } from 'vitest';
import { isSignInError, type SignInStep, signIn } from '../../lambdas/app/session.js';
import { userPoolSignIn } from '../../lambdas/app/user-pool.js';
import { motoEndpoint, uniquePrefix } from '../helpers/local-aws.js';
import { base32Bytes, freshCode, totp } from '../helpers/totp.js';

// LocalStack's community build serves no Cognito: on that ground the pools come from the run's
// moto server beside it (motoEndpoint).
const endpoint = motoEndpoint();
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

/** The app client's flows, as the stack's: SRP and refresh tokens, no password flow. */
const APP_FLOWS = ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'];

/** Pools for one test; `mfa`: TOTP MFA required and email the sign-in name, as the stack's pool. */
async function pools(mfa = false, flows = APP_FLOWS) {
  const prefix = uniquePrefix('signin');
  const { UserPool } = await admin<{ UserPool: { Id: string } }>(
    'AWSCognitoIdentityProviderService.CreateUserPool',
    mfa
      ? {
          PoolName: prefix,
          UsernameAttributes: ['email'],
          Policies: { PasswordPolicy: { MinimumLength: 12, RequireSymbols: true } },
        }
      : { PoolName: prefix },
  );
  if (mfa) {
    await admin('AWSCognitoIdentityProviderService.SetUserPoolMfaConfig', {
      UserPoolId: UserPool.Id,
      MfaConfiguration: 'ON',
      SoftwareTokenMfaConfiguration: { Enabled: true },
    });
  }
  const { UserPoolClient } = await admin<{ UserPoolClient: { ClientId: string } }>(
    'AWSCognitoIdentityProviderService.CreateUserPoolClient',
    {
      UserPoolId: UserPool.Id,
      ClientName: 'app',
      ExplicitAuthFlows: flows,
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
    const session = done(
      await signIn(config, { name: 'ada@example.com', secret: 'Correct-Horse-9' }, REGION),
    );
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

  it('refuses a wrong password, saying why, through SRP', async () => {
    const { config, user } = await pools();
    await user('bob@example.com', 'Correct-Horse-9', true);
    await user('bea@example.com', 'Other-Horse-10', true);
    const wrong = await signIn(config, { name: 'bob@example.com', secret: 'wrong-Password-1' }, REGION).catch(
      (e: unknown) => e,
    );
    expect(isSignInError(wrong) && wrong.message).toBe('sign-in refused: the name or password is not right');
    // Cognito's own refusal, after the proof of the password did not match.
    expect((wrong as Error).cause).toMatchObject({
      code: 'NotAuthorizedException',
      message: 'Incorrect username or password.',
    });
    // Another person's password is no proof of Bob's; Bob's own is.
    const crossed = await signIn(config, { name: 'bob@example.com', secret: 'Other-Horse-10' }, REGION).catch(
      (e: unknown) => e,
    );
    expect(isSignInError(crossed)).toBe(true);
    const bob = done(await signIn(config, { name: 'bob@example.com', secret: 'Correct-Horse-9' }, REGION));
    expect(bob.who).toBe('bob@example.com');
  });

  it('refuses the password flow on a client that does not allow it, as Cognito does', async () => {
    const { config, user } = await pools();
    await user('cal@example.com', 'Correct-Horse-11', true);
    await expect(
      admin('AWSCognitoIdentityProviderService.InitiateAuth', {
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: config.clientId,
        AuthParameters: { USERNAME: 'cal@example.com', PASSWORD: 'Correct-Horse-11' },
      }),
    ).rejects.toThrow(/InvalidParameterException.*USER_PASSWORD_AUTH flow not enabled for this client/);
  });

  it('signs out by revoking the refresh token, which Cognito then refuses, and forgets the credentials', async () => {
    const { config, user } = await pools();
    await user('dot@example.com', 'Correct-Horse-12', true);
    const signedIn = await userPoolSignIn(
      { ...config, region: REGION },
      'dot@example.com',
      'Correct-Horse-12',
    );
    if (signedIn.kind !== 'done') throw new Error(`expected to be signed in, got ${signedIn.kind}`);
    const { refreshToken, accessToken } = await signedIn.session.tokens();
    const refresh = () =>
      admin<{ AuthenticationResult?: { IdToken?: string } }>(
        'AWSCognitoIdentityProviderService.InitiateAuth',
        {
          AuthFlow: 'REFRESH_TOKEN_AUTH',
          ClientId: config.clientId,
          AuthParameters: { REFRESH_TOKEN: refreshToken },
        },
      );
    // Until sign-out the refresh token renews the sign-in, and the access token is good.
    expect((await refresh()).AuthenticationResult?.IdToken).toMatch(/^ey/);
    await admin('AWSCognitoIdentityProviderService.GetUser', { AccessToken: accessToken });
    await signedIn.session.signOut();
    await expect(refresh()).rejects.toThrow(/NotAuthorizedException.*Refresh Token has been revoked/);
    await expect(
      admin('AWSCognitoIdentityProviderService.GetUser', { AccessToken: accessToken }),
    ).rejects.toThrow(/NotAuthorizedException/);
    await expect(signedIn.session.tokens()).rejects.toMatchObject({ code: 'SignedOut' });

    // The app's session: after sign-out no credential is handed out any more.
    const session = done(
      await signIn(config, { name: 'dot@example.com', secret: 'Correct-Horse-12' }, REGION),
    );
    expect((await session.credentials()).accessKeyId).toMatch(/^[A-Z0-9]{16,}$/);
    await session.signOut();
    const after = await session.credentials().catch((e: unknown) => e);
    expect(isSignInError(after) && after.message).toBe('sign-in refused: signed out: sign in again');
  });

  it('walks a first sign-in through a new password and an authenticator of its own, then asks for its code', async () => {
    const { config, user } = await pools(true);
    await user('cy@example.com', 'Temporary-Pass-1!', false);
    const first = await signIn(config, { name: 'cy@example.com', secret: 'Temporary-Pass-1!' }, REGION);
    if (first.kind !== 'new-password') throw new Error(`expected a new password, got ${first.kind}`);
    // Cognito's own words for a password its policy refuses (moto's wording on moto).
    const weak = await first.answer('short').catch((e: unknown) => e);
    expect(isSignInError(weak) && weak.message).toMatch(/^sign-in refused: .*password policy/);
    const setup = await first.answer('Own-passw0rd-of-Cy!');
    if (setup.kind !== 'mfa-setup') throw new Error(`expected MFA setup, got ${setup.kind}`);
    // A secret of this person's own: 32 random bytes in base32, and the same in the key URI.
    expect(setup.secret).toMatch(/^[A-Z2-7]{52}$/);
    expect(base32Bytes(setup.secret)).toHaveLength(32);
    expect(setup.uri).toBe(
      `otpauth://totp/clause-review:cy%40example.com?secret=${setup.secret}&issuer=clause-review`,
    );
    const typo = await setup.answer('12345').catch((e: unknown) => e);
    expect(isSignInError(typo) && typo.message).toBe(
      'sign-in refused: enter the 6-digit code your authenticator app shows',
    );
    const stale = totp(base32Bytes(setup.secret), Date.now() - 120_000);
    const mismatch = await setup.answer(stale).catch((e: unknown) => e);
    expect(isSignInError(mismatch) && mismatch.message).toMatch(/Code mismatch/);
    const code = await freshCode(setup.secret);
    const session = done(await setup.answer(`${code.slice(0, 3)} ${code.slice(3)}`));
    expect((await session.credentials()).sessionToken?.length).toBeGreaterThan(0);

    // The next sign-in asks for the authenticator's code, and refuses a wrong one.
    const again = await signIn(config, { name: 'cy@example.com', secret: 'Own-passw0rd-of-Cy!' }, REGION);
    if (again.kind !== 'mfa-code') throw new Error(`expected an MFA code, got ${again.kind}`);
    const wrong = await again.answer(stale).catch((e: unknown) => e);
    expect(isSignInError(wrong) && wrong.message).toBe(
      'sign-in refused: Invalid code or auth state for the user.',
    );
    const retry = await signIn(config, { name: 'cy@example.com', secret: 'Own-passw0rd-of-Cy!' }, REGION);
    if (retry.kind !== 'mfa-code') throw new Error(`expected an MFA code, got ${retry.kind}`);
    const later = done(await retry.answer(await freshCode(setup.secret)));
    expect(later.who).toBe('cy@example.com');
    expect((await later.credentials()).accessKeyId).toMatch(/^[A-Z0-9]{16,}$/);
  });

  it('asks an account with a permanent password but no authenticator to set one up, with a secret per person', async () => {
    const { config, user } = await pools(true);
    await user('di@example.com', 'Permanent-Pass-1!', true);
    await user('ed@example.com', 'Permanent-Pass-2!', true);
    const di = await signIn(config, { name: 'di@example.com', secret: 'Permanent-Pass-1!' }, REGION);
    const ed = await signIn(config, { name: 'ed@example.com', secret: 'Permanent-Pass-2!' }, REGION);
    if (di.kind !== 'mfa-setup' || ed.kind !== 'mfa-setup')
      throw new Error(`expected MFA setup, got ${di.kind}, ${ed.kind}`);
    expect(di.secret).not.toBe(ed.secret);
    // Ed's code does not set up Di's authenticator.
    const crossed = await di.answer(await freshCode(ed.secret)).catch((e: unknown) => e);
    expect(isSignInError(crossed) && crossed.message).toMatch(/Code mismatch/);
    expect(done(await di.answer(await freshCode(di.secret))).who).toBe('di@example.com');
    // A challenge's session is used once: answering the same step again means signing in again.
    const used = await di.answer(await freshCode(di.secret)).catch((e: unknown) => e);
    expect(isSignInError(used) && used.message).toBe(
      'sign-in refused: this step was answered already; sign in again to start over',
    );
  });

  it('refuses to finish MFA_SETUP before an authenticator code was verified', async () => {
    // The password flow, on a client that allows it, reaches MFA_SETUP in one call.
    const { config, user } = await pools(true, [...APP_FLOWS, 'ALLOW_USER_PASSWORD_AUTH']);
    await user('fay@example.com', 'Permanent-Pass-3!', true);
    const first = await admin<{ ChallengeName: string; Session: string }>(
      'AWSCognitoIdentityProviderService.InitiateAuth',
      {
        AuthFlow: 'USER_PASSWORD_AUTH',
        ClientId: config.clientId,
        AuthParameters: { USERNAME: 'fay@example.com', PASSWORD: 'Permanent-Pass-3!' },
      },
    );
    expect(first.ChallengeName).toBe('MFA_SETUP');
    await expect(
      admin('AWSCognitoIdentityProviderService.RespondToAuthChallenge', {
        ClientId: config.clientId,
        ChallengeName: 'MFA_SETUP',
        Session: first.Session,
        ChallengeResponses: { USERNAME: 'fay@example.com' },
      }),
    ).rejects.toThrow(/NotAuthorizedException/);
  });
});

/** The session of a finished sign-in; any other step fails the test. */
function done(step: SignInStep) {
  if (step.kind !== 'done') throw new Error(`expected to be signed in, got the ${step.kind} step`);
  return step.session;
}
