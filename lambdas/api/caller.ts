/**
 * The caller of a status API request, read from what API Gateway's IAM authorization puts in
 * the event (HTTP API, payload format 2.0).
 */
import type { Principal } from './access.js';
import { userPoolSignInOf } from './people.js';

/**
 * `requestContext.authorizer` of an IAM-authorised HTTP API request. `cognitoIdentity` is null
 * unless the request was signed with credentials a Cognito identity pool handed out; then it
 * names the identity (`identityId`), its pool, and how it signed in (`amr`: `authenticated`
 * and the provider, or `unauthenticated`; a user pool sign-in adds
 * `cognito-idp.<region>.amazonaws.com/<poolId>:CognitoSignIn:<sub>`).
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html
 */
export interface IamAuthorizerContext {
  readonly iam?: {
    readonly userArn?: string | null;
    readonly userId?: string | null;
    readonly accessKey?: string | null;
    readonly cognitoIdentity?: {
      readonly identityId?: string | null;
      readonly identityPoolId?: string | null;
      readonly amr?: readonly string[] | null;
    } | null;
  } | null;
}

/**
 * The principal of a request, or undefined when API Gateway named none. A Cognito caller is
 * admitted only as an authenticated identity: the stack's identity pool gives no guest
 * credentials, so an `unauthenticated` one would be a misconfiguration, and it is refused
 * rather than taken for the role every guest would share.
 *
 * @example
 * callerOf({ iam: { userArn: 'arn:aws:iam::1:user/alice', userId: 'AIDA1' } });
 * // { arn: 'arn:aws:iam::1:user/alice', userId: 'AIDA1' }
 */
export function callerOf(authorizer: IamAuthorizerContext | null | undefined): Principal | undefined {
  const iam = authorizer?.iam;
  if (!iam?.userArn) return undefined;
  const cognito = iam.cognitoIdentity;
  const principal = { arn: iam.userArn, ...(iam.userId ? { userId: iam.userId } : {}) };
  if (!cognito) return principal;
  if (!cognito.identityId || !(cognito.amr ?? []).includes('authenticated')) return undefined;
  const signIn = userPoolSignInOf(cognito.amr);
  return {
    ...principal,
    cognitoIdentityId: cognito.identityId,
    ...(signIn ? { userPoolSignIn: signIn } : {}),
  };
}
