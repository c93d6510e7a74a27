/**
 * The sign-in seam: whatever way a person signs in, the rest of the app sees a name to show and
 * a function that yields credentials to sign with. Credentials live in memory only: a reload
 * asks again, and nothing long-lived is stored in the browser.
 */
import type { Credentials } from './api.js';
import { type SignInStep as CognitoStep, isCognitoError, startSignIn } from './cognito.js';
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

/**
 * Where signing in stands: done, or a challenge of the user pool to answer (see
 * {@link CognitoStep}); each `answer` yields the next step. @throws SignInError from `answer`
 */
export type SignInStep =
  | { readonly kind: 'done'; readonly session: Session }
  | { readonly kind: 'new-password'; answer(password: string): Promise<SignInStep> }
  | {
      readonly kind: 'mfa-setup';
      readonly secret: string;
      readonly uri: string;
      answer(code: string): Promise<SignInStep>;
    }
  | { readonly kind: 'mfa-code'; answer(code: string): Promise<SignInStep> };

/** Cognito's refusal as a SignInError saying why. */
function refused(error: unknown, kind: SignInConfig['kind']): unknown {
  if (!isCognitoError(error)) return error;
  const wrong = error.code === 'NotAuthorizedException' || error.code === 'UserNotFoundException';
  const why =
    error.context.operation === 'InitiateAuth' && wrong
      ? 'the name or password is not right'
      : error.code === 'NotAuthorizedException' && /session/i.test(error.message)
        ? `${error.message} Sign in again to start over.`
        : error.message;
  return new SignInError(`sign-in refused: ${why}`, { kind }, { cause: error });
}

/** A Cognito step as the app's, with the person's name and errors as SignInError. */
function step(who: string, s: CognitoStep, kind: SignInConfig['kind']): SignInStep {
  if (s.kind === 'signed-in') return { kind: 'done', session: { who, credentials: s.credentials } };
  const answer = async (value: string) => {
    try {
      return step(who, await s.answer(value), kind);
    } catch (error) {
      throw refused(error, kind);
    }
  };
  return s.kind === 'mfa-setup'
    ? { kind: s.kind, secret: s.secret, uri: s.uri, answer }
    : { kind: s.kind, answer };
}

/** Signs in (`region`: the Cognito pools'). @throws SignInError */
export async function signIn(
  config: SignInConfig,
  input: SignInInput,
  region = '',
  fetcher?: typeof fetch,
): Promise<SignInStep> {
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
    return { kind: 'done', session: { who: name, credentials: async () => credentials } };
  }
  try {
    return step(name, await startSignIn({ ...config, region }, name, input.secret, fetcher), config.kind);
  } catch (error) {
    throw refused(error, config.kind);
  }
}
