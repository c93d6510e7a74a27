/**
 * Where a sign-in stands: done, or a challenge of the user pool to answer. The user pool's
 * sign-in ends in its tokens and the app's in a session; both go through the same steps, so
 * there is one type, over what the end holds.
 */

/**
 * A step of signing in. Each challenge's `answer` makes the next call and yields the next step.
 * The stack's user pool asks for:
 * - `new-password`: an account an administrator created signs in with its temporary password
 *   (NEW_PASSWORD_REQUIRED), and chooses its own;
 * - `mfa-setup`: MFA is required and the account has no authenticator yet (MFA_SETUP): the
 *   secret to enter in an authenticator app, then a code of it;
 * - `mfa-code`: a code of the account's authenticator (SOFTWARE_TOKEN_MFA).
 * https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_RespondToAuthChallenge.html
 */
export type SignInStep<Done> =
  | { readonly kind: 'done'; readonly session: Done }
  | { readonly kind: 'new-password'; answer(password: string): Promise<SignInStep<Done>> }
  | {
      readonly kind: 'mfa-setup';
      /** The base32 secret key, for typing into an authenticator app. */
      readonly secret: string;
      /** The same as an `otpauth://totp/…` URI, for apps that open or scan one. */
      readonly uri: string;
      answer(code: string): Promise<SignInStep<Done>>;
    }
  | { readonly kind: 'mfa-code'; answer(code: string): Promise<SignInStep<Done>> };

/**
 * The same steps ending in `done(end)` instead of `end`; what an answer (or `done` after it)
 * throws goes through `failed`, whose result is thrown.
 *
 * @example
 * const appStep = await mapStep(poolStep, async (tokens) => sessionOf(tokens), (e) => e);
 */
export async function mapStep<A, B>(
  step: SignInStep<A>,
  done: (end: A) => Promise<B>,
  failed: (error: unknown) => unknown,
): Promise<SignInStep<B>> {
  if (step.kind === 'done') return { kind: 'done', session: await done(step.session) };
  const answer = async (value: string): Promise<SignInStep<B>> => {
    try {
      return await mapStep(await step.answer(value), done, failed);
    } catch (error) {
      throw failed(error);
    }
  };
  return step.kind === 'mfa-setup'
    ? { kind: step.kind, secret: step.secret, uri: step.uri, answer }
    : { kind: step.kind, answer };
}
