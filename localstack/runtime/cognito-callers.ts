/**
 * Who signed a request with credentials a Cognito identity pool handed out. API Gateway's IAM
 * authorization knows that for every key STS issued, and names the identity in the request
 * context (`requestContext.authorizer.iam.cognitoIdentity` in an HTTP API's payload 2.0:
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html).
 * Locally the project's moto launcher, which handed the key out, answers the same question.
 */
import { guardOf } from '../../lambdas/core/error-guard.js';

/** A temporary key and the signed-in identity behind it. */
export interface TemporaryCaller {
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  /** Epoch milliseconds after which the key is refused. */
  readonly expiresAt: number;
  /** `arn:aws:sts::…:assumed-role/<Role>/CognitoIdentityCredentials`. */
  readonly arn: string;
  /** `AROA…:CognitoIdentityCredentials`. */
  readonly userId: string;
  readonly identityId: string;
  readonly identityPoolId: string;
  /** `authenticated`, the provider, and the provider with the person's `sub`. */
  readonly amr: readonly string[];
}

/** Looks up the temporary key an access key id names, or undefined for one nobody handed out. */
export type TemporaryCallerLookup = (accessKeyId: string) => Promise<TemporaryCaller | undefined>;

/** Raised when the emulator's answer about a key cannot be read. */
export class CallerLookupError extends Error {
  override readonly name = 'CallerLookupError';
  constructor(
    message: string,
    readonly accessKeyId: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** True for a {@link CallerLookupError}. */
export const isCallerLookupError = guardOf(CallerLookupError);

interface LauncherAnswer {
  SecretAccessKey: string;
  SessionToken: string;
  Expiration: number;
  IdentityId: string;
  IdentityPoolId: string;
  Amr: string[];
  Arn: string;
  UserId: string;
}

/**
 * The lookup the moto launcher serves (`GET /_clause-review/cognito-credentials/<key>`), with the
 * answers kept: a key's identity never changes.
 *
 * @example
 * const lookup = cognitoCallerLookup('http://127.0.0.1:5000');
 * (await lookup('ASIA…'))?.identityId; // 'us-east-1:…'
 */
export function cognitoCallerLookup(awsEndpoint: string): TemporaryCallerLookup {
  const known = new Map<string, TemporaryCaller>();
  return async (accessKeyId) => {
    if (!/^[A-Z0-9]{16,128}$/.test(accessKeyId)) return undefined;
    const cached = known.get(accessKeyId);
    if (cached) return cached;
    const url = new URL(`/_clause-review/cognito-credentials/${accessKeyId}`, awsEndpoint);
    const response = await fetch(url);
    if (response.status === 404) return undefined;
    if (!response.ok) {
      throw new CallerLookupError(
        `the emulator answered ${response.status} about key ${accessKeyId}`,
        accessKeyId,
      );
    }
    const a = (await response.json()) as LauncherAnswer;
    if (typeof a.SecretAccessKey !== 'string' || typeof a.IdentityId !== 'string') {
      throw new CallerLookupError(
        `the emulator's answer about key ${accessKeyId} lacks its secret or identity`,
        accessKeyId,
      );
    }
    const caller: TemporaryCaller = {
      secretAccessKey: a.SecretAccessKey,
      sessionToken: a.SessionToken,
      expiresAt: Math.round(a.Expiration * 1000),
      arn: a.Arn,
      userId: a.UserId,
      identityId: a.IdentityId,
      identityPoolId: a.IdentityPoolId,
      amr: a.Amr,
    };
    known.set(accessKeyId, caller);
    return caller;
  };
}
