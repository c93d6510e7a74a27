/**
 * What the sign-in dialog hands the task pane with `messageParent`: the person's name and the
 * temporary AWS credentials the sign-in produced, as a string (the only thing that crosses from
 * the dialog's window to the pane's). The pane keeps them in memory and asks for a new sign-in
 * once they expire; nothing is written to storage on either side.
 */
import type { Credentials } from '../api.js';
import type { Session } from '../session.js';

/** A signed-in person, as the pane holds them. */
export interface PaneSession {
  readonly who: string;
  /** @throws SignInEndedError once the credentials have expired */
  readonly credentials: () => Promise<Credentials>;
}

/** The credentials the dialog handed over have expired: the pane signs in again. */
export class SignInEndedError extends Error {
  override readonly name = 'SignInEndedError';
}

/** True for a {@link SignInEndedError}. */
export function isSignInEndedError(error: unknown): error is SignInEndedError {
  return error instanceof SignInEndedError;
}

/** Credentials are given up this long before they expire, so no request is signed with stale ones. */
const EXPIRY_MARGIN_MS = 60_000;

/** The message of a finished sign-in. */
export function signInMessage(who: string, c: Credentials): string {
  return JSON.stringify({
    kind: 'clause-review/signed-in',
    who,
    credentials: {
      accessKeyId: c.accessKeyId,
      secretAccessKey: c.secretAccessKey,
      ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}),
      ...(c.expiration ? { expiration: c.expiration.toISOString() } : {}),
    },
  });
}

/**
 * Ends the dialog's sign-in with the pane holding its credentials: takes them, signs the dialog's
 * session out (for a Cognito sign-in, its refresh token revoked), then `send`s them. The pane
 * closes the dialog as soon as the message arrives, so the revocation is done before, and the
 * window keeps nothing. A failed revocation does not stop the hand-over (the token dies with the
 * window's memory, and Cognito lets it lapse); it is returned, for the window to say.
 * @returns the revocation's failure, or undefined
 */
export async function handOver(session: Session, send: (message: string) => void): Promise<unknown> {
  const credentials = await session.credentials();
  let failure: unknown;
  try {
    await session.signOut();
  } catch (error) {
    failure = error;
  }
  send(signInMessage(session.who, credentials));
  return failure;
}

/**
 * The session a message from the dialog carries.
 * @throws Error when the message is not a sign-in's
 */
export function readSignInMessage(message: string, now: () => number = Date.now): PaneSession {
  let parsed: { kind?: unknown; who?: unknown; credentials?: Record<string, unknown> };
  try {
    parsed = JSON.parse(message);
  } catch {
    throw new Error('the sign-in window sent something that is not a sign-in');
  }
  const c = parsed.credentials;
  if (
    parsed.kind !== 'clause-review/signed-in' ||
    typeof parsed.who !== 'string' ||
    typeof c?.accessKeyId !== 'string' ||
    typeof c.secretAccessKey !== 'string'
  ) {
    throw new Error('the sign-in window sent something that is not a sign-in');
  }
  const expiration = typeof c.expiration === 'string' ? new Date(c.expiration) : undefined;
  const credentials: Credentials = {
    accessKeyId: c.accessKeyId,
    secretAccessKey: c.secretAccessKey,
    ...(typeof c.sessionToken === 'string' ? { sessionToken: c.sessionToken } : {}),
    ...(expiration ? { expiration } : {}),
  };
  return {
    who: parsed.who,
    credentials: async () => {
      if (expiration && expiration.getTime() - now() < EXPIRY_MARGIN_MS) {
        throw new SignInEndedError('your sign-in has ended: sign in again');
      }
      return credentials;
    },
  };
}
