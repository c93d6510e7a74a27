/**
 * The sign-in seam: whatever way a person signs in, the rest of the app sees a name to show and
 * a function that yields credentials to sign with. Credentials live in memory only: a reload
 * asks again, and nothing long-lived is stored in the browser.
 */
import type { Credentials } from './api.js';
import { cognitoCredentials, isCognitoError } from './cognito.js';
import type { SignInConfig } from './config.js';

/** A signed-in person. */
export interface Session {
  /** What the page shows as "signed in as". */
  readonly who: string;
  readonly credentials: () => Promise<Credentials>;
}

/** What the sign-in form collected. */
export interface SignInInput {
  readonly name: string;
  readonly secret: string;
}

/** Sign-in was refused or cannot be done this way. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly context: { readonly kind: SignInConfig['kind'] },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SignInError';
  }
}

/** True for a {@link SignInError}. */
export function isSignInError(error: unknown): error is SignInError {
  return error instanceof SignInError;
}

/** The labels of the sign-in form's two fields for a way of signing in. */
export function signInLabels(config: SignInConfig): { name: string; secret: string } {
  return config.kind === 'keys'
    ? { name: 'Access key ID', secret: 'Secret access key' }
    : { name: 'Email or user name', secret: 'Password' };
}

/** Signs in (`region`: the Cognito pools'). @throws SignInError */
export async function signIn(
  config: SignInConfig,
  input: SignInInput,
  region = '',
  fetcher?: typeof fetch,
): Promise<Session> {
  const name = input.name.trim();
  if (name === '' || input.secret === '') {
    throw new SignInError(
      `enter both the ${signInLabels(config).name.toLowerCase()} and the ${signInLabels(config).secret.toLowerCase()}`,
      {
        kind: config.kind,
      },
    );
  }
  if (config.kind === 'keys') {
    const credentials: Credentials = { accessKeyId: name, secretAccessKey: input.secret };
    return { who: name, credentials: async () => credentials };
  }
  try {
    const credentials = await cognitoCredentials({ ...config, region }, name, input.secret, fetcher);
    return { who: name, credentials };
  } catch (error) {
    if (!isCognitoError(error)) throw error;
    const wrong = error.code === 'NotAuthorizedException' || error.code === 'UserNotFoundException';
    throw new SignInError(
      `sign-in refused: ${wrong ? 'the name or password is not right' : error.message}`,
      { kind: config.kind },
      { cause: error },
    );
  }
}
