/**
 * Sign-in through Amazon Cognito: the user pool signs a person in (user-pool.ts), then the
 * identity pool's GetId and GetCredentialsForIdentity turn the person's ID token into temporary
 * AWS credentials of the role the pool maps them to, held in memory only and forgotten on sign-out
 * (https://docs.aws.amazon.com/cognitoidentity/latest/APIReference/API_GetCredentialsForIdentity.html).
 */
import type { Credentials } from './api.js';
import {
  CognitoError,
  type CognitoPools,
  type CognitoSession,
  type UserPoolSession,
} from './cognito-types.js';
import { mapStep, type SignInStep } from './sign-in-step.js';
import { userPoolSignIn } from './user-pool.js';

/** Credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * Signs a person in: the user pool by SRP, then the identity pool for temporary credentials;
 * signed in, or the first challenge to answer. @throws CognitoError
 */
export async function startSignIn(
  pools: CognitoPools,
  name: string,
  password: string,
  fetcher: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<SignInStep<CognitoSession>> {
  const identity = async (signIn: UserPoolSession): Promise<CognitoSession> => {
    const credentials = await identityCredentials(
      pools,
      async () => (await signIn.tokens()).idToken,
      fetcher,
    );
    return {
      who: name,
      credentials: credentials.get,
      signOut: async () => {
        credentials.forget();
        await signIn.signOut();
      },
    };
  };
  return mapStep(await userPoolSignIn(pools, name, password), identity, (error) => error);
}

async function identityCall<T>(
  pools: CognitoPools,
  target: string,
  body: unknown,
  fetcher: typeof fetch,
): Promise<T> {
  const url = pools.endpoint ?? `https://cognito-identity.${pools.region}.amazonaws.com/`;
  const operation = target.split('.').at(-1) ?? target;
  let response: Response;
  try {
    response = await fetcher(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': target },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new CognitoError(
      'sign-in could not reach cognito-identity',
      'NetworkError',
      { operation },
      { cause: error },
    );
  }
  const parsed = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const code =
      String(parsed.__type ?? `HTTP ${response.status}`)
        .split('#')
        .at(-1) ?? '';
    throw new CognitoError(String(parsed.message ?? parsed.Message ?? code), code, { operation });
  }
  return parsed as T;
}

/**
 * Temporary credentials for a person's ID token, renewed from the identity pool (with a fresh
 * ID token) shortly before they expire; `forget` drops them for good. Both are JSON calls that
 * need no signature. @throws CognitoError
 */
async function identityCredentials(
  pools: CognitoPools,
  idToken: () => Promise<string>,
  fetcher: typeof fetch,
): Promise<{ get: () => Promise<Credentials>; forget: () => void }> {
  const provider = `cognito-idp.${pools.region}.amazonaws.com/${pools.userPoolId}`;
  const { IdentityId } = await identityCall<{ IdentityId: string }>(
    pools,
    'AWSCognitoIdentityService.GetId',
    { IdentityPoolId: pools.identityPoolId, Logins: { [provider]: await idToken() } },
    fetcher,
  );
  const fresh = async (): Promise<Credentials> => {
    const r = await identityCall<{
      Credentials?: { AccessKeyId: string; SecretKey: string; SessionToken: string; Expiration: number };
    }>(
      pools,
      'AWSCognitoIdentityService.GetCredentialsForIdentity',
      { IdentityId, Logins: { [provider]: await idToken() } },
      fetcher,
    );
    const c = r.Credentials;
    if (!c)
      throw new CognitoError('the identity pool gave no credentials', 'NoCredentials', {
        operation: 'GetCredentialsForIdentity',
      });
    return {
      accessKeyId: c.AccessKeyId,
      secretAccessKey: c.SecretKey,
      sessionToken: c.SessionToken,
      // The API gives seconds since the epoch.
      expiration: new Date(c.Expiration * 1000),
    };
  };
  let current: Credentials | undefined = await fresh();
  let forgotten = false;
  return {
    get: async () => {
      if (forgotten)
        throw new CognitoError('signed out: sign in again', 'SignedOut', {
          operation: 'GetCredentialsForIdentity',
        });
      if (!current || (current.expiration?.getTime() ?? 0) - Date.now() < RENEW_BEFORE_MS)
        current = await fresh();
      return current;
    },
    forget: () => {
      forgotten = true;
      current = undefined;
    },
  };
}
