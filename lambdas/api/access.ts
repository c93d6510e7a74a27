/**
 * Who may act on a job. A job belongs to the principal that submitted it; the stack may name
 * administrator principals who may act on every job. Anyone else is told the job does not
 * exist, so a job id reveals nothing to a caller who does not own it.
 *
 * A person signed in through the stack's Cognito identity pool calls with temporary
 * credentials of a role that every signed-in person shares (the session ARN is
 * `arn:aws:sts::…:assumed-role/<AuthenticatedRole>/CognitoIdentityCredentials` for all of
 * them), so for such a caller the owner is the person's Cognito identity, never the ARN.
 */
import type { Actor, ApproverView } from '../core/jobs/index.js';
import { type Job, reviewOpen } from '../core/state/job.js';

/** A user pool sign-in: the pool and the person's `sub` in it. */
export interface UserPoolSignIn {
  readonly userPoolId: string;
  readonly sub: string;
}

/** The caller of a request, as API Gateway's IAM authorization reports it. */
export interface Principal {
  /** `requestContext.authorizer.iam.userArn`: `arn:aws:iam::…:user/…` or `arn:aws:sts::…:assumed-role/Role/session`. */
  readonly arn: string;
  /**
   * `requestContext.authorizer.iam.userId`: `AIDA…` for a user, `AROA…:session` for a role
   * session; S3 events name the same principal `AWS:` followed by this.
   */
  readonly userId?: string;
  /**
   * `requestContext.authorizer.iam.cognitoIdentity.identityId` (`us-east-1:…`): present when the
   * request was signed with credentials from a Cognito identity pool. API Gateway's HTTP API
   * passes it in the IAM authorizer's context (payload format 2.0:
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html;
   * the same value as `$context.identity.cognitoIdentityId`:
   * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging-variables.html).
   */
  readonly cognitoIdentityId?: string;
  /**
   * The user pool sign-in behind those credentials (pool and the person's `sub`), from the
   * `…:CognitoSignIn:<sub>` entry of `cognitoIdentity.amr`: names the person in the decision
   * trail, never who owns a job.
   */
  readonly userPoolSignIn?: UserPoolSignIn;
}

/** The prefix of an owner that is a Cognito identity: `cognito-identity:us-east-1:…`. */
export const COGNITO_OWNER_PREFIX = 'cognito-identity:';

/**
 * The name a job records as its owner (and a decision or a hold as who made it): the person's
 * Cognito identity for a caller signed in through the identity pool, else the caller's ARN.
 *
 * @example
 * ownerOf({ arn: 'arn:aws:sts::1:assumed-role/Auth/CognitoIdentityCredentials', cognitoIdentityId: 'us-east-1:ab' });
 * // 'cognito-identity:us-east-1:ab'
 */
export function ownerOf(principal: Principal): string {
  return principal.cognitoIdentityId !== undefined
    ? `${COGNITO_OWNER_PREFIX}${principal.cognitoIdentityId}`
    : principal.arn;
}

/**
 * The IAM role ARN behind an assumed-role session ARN
 * (`arn:aws:sts::123:assumed-role/Ops/alice` → account 123, role Ops), else undefined.
 */
function assumedRole(arn: string): { account: string; role: string } | undefined {
  const m = /^arn:aws[a-z-]*:sts::(\d{12}):assumed-role\/([^/]+)\/[^/]+$/.exec(arn);
  return m ? { account: m[1] ?? '', role: m[2] ?? '' } : undefined;
}

/** Whether `admin` (a user, role or session ARN the stack names) is the caller. */
function isAdministrator(principal: Principal, admin: string): boolean {
  if (admin === principal.arn) return true;
  // A role named as administrator covers every session of it. A role ARN's path is not part of
  // the session ARN, so the role is matched by account and name.
  const session = assumedRole(principal.arn);
  const role = /^arn:aws[a-z-]*:iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(admin);
  return session !== undefined && role !== null && role[1] === session.account && role[2] === session.role;
}

/**
 * Why the API will not own jobs by this caller, or undefined when it may. A caller is owned by
 * what names them: an IAM user by its ARN, a person of the identity pool by their Cognito
 * identity. An assumed-role session is named `assumed-role/<Role>/<session>`, and the session
 * name is whatever the one assuming the role passed as RoleSessionName: anyone who may assume the
 * role may call themselves after anyone else, and own (or read) that person's jobs. Where a
 * role sets `sts:SourceIdentity`, the identity stays with the session, but API Gateway's IAM
 * authorization does not hand it on: the function gets the access key, account, caller id,
 * Cognito identity, organisation, user ARN and user id only
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html,
 * `requestContext.authorizer.iam`). So a session is admitted only when its name cannot be
 * chosen by the caller: the stack names its role in `sessionNamedRoles` (IAM Identity Center's
 * permission-set roles, whose sessions carry the person's user name; or a role whose trust policy
 * fixes the name, such as `"sts:RoleSessionName": "${aws:username}"`:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#ck_rolesessionname),
 * or the role is an administrator's, which acts on every job anyway. Any other session is refused.
 *
 * @example
 * sessionRefusal({ arn: 'arn:aws:sts::123456789012:assumed-role/Ops/alice' }, { sessionNamedRoles: [], administrators: [] });
 * // 'arn:aws:iam::123456789012:role/Ops'
 */
