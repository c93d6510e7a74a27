/**
 * Sign-in through Amazon Cognito without an SDK: the user pool's InitiateAuth
 * (USER_PASSWORD_AUTH) and the challenges it may raise (a new password, setting up or using an
 * authenticator app) for the person's ID token, then the identity pool's GetId and
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

/** What InitiateAuth and RespondToAuthChallenge answer. */
interface AuthAnswer {
  readonly AuthenticationResult?: { readonly IdToken?: string };
  readonly ChallengeName?: string;
  readonly ChallengeParameters?: Record<string, string>;
  readonly Session?: string;
}

/**
 * Where a sign-in stands: signed in, or a challenge of the user pool to answer. Each challenge's
 * `answer` makes the next Cognito call and yields the next step. The deployed pool asks for:
 * - `new-password`: an account an administrator created signs in with its temporary password
 *   (NEW_PASSWORD_REQUIRED), and chooses its own;
 * - `mfa-setup`: MFA is required and the account has no authenticator yet (MFA_SETUP): the
 *   secret to enter in an authenticator app, then a code of it;
 * - `mfa-code`: a code of the account's authenticator (SOFTWARE_TOKEN_MFA).
 * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RespondToAuthChallenge.html
 */
export type SignInStep =
  | { readonly kind: 'signed-in'; readonly credentials: () => Promise<Credentials> }
  | { readonly kind: 'new-password'; answer(password: string): Promise<SignInStep> }
  | {
      readonly kind: 'mfa-setup';
      /** The base32 secret key, for typing into an authenticator app. */
      readonly secret: string;
      /** The same as an `otpauth://totp/…` URI, for apps that open or scan one. */
      readonly uri: string;
      answer(code: string): Promise<SignInStep>;
    }
  | { readonly kind: 'mfa-code'; answer(code: string): Promise<SignInStep> };

/** The issuer authenticator apps show beside the account. */
const TOTP_ISSUER = 'clause-review';

/**
 * The key URI authenticator apps take (`otpauth://totp/<issuer>:<account>?secret=…&issuer=…`,
 * https://github.com/google/google-authenticator/wiki/Key-Uri-Format).
 */
export function totpUri(secret: string, account: string): string {
  const label = `${encodeURIComponent(TOTP_ISSUER)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(TOTP_ISSUER)}`;
}

/** A 6-digit code as typed (spaces allowed), or a CognitoError naming what is wrong. */
function sixDigits(code: string, operation: string): string {
  const digits = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(digits)) {
    throw new CognitoError('enter the 6-digit code your authenticator app shows', 'BadCode', { operation });
  }
  return digits;
}

/** One sign-in in flight: the person's name and the pools, between Cognito's answers. */
class Flow {
  constructor(
    private readonly pools: CognitoPools,
    private readonly name: string,
    private readonly fetcher: typeof fetch,
  ) {}

  private respond(challenge: string, session: string | undefined, responses: Record<string, string>) {
    // https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RespondToAuthChallenge.html
    return call<AuthAnswer>(
      this.pools,
      'cognito-idp',
      'AWSCognitoIdentityProviderService.RespondToAuthChallenge',
      {
        ClientId: this.pools.clientId,
        ChallengeName: challenge,
        Session: session,
        ChallengeResponses: responses,
      },
      this.fetcher,
    );
  }

  /** The step Cognito's answer leads to. @throws CognitoError */
  async next(r: AuthAnswer): Promise<SignInStep> {
    const token = r.AuthenticationResult?.IdToken;
    if (token)
      return { kind: 'signed-in', credentials: await identityCredentials(this.pools, token, this.fetcher) };
    // Challenges name the user as the pool knows it (its `sub` where email is the sign-in alias).
    const username = r.ChallengeParameters?.USER_ID_FOR_SRP ?? r.ChallengeParameters?.USERNAME ?? this.name;
    switch (r.ChallengeName) {
      case 'NEW_PASSWORD_REQUIRED':
        return {
          kind: 'new-password',
          answer: async (password) =>
            this.next(
              await this.respond('NEW_PASSWORD_REQUIRED', r.Session, {
                USERNAME: username,
                NEW_PASSWORD: password,
              }),
            ),
        };
      case 'MFA_SETUP':
        return this.mfaSetup(username, r.Session);
      case 'SOFTWARE_TOKEN_MFA':
        return {
          kind: 'mfa-code',
          answer: async (code) =>
            this.next(
              await this.respond('SOFTWARE_TOKEN_MFA', r.Session, {
                USERNAME: username,
                SOFTWARE_TOKEN_MFA_CODE: sixDigits(code, 'RespondToAuthChallenge'),
              }),
            ),
        };
      case undefined:
        throw new CognitoError('Cognito answered without an ID token', 'NoIdToken', {
          operation: 'InitiateAuth',
        });
      default:
        throw new CognitoError(
          `Cognito asked for a ${r.ChallengeName} challenge, which this app does not answer`,
          r.ChallengeName,
          { operation: 'InitiateAuth' },
        );
    }
  }

  /**
   * MFA_SETUP: AssociateSoftwareToken with the challenge's session gives the secret; the code
   * the person's app then shows goes to VerifySoftwareToken, and its session answers MFA_SETUP.
   * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_AssociateSoftwareToken.html
   * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_VerifySoftwareToken.html
   */
  private async mfaSetup(username: string, session: string | undefined): Promise<SignInStep> {
    const associated = await call<{ SecretCode?: string; Session?: string }>(
      this.pools,
      'cognito-idp',
      'AWSCognitoIdentityProviderService.AssociateSoftwareToken',
      { Session: session },
      this.fetcher,
    );
    const secret = associated.SecretCode;
    if (!secret)
      throw new CognitoError('Cognito gave no authenticator secret', 'NoSecretCode', {
        operation: 'AssociateSoftwareToken',
      });
    return {
      kind: 'mfa-setup',
      secret,
      uri: totpUri(secret, this.name),
      answer: async (code) => {
        const verified = await call<{ Status?: string; Session?: string }>(
          this.pools,
          'cognito-idp',
          'AWSCognitoIdentityProviderService.VerifySoftwareToken',
          {
            Session: associated.Session ?? session,
            UserCode: sixDigits(code, 'VerifySoftwareToken'),
            FriendlyDeviceName: TOTP_ISSUER,
          },
          this.fetcher,
        );
        if (verified.Status !== 'SUCCESS')
          throw new CognitoError('Cognito did not accept the code', 'VerifyFailed', {
            operation: 'VerifySoftwareToken',
          });
        return this.next(await this.respond('MFA_SETUP', verified.Session, { USERNAME: username }));
      },
    };
  }
}

/**
 * Starts signing a person in with name and password (USER_PASSWORD_AUTH): signed in, or the
 * first challenge to answer. @throws CognitoError
 */
export async function startSignIn(
  pools: CognitoPools,
  name: string,
  password: string,
  fetcher: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<SignInStep> {
  const first = await call<AuthAnswer>(
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
  return new Flow(pools, name, fetcher).next(first);
}

/**
 * A source of temporary credentials for a person's ID token, renewed from the identity pool
 * while the ID token lasts. @throws CognitoError
 */
async function identityCredentials(
  pools: CognitoPools,
  token: string,
  fetcher: typeof fetch,
): Promise<() => Promise<Credentials>> {
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
