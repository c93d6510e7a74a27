/**
 * The sign-in seam: whatever way a person signs in, the rest of the app sees a name to show, a
 * function that yields credentials to sign with, and a way to sign out. Credentials live in
 * memory only: a reload asks again, and nothing long-lived is stored in the browser.
 */
import type { Credentials } from './api.js';
import { startSignIn } from './cognito.js';
import { isCognitoError } from './cognito-types.js';
import type { SignInConfig } from './config.js';
import { mapStep, type SignInStep as Step } from './sign-in-step.js';

/** A signed-in person. */
export interface Session {
  /** What the page shows as "signed in as". */
  readonly who: string;
  /** Credentials to sign with. @throws SignInError once signed out */
  readonly credentials: () => Promise<Credentials>;
  /**
   * Forgets every credential of the session; for a Cognito sign-in, revokes its refresh token
   * first. @throws SignInError when the revocation failed (the credentials are forgotten all the same)
   */
  signOut(): Promise<void>;
}

/** Where signing in stands: done with a session, or a challenge to answer (see sign-in-step.ts). */
export type SignInStep = Step<Session>;

/** What the sign-in form collected. */
export interface SignInInput {
  readonly name: string;
  readonly secret: string;
}

/** Sign-in was refused or cannot be done this way. */
export class SignInError extends Error {
  override readonly name = 'SignInError';
  constructor(
    message: string,
    readonly context: { readonly kind: SignInConfig['kind'] },
    options?: ErrorOptions,
  ) {
    super(message, options);
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

/** Cognito's refusal as a SignInError saying why. */
function refused(error: unknown, kind: SignInConfig['kind']): unknown {
  if (!isCognitoError(error)) return error;
  if (error.context.operation === 'RevokeToken') {
    return new SignInError(
      `signed out here, but Cognito did not revoke the sign-in: ${error.message}`,
      { kind },
      {
        cause: error,
      },
    );
  }
  const wrong = error.code === 'NotAuthorizedException' || error.code === 'UserNotFoundException';
  const why =
    error.context.operation === 'InitiateAuth' && wrong
      ? 'the name or password is not right'
      : error.code === 'NotAuthorizedException' && /session/i.test(error.message)
        ? `${error.message} Sign in again to start over.`
        : error.message;
  return new SignInError(`sign-in refused: ${why}`, { kind }, { cause: error });
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
    let credentials: Credentials | undefined = { accessKeyId: name, secretAccessKey: input.secret };
    const session: Session = {
      who: name,
      credentials: async () => {
        if (!credentials) throw new SignInError('signed out: sign in again', { kind: config.kind });
        return credentials;
      },
      signOut: async () => {
        credentials = undefined;
      },
    };
    return { kind: 'done', session };
  }
  const failed = (error: unknown) => refused(error, config.kind);
  try {
    const first = await startSignIn({ ...config, region }, name, input.secret, fetcher);
    return await mapStep(
      first,
      async (s): Promise<Session> => ({
        who: s.who,
        credentials: () => s.credentials().catch((error: unknown) => Promise.reject(failed(error))),
        signOut: () => s.signOut().catch((error: unknown) => Promise.reject(failed(error))),
      }),
      failed,
    );
  } catch (error) {
    throw failed(error);
  }
}
