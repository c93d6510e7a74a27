/**
 * The user pool's half of sign-in: SRP (USER_SRP_AUTH: the password never leaves the browser,
 * only a proof of it) through amazon-cognito-identity-js, the Amplify team's user pool client,
 * with the challenges the pool may raise (a new password, setting up or using an authenticator
 * app). Tokens live in memory only; signing out revokes the refresh token (RevokeToken)
 * (https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-authentication-flow-methods.html,
 * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RevokeToken.html).
 */
import {
  AuthenticationDetails,
  CognitoUser,
  CognitoUserPool,
  type CognitoUserSession,
  type IAuthenticationCallback,
  type ICognitoStorage,
} from 'amazon-cognito-identity-js';
import { CognitoError, type CognitoPools, isCognitoError, type UserPoolSession } from './cognito-types.js';
import type { SignInStep } from './sign-in-step.js';

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

/** The library's error (`code`, `message`) as a CognitoError of `operation`. */
function cognitoError(error: unknown, operation: string): CognitoError {
  if (isCognitoError(error)) return error;
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | undefined;
  const code = String(e?.code ?? e?.name ?? 'Error');
  const message = String(e?.message || code);
  return new CognitoError(
    code === 'NetworkError' ? `sign-in could not reach Cognito: ${message}` : message,
    code,
    { operation },
    { cause: error },
  );
}

/** The browser's storage for the library's tokens: memory only, so a reload asks again. */
class MemoryStorage implements ICognitoStorage {
  private readonly items = new Map<string, string>();
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  clear(): void {
    this.items.clear();
  }
}

type Answer = SignInStep<UserPoolSession>;

/** One user pool sign-in in flight: the library's user, between Cognito's answers. */
class Flow {
  constructor(
    private readonly user: CognitoUser,
    private readonly storage: MemoryStorage,
    private readonly name: string,
  ) {}

  /** Starts one call of the library and resolves with the step its callbacks lead to. */
  run(operation: string, start: (callbacks: IAuthenticationCallback) => void): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const unanswered = (challenge: string) =>
        reject(
          new CognitoError(
            `Cognito asked for a ${challenge} challenge, which this app does not answer`,
            challenge,
            { operation },
          ),
        );
      start({
        onSuccess: () => resolve({ kind: 'done', session: this.session() }),
        onFailure: (error) => reject(cognitoError(error, operation)),
        newPasswordRequired: () =>
          resolve({
            kind: 'new-password',
            answer: this.once('RespondToAuthChallenge', (password) =>
              this.run('RespondToAuthChallenge', (cb) =>
                this.user.completeNewPasswordChallenge(password, {}, cb),
              ),
            ),
          }),
        totpRequired: () =>
          resolve({
            kind: 'mfa-code',
            answer: this.once('RespondToAuthChallenge', (code) => {
              const digits = sixDigits(code, 'RespondToAuthChallenge');
              return this.run('RespondToAuthChallenge', (cb) =>
                this.user.sendMFACode(digits, cb, 'SOFTWARE_TOKEN_MFA'),
              );
            }),
          }),
        mfaSetup: () => this.mfaSetup().then(resolve, reject),
        mfaRequired: (challenge) => unanswered(challenge),
        selectMFAType: (challenge) => unanswered(challenge),
        customChallenge: () => unanswered('CUSTOM_CHALLENGE'),
      });
    });
  }

  /**
   * An answer that may be retried while refused, and not once accepted: the step's challenge
   * session is spent, and the person signs in again.
   */
  private once(
    operation: string,
    answer: (value: string) => Promise<Answer>,
  ): (value: string) => Promise<Answer> {
    let accepted = false;
    return async (value) => {
      if (accepted)
        throw new CognitoError(
          'this step was answered already; sign in again to start over',
          'StepAnswered',
          {
            operation,
          },
        );
      const next = await answer(value);
      accepted = true;
      return next;
    };
  }

  /**
   * MFA_SETUP: AssociateSoftwareToken with the challenge's session gives the secret; the code
   * the person's app then shows goes to VerifySoftwareToken, and its session answers MFA_SETUP.
   * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_AssociateSoftwareToken.html
   * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_VerifySoftwareToken.html
   */
  private mfaSetup(): Promise<Answer> {
    return new Promise((resolve, reject) =>
      this.user.associateSoftwareToken({
        associateSecretCode: (secret) =>
          resolve({
            kind: 'mfa-setup',
            secret,
            uri: totpUri(secret, this.name),
            answer: this.once('VerifySoftwareToken', (code) => {
              const digits = sixDigits(code, 'VerifySoftwareToken');
              return this.run('VerifySoftwareToken', (cb) =>
                this.user.verifySoftwareToken(digits, TOTP_ISSUER, cb),
              );
            }),
          }),
        onFailure: (error) => reject(cognitoError(error, 'AssociateSoftwareToken')),
      }),
    );
  }

  private session(): UserPoolSession {
    let ended = false;
    const current = () =>
      new Promise<CognitoUserSession>((resolve, reject) => {
        if (ended) {
          reject(new CognitoError('signed out: sign in again', 'SignedOut', { operation: 'RefreshTokens' }));
          return;
        }
        this.user.getSession((error: Error | null, session: CognitoUserSession | null) =>
          error || !session ? reject(cognitoError(error, 'RefreshTokens')) : resolve(session),
        );
      });
    return {
      tokens: async () => {
        const s = await current();
        return {
          idToken: s.getIdToken().getJwtToken(),
          accessToken: s.getAccessToken().getJwtToken(),
          refreshToken: s.getRefreshToken().getToken(),
        };
      },
      signOut: async () => {
        if (ended) return;
        ended = true;
        try {
          // The library revokes the refresh token when the access token carries `origin_jti`,
          // as it does from a client with token revocation enabled, then forgets its tokens.
          await new Promise<void>((resolve, reject) =>
            this.user.signOut(((error?: unknown) =>
              error ? reject(cognitoError(error, 'RevokeToken')) : resolve()) as () => void),
          );
        } finally {
          this.storage.clear();
        }
      },
    };
  }
}

/**
 * Signs a person in to the user pool by SRP: done with their tokens, or the first challenge
 * to answer. @throws CognitoError
 *
 * @example
 * const step = await userPoolSignIn(pools, 'ana@example.com', password);
 * if (step.kind === 'done') (await step.session.tokens()).idToken;
 */
export async function userPoolSignIn(
  pools: CognitoPools,
  name: string,
  password: string,
): Promise<SignInStep<UserPoolSession>> {
  const storage = new MemoryStorage();
  const pool = new CognitoUserPool({
    UserPoolId: pools.userPoolId,
    ClientId: pools.clientId,
    Storage: storage,
    ...(pools.endpoint ? { endpoint: pools.endpoint } : {}),
  });
  const user = new CognitoUser({ Username: name, Pool: pool, Storage: storage });
  user.setAuthenticationFlowType('USER_SRP_AUTH');
  const details = new AuthenticationDetails({ Username: name, Password: password });
  return new Flow(user, storage, name).run('InitiateAuth', (cb) => user.authenticateUser(details, cb));
}