export function sessionRefusal(
  principal: Principal,
  trust: { readonly sessionNamedRoles: readonly string[]; readonly administrators: readonly string[] },
): string | undefined {
  if (principal.cognitoIdentityId !== undefined) return undefined;
  const session = assumedRole(principal.arn);
  if (!session) return undefined;
  const trusted = [...trust.sessionNamedRoles, ...trust.administrators];
  if (trusted.some((role) => isAdministrator(principal, role))) return undefined;
  return `arn:${principal.arn.split(':')[1]}:iam::${session.account}:role/${session.role}`;
}

/**
 * The name a caller's request budgets are kept under (caller-limits.ts): the person, however
 * they sign. A person of the user pool by their `sub` (every identity-pool identity of theirs
 * shares it), else the Cognito identity; an IAM user by its ARN; a session of a role the stack
 * trusts to name its sessions (`sessionNamedRoles`: the name is the person's) by its session
 * ARN; any other session (an administrator role's, named by whoever assumes it) by its role, so a
 * fresh session name is not a fresh budget.
 *
 * @example
 * rateKeyOf({ arn: 'arn:aws:sts::123456789012:assumed-role/Ops/any-name' }, []);
 * // 'arn:aws:iam::123456789012:role/Ops'
 */
export function rateKeyOf(principal: Principal, sessionNamedRoles: readonly string[]): string {
  if (principal.userPoolSignIn)
    return `cognito-sub:${principal.userPoolSignIn.userPoolId}:${principal.userPoolSignIn.sub}`;
  if (principal.cognitoIdentityId !== undefined) return ownerOf(principal);
  const session = assumedRole(principal.arn);
  if (!session || sessionNamedRoles.some((role) => isAdministrator(principal, role))) return principal.arn;
  return `arn:${principal.arn.split(':')[1]}:iam::${session.account}:role/${session.role}`;
}

/**
 * Whether `owner` (as a job records it) names the caller. A Cognito caller is matched by
 * identity alone: the role session it signs with is every signed-in person's.
 */
function isOwner(owner: string, principal: Principal): boolean {
  if (principal.cognitoIdentityId !== undefined) return owner === ownerOf(principal);
  return owner === principal.arn || (principal.userId !== undefined && owner === `AWS:${principal.userId}`);
}

/** Whether `principal` submitted `job` (administrators included: owning is not administering). */
export function ownsJob(job: Pick<Job, 'owner'>, principal: Principal): boolean {
  return job.owner !== undefined && isOwner(job.owner, principal);
}

/**
 * Whether `principal` may read, cancel or download `job`: its owner, or an administrator.
 * A job without a recorded owner is for administrators only, and so is every job when no
 * principal is known.
 *
 * @example
 * if (!mayActOn(job, { arn: event.requestContext.authorizer.iam.userArn }, admins)) throw new JobUnknownError(id);
 */
export function mayActOn(
  job: Pick<Job, 'owner'>,
  principal: Principal | undefined,
  administrators: readonly string[],
): boolean {
  if (!principal) return false;
  if (administrators.some((admin) => isAdministrator(principal, admin))) return true;
  return job.owner !== undefined && isOwner(job.owner, principal);
}

/** Whether the caller is one of the administrators the stack names. */
export function isAdministratorOf(
  principal: Principal | undefined,
  administrators: readonly string[],
): boolean {
  return principal !== undefined && administrators.some((admin) => isAdministrator(principal, admin));
}

/**
 * The owner names a caller's jobs may be recorded under: a person signed in through the
 * identity pool only as their Cognito identity (every signed-in person shares the role session
 * ARN); anyone else as the ARN, and `AWS:` + user id for direct uploads.
 */
export function ownerNamesOf(principal: Principal): string[] {
  if (principal.cognitoIdentityId !== undefined) return [ownerOf(principal)];
  return [principal.arn, ...(principal.userId ? [`AWS:${principal.userId}`] : [])];
}

/**
 * Whether a caller in `groups` may see a job they may not act on: its open review waits for one
 * of those groups' decisions (`approverGroups`, set when a review holds an escalated finding).
 * Once the review closes (decided, or out of time) the job is its owner's again: its status,
 * findings and report.docx are no approver's to read, and the trail keeps what they decided.
 */
export function approverOf(job: ApproverView, groups: readonly string[]): boolean {
  return reviewOpen(job) && (job.approverGroups ?? []).some((g) => groups.includes(g));
}

/**
 * The caller as the job requests of the core take it: the name their jobs record, and this
 * module's rule for which jobs they may act on; and, given their user pool groups (asked only
 * for a job whose review waits for some group), which jobs they may see as an approver.
 * Undefined when no caller is known.
 */
export function actorOf(
  principal: Principal | undefined,
  administrators: readonly string[],
  groups: () => Promise<readonly string[]> = async () => [],
): Actor | undefined {
  if (!principal) return undefined;
  return {
    name: ownerOf(principal),
    mayActOn: (job) => mayActOn(job, principal, administrators),
    // The user pool is asked only about a job whose open review waits for some group.
    maySee: async (job) =>
      reviewOpen(job) && (job.approverGroups?.length ?? 0) > 0 && approverOf(job, await groups()),
  };
}
