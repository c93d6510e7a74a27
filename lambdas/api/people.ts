/**
 * Who a person signed in through the stack's user pool is, for the decision trail: the pool's
 * permanent id of them (`sub`), always, and a name to show beside it only where the pool vouches
 * for it: their email when the pool marks it verified (`email_verified` is `true`), else their
 * user name, which never changes. An unverified email is someone's claim, not a name: a person
 * who could set their own address to another's would decide "as" them
 * (https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-email-phone-verification.html).
 *
 * A request signed with identity-pool credentials names the user pool sign-in behind them: in
 * an HTTP API's IAM authorizer context, `cognitoIdentity.amr` holds `authenticated`, the
 * provider (`cognito-idp.<region>.amazonaws.com/<poolId>`) and
 * `cognito-idp.<region>.amazonaws.com/<poolId>:CognitoSignIn:<sub>`
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html);
 * a REST API's `$context.identity.cognitoAuthenticationProvider` carries the same
 * `…:CognitoSignIn:<sub>` entry
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html).
 * The `sub` is the user pool's permanent id of the person; ListUsers with the filter
 * `sub = "<sub>"` finds them
 * (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_ListUsers.html).
 */
import {
  AdminListGroupsForUserCommand,
  type CognitoIdentityProviderClient,
  ListUsersCommand,
  type UserType,
} from '@aws-sdk/client-cognito-identity-provider';
import type { Principal, UserPoolSignIn } from './access.js';
import { GroupLookupError } from './errors.js';

const SIGN_IN =
  /^cognito-idp\.[a-z0-9-]+\.amazonaws\.com\/([\w-]+_[0-9A-Za-z]+):CognitoSignIn:([0-9a-fA-F-]{1,128})$/;

/**
 * The user pool sign-in an `amr` list (or a `cognitoAuthenticationProvider` string, whose
 * comma-separated parts are the same entries) names, or undefined.
 *
 * @example
 * userPoolSignInOf(['authenticated', 'cognito-idp.us-east-1.amazonaws.com/us-east-1_Ab1',
 *   'cognito-idp.us-east-1.amazonaws.com/us-east-1_Ab1:CognitoSignIn:1f2e…']);
 * // { userPoolId: 'us-east-1_Ab1', sub: '1f2e…' }
 */
export function userPoolSignInOf(
  amr: readonly string[] | string | null | undefined,
): UserPoolSignIn | undefined {
  const entries = typeof amr === 'string' ? amr.split(',') : (amr ?? []);
  for (const entry of entries) {
    const m = SIGN_IN.exec(entry.trim());
    if (m) return { userPoolId: m[1] ?? '', sub: m[2] ?? '' };
  }
  return undefined;
}

/** The label of the person behind a caller, or undefined when there is none to give. */
export type PersonLabels = (caller: Principal) => Promise<string | undefined>;

/**
 * The name the pool vouches for: the email when `email_verified` is `true`, else the user name
 * unless it is only the `sub` again (a pool whose people sign in by email names them by it).
 */
function vouchedName(
  user: { Username?: string; Attributes?: { Name?: string; Value?: string }[] },
  sub: string,
): string | undefined {
  const attribute = (name: string) => user.Attributes?.find((a) => a.Name === name)?.Value;
  const email = attribute('email');
  if (email && attribute('email_verified') === 'true') return email;
  return user.Username && user.Username !== sub ? user.Username : undefined;
}

/** The person a caller's user pool sign-in names, or undefined for a caller of another pool or none. */
async function signedInUser(
  idp: CognitoIdentityProviderClient,
  userPoolId: string,
  caller: Principal,
): Promise<{ user: UserType; sub: string } | undefined> {
  const signIn = caller.userPoolSignIn;
  if (!signIn || signIn.userPoolId !== userPoolId) return undefined;
  const r = await idp.send(
    new ListUsersCommand({ UserPoolId: userPoolId, Filter: `sub = "${signIn.sub}"`, Limit: 1 }),
  );
  const user = r.Users?.[0];
  return user ? { user, sub: signIn.sub } : undefined;
}

/**
 * Labels from the stack's user pool: the verified email of the person whose `sub` signed the
 * request, else their user name (see above); undefined for a caller of another pool or none, an
 * unverified address, and when the pool does not answer (the trail then names the `sub` alone).
 * Asked afresh each time: an email can change, and a decision names whoever decides as they
 * stand at that moment.
 */
