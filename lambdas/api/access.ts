/**
 * Who may act on a job. A job belongs to the principal that submitted it; the stack may name
 * administrator principals who may act on every job. Anyone else is told the job does not
 * exist, so a job id reveals nothing to a caller who does not own it.
 */
import type { Job } from '../core/state/jobs.js';

/** The caller of a request, as API Gateway's IAM authorization reports it. */
export interface Principal {
  /** `requestContext.authorizer.iam.userArn`: `arn:aws:iam::…:user/…` or `arn:aws:sts::…:assumed-role/Role/session`. */
  readonly arn: string;
  /**
   * `requestContext.authorizer.iam.userId`: `AIDA…` for a user, `AROA…:session` for a role
   * session; S3 events name the same principal `AWS:` followed by this.
   */
  readonly userId?: string;
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

/** Whether the caller is one of the administrators the stack names. */
export function isAdministratorOf(
  principal: Principal | undefined,
  administrators: readonly string[],
): boolean {
  return principal !== undefined && administrators.some((admin) => isAdministrator(principal, admin));
}

/** The owner names a caller's jobs may be recorded under: the ARN, and `AWS:` + user id for direct uploads. */
export function ownerNamesOf(principal: Principal): string[] {
  return [principal.arn, ...(principal.userId ? [`AWS:${principal.userId}`] : [])];
}

/** Whether `owner` (as a job records it) names the caller. */
function isOwner(owner: string, principal: Principal): boolean {
  return owner === principal.arn || (principal.userId !== undefined && owner === `AWS:${principal.userId}`);
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
