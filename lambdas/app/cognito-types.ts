/** What sign-in through Cognito is given and gives back, and how it fails (cognito.ts, user-pool.ts). */
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
  override readonly name = 'CognitoError';
  constructor(
    message: string,
    readonly code: string,
    readonly context: { readonly operation: string },
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** True for a {@link CognitoError}. */
export function isCognitoError(error: unknown): error is CognitoError {
  return error instanceof CognitoError;
}

/** A user pool sign-in's tokens, as they stand now. */
export interface UserPoolTokens {
  readonly idToken: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** A finished user pool sign-in. */
export interface UserPoolSession {
  /** Its tokens; expired ID and access tokens are renewed with the refresh token. @throws CognitoError */
  tokens(): Promise<UserPoolTokens>;
  /**
   * Revokes the refresh token (and the access tokens issued from it) and forgets every token,
   * whether or not Cognito could be reached. @throws CognitoError when the revocation failed
   */
  signOut(): Promise<void>;
}

/** A signed-in person, as the app sees them. */
export interface CognitoSession {
  readonly who: string;
  readonly credentials: () => Promise<Credentials>;
  signOut(): Promise<void>;
}