export function userPoolLabels(
  idp: CognitoIdentityProviderClient,
  userPoolId: string,
  log: (message: string, error: unknown) => void = () => {},
): PersonLabels {
  return async (caller) => {
    try {
      const found = await signedInUser(idp, userPoolId, caller);
      return found ? vouchedName(found.user, found.sub) : undefined;
    } catch (error) {
      log(`could not look up user ${caller.userPoolSignIn?.sub} in ${userPoolId}`, error);
      return undefined;
    }
  };
}

/** The user pool groups of the person behind a caller: empty when there is none. */
export type PersonGroups = (caller: Principal) => Promise<readonly string[]>;

/** Most groups read of one person: AdminListGroupsForUser's page limit, 60, times this. */
const GROUP_PAGES = 10;

/** How long a person's groups are kept: a person polling the approvals list asks the pool once in this. */
export const GROUPS_KEPT_MS = 5_000;

/** People whose groups are kept at once; the oldest go first past it. */
const GROUPS_KEPT_PEOPLE = 1_000;

/** Seconds a caller is told to wait when the pool did not answer (its throttling clears within seconds). */
const LOOKUP_RETRY_SECONDS = 2;

/** How {@link userPoolGroups} reads the pool, and what it reports. */
export interface GroupLookupOptions {
  readonly log?: (message: string, error: unknown) => void;
  /** @default GROUPS_KEPT_MS */
  readonly keepMs?: number;
  readonly now?: () => number;
}

/** Every group of one user name, page by page. */
async function groupsOfUser(
  idp: CognitoIdentityProviderClient,
  userPoolId: string,
  username: string,
): Promise<string[]> {
  const groups: string[] = [];
  let next: string | undefined;
  for (let page = 0; page < GROUP_PAGES; page++) {
    const r = await idp.send(
      new AdminListGroupsForUserCommand({
        UserPoolId: userPoolId,
        Username: username,
        Limit: 60,
        ...(next ? { NextToken: next } : {}),
      }),
    );
    for (const g of r.Groups ?? []) if (g.GroupName) groups.push(g.GroupName);
    next = r.NextToken;
    if (!next) break;
  }
  return groups;
}

/**
 * The groups of the person whose `sub` signed the request, from the stack's user pool: their user
 * name from ListUsers (filtered by the `sub`), then AdminListGroupsForUser
 * (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_AdminListGroupsForUser.html).
 * Kept per `sub` for `keepMs` (a few seconds), so a person removed from a group stops deciding for
 * it within seconds, and a caller polling the approvals list does not spend the account's
 * user pool quotas (https://docs.aws.amazon.com/cognito/latest/developerguide/quotas.html); the ID
 * token's `cognito:groups` claim would hold until the token expires, and the API never sees the
 * token anyway (the app signs with identity-pool credentials). Empty for a caller of another pool
 * or none. When the pool does not answer (throttled, unreachable) nothing is kept and the lookup
 * throws: an approver is told to come back, never answered as one without groups.
 *
 * @throws GroupLookupError (503, with the seconds to wait)
 */
export function userPoolGroups(
  idp: CognitoIdentityProviderClient,
  userPoolId: string,
  options: GroupLookupOptions = {},
): PersonGroups {
  const keepMs = options.keepMs ?? GROUPS_KEPT_MS;
  const now = options.now ?? Date.now;
  const kept = new Map<string, { at: number; groups: Promise<readonly string[]> }>();
  const lookUp = async (caller: Principal): Promise<readonly string[]> => {
    try {
      const found = await signedInUser(idp, userPoolId, caller);
      return found?.user.Username ? await groupsOfUser(idp, userPoolId, found.user.Username) : [];
    } catch (error) {
      options.log?.(
        `could not read the groups of user ${caller.userPoolSignIn?.sub} in ${userPoolId}`,
        error,
      );
      throw new GroupLookupError(LOOKUP_RETRY_SECONDS, { cause: error });
    }
  };
  return (caller) => {
    const sub = caller.userPoolSignIn?.userPoolId === userPoolId ? caller.userPoolSignIn.sub : undefined;
    if (!sub) return Promise.resolve([]);
    const hit = kept.get(sub);
    if (hit && now() - hit.at < keepMs) return hit.groups;
    kept.delete(sub);
    const groups = lookUp(caller);
    kept.set(sub, { at: now(), groups });
    groups.catch(() => {
      if (kept.get(sub)?.groups === groups) kept.delete(sub);
    });
    if (kept.size > GROUPS_KEPT_PEOPLE) kept.delete(kept.keys().next().value as string);
    return groups;
  };
}
