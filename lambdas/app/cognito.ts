/**
 * Sign-in through Amazon Cognito without an SDK: the user pool's InitiateAuth
 * (USER_PASSWORD_AUTH) for the person's ID token, then the identity pool's GetId and
 * GetCredentialsForIdentity for temporary AWS credentials of the role the pool maps them to.
 * Both are JSON-over-HTTP APIs that need no signature
 * (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_InitiateAuth.html,
 * https://docs.aws.amazon.com/cognitoidentity/latest/APIReference/API_GetCredentialsForIdentity.html).
 */
import type { Credentials } from './api.js';

/** Where the pools are; `endpoint` replaces both services' hosts (an emulator). */
export interface CognitoPools {
  readonly region: string;
  readonly userPoolId: string;
  readonly clientId: string;
  readonly identityPoolId: string;
  readonly endpoint?: string;
}

/** Cognito refused or could not be reached; `code` is its error type (`NotAuthorizedException`). */
export class CognitoError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly context: { readonly operation: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CognitoError';
  }
}

/** True for a {@link CognitoError}. */
export function isCognitoError(error: unknown): error is CognitoError {
  return error instanceof CognitoError;
}

/** Credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 5 * 60_000;

async function call<T>(
  pools: CognitoPools,
  service: 'cognito-idp' | 'cognito-identity',
  target: string,
  body: unknown,
  fetcher: typeof fetch,
): Promise<T> {
  const url = pools.endpoint ?? `https://${service}.${pools.region}.amazonaws.com/`;
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
      `sign-in could not reach ${service}`,
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

/** The ID token of a person's name and password. @throws CognitoError */
async function idToken(pools: CognitoPools, name: string, password: string, fetcher: typeof fetch) {
  const r = await call<{ AuthenticationResult?: { IdToken?: string }; ChallengeName?: string }>(
    pools,
    'cognito-idp',
    'AWSCognitoIdentityProviderService.InitiateAuth',
    {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: pools.clientId,
      AuthParameters: { USERNAME: name, PASSWORD: password },
    },
    fetcher,
  );
  if (r.ChallengeName) {
    throw new CognitoError(
      `the account must first answer Cognito's ${r.ChallengeName} challenge (e.g. set a new password) before it can sign in here`,
      r.ChallengeName,
      { operation: 'InitiateAuth' },
    );
  }
  const token = r.AuthenticationResult?.IdToken;
  if (!token)
    throw new CognitoError('Cognito answered without an ID token', 'NoIdToken', {
      operation: 'InitiateAuth',
    });
  return token;
}

/**
 * Signs a person in and returns a source of temporary credentials, renewed from the identity
 * pool while the ID token lasts. @throws CognitoError
 */
export async function cognitoCredentials(
  pools: CognitoPools,
  name: string,
  password: string,
  fetcher: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<() => Promise<Credentials>> {
  const token = await idToken(pools, name, password, fetcher);
  const logins = { [`cognito-idp.${pools.region}.amazonaws.com/${pools.userPoolId}`]: token };
  const { IdentityId } = await call<{ IdentityId: string }>(
    pools,
    'cognito-identity',
    'AWSCognitoIdentityService.GetId',
    { IdentityPoolId: pools.identityPoolId, Logins: logins },
    fetcher,
  );
  const fresh = async (): Promise<Credentials> => {
    const r = await call<{
      Credentials?: { AccessKeyId: string; SecretKey: string; SessionToken: string; Expiration: number };
    }>(
      pools,
      'cognito-identity',
      'AWSCognitoIdentityService.GetCredentialsForIdentity',
      { IdentityId, Logins: logins },
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
  let current = await fresh();
  return async () => {
    if ((current.expiration?.getTime() ?? 0) - Date.now() < RENEW_BEFORE_MS) current = await fresh();
    return current;
  };
}
