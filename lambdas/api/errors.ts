import { guardOf } from '../core/error-guard.js';

/**
 * Errors of the status API. Each carries the HTTP status it maps to and a message a caller can
 * act on; the handler turns them into `{ "error": name, "message": … }` responses.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  constructor(
    message: string,
    readonly statusCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The request is malformed: bad JSON, a missing or invalid field, a malformed job id. */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
  constructor(
    message: string,
    readonly issues: readonly string[] = [],
  ) {
    super(message, 400);
  }
}

/** No job (or submission) with this id. */
export class JobUnknownError extends ApiError {
  override readonly name = 'JobUnknownError';
  constructor(
    readonly id: string,
    detail?: string,
  ) {
    super(detail ?? `no job with id '${id}'`, 404);
  }
}

/**
 * A finding or redline the caller may not decide: escalated to a group they are not in, or (for
 * an approver who sees the job) the job's own. Answered 404, as a job the caller may not see is.
 */
export class FindingUnknownError extends ApiError {
  override readonly name = 'FindingUnknownError';
  constructor(message: string) {
    super(message, 404);
  }
}

/**
 * The caller owns the job and named one of its escalations: it is for its approver group to
 * decide, by someone other than the submitter. Answered 403 with the reason.
 */
export class OwnEscalationRefusedError extends ApiError {
  override readonly name = 'OwnEscalationRefusedError';
  constructor(message: string) {
    super(message, 403);
  }
}

/** The route is for the administrators the stack names, and the caller is not one of them. */
export class NotAdministratorError extends ApiError {
  override readonly name = 'NotAdministratorError';
  constructor(message: string) {
    super(message, 403);
  }
}

/** No playbook of that name, or no such version of it. */
export class PlaybookUnknownError extends ApiError {
  override readonly name = 'PlaybookUnknownError';
  constructor(message: string) {
    super(message, 404);
  }
}

/** The job is not in a state that allows the operation (cancel after the end, report before it). */
export class JobStateConflictError extends ApiError {
  override readonly name = 'JobStateConflictError';
  constructor(
    message: string,
    readonly jobId: string,
    readonly status: string,
  ) {
    super(message, 409);
  }
}

/** The document of a quote cannot be read (its format, its size, its complexity); `reason` says which. */
export class UnprocessableDocumentError extends ApiError {
  override readonly name = 'UnprocessableDocumentError';
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message, 422);
  }
}

/** The service is too busy to answer now; the same request may succeed shortly. */
export class ServiceBusyError extends ApiError {
  override readonly name: string = 'ServiceBusyError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 503, options);
  }
}

/**
 * The user pool did not answer who the caller's groups are (throttled, or out of reach): the
 * request is refused for now rather than answered as if the caller had no groups, which would
 * lock every approver out. `retryAfterSeconds` says when to come back.
 */
export class GroupLookupError extends ServiceBusyError {
  override readonly name = 'GroupLookupError';
  constructor(
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(
      `the user pool did not answer which groups the caller is in; try again in ${retryAfterSeconds} s`,
      options,
    );
  }
}

/** The request body is larger than the API reads. */
export class PayloadTooLargeError extends ApiError {
  override readonly name = 'PayloadTooLargeError';
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the request body has ${bytes} bytes; the API reads at most ${limit}`, 413);
  }
}

/** The request line and headers together are larger than the API accepts. */
export class HeadersTooLargeError extends ApiError {
  override readonly name = 'HeadersTooLargeError';
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the request line and headers have ${bytes} bytes; the API accepts at most ${limit}`, 431);
  }
}

/**
 * The caller signs with a role session whose name they chose, which the API cannot own jobs by
 * (`sessionRefusal` in access.ts).
 */
export class UntrustedSessionError extends ApiError {
  override readonly name = 'UntrustedSessionError';
  constructor(readonly role: string) {
    super(
      `sessions of ${role} are named by whoever assumes the role, so they cannot own jobs here: ` +
        'call as an IAM user, sign in through the reviewer app or IAM Identity Center, or have the stack name ' +
        'the role in sessionNamedRoles once its trust policy fixes the session name (docs/security.md)',
      403,
    );
  }
}

/** The caller has used up their budget of a costly route for now; `retryAfterSeconds` says when to come back. */
export class TooManyRequestsError extends ApiError {
  override readonly name = 'TooManyRequestsError';
  constructor(
    readonly route: string,
    readonly retryAfterSeconds: number,
    readonly limit: { readonly burst: number; readonly perMinute: number },
  ) {
    super(
      `too many ${route} requests from this caller: at most ${limit.burst} at once and ${limit.perMinute} a minute; try again in ${retryAfterSeconds} s`,
      429,
    );
  }
}

/** True for any status API error. */
export const isApiError = guardOf(ApiError);

/** True for a malformed request. */
export const isBadRequestError = guardOf(BadRequestError);

/** True for an unknown job or submission. */
export const isJobUnknownError = guardOf(JobUnknownError);

/** True for a finding or redline the caller may not decide. */
export function isFindingUnknownError(error: unknown): error is FindingUnknownError {
  return error instanceof FindingUnknownError;
}

/** True for a caller refused because only administrators may do it. */
export const isNotAdministratorError = guardOf(NotAdministratorError);

/** True for an unknown playbook or version. */
export const isPlaybookUnknownError = guardOf(PlaybookUnknownError);

/** True for an operation the job's state does not allow. */
export const isJobStateConflictError = guardOf(JobStateConflictError);

/** True for a quote's document that cannot be read. */
export const isUnprocessableDocumentError = guardOf(UnprocessableDocumentError);

/** True for a body over the limit. */
export const isPayloadTooLargeError = guardOf(PayloadTooLargeError);

/** True for a request line and headers over the limit. */
export const isHeadersTooLargeError = guardOf(HeadersTooLargeError);

/** True for a 503 of a busy service. */
export const isServiceBusyError = guardOf(ServiceBusyError);

/** True for a caller over their budget of a route. */
export const isTooManyRequestsError = guardOf(TooManyRequestsError);

/** True for a caller whose role session cannot own jobs. */
export const isUntrustedSessionError = guardOf(UntrustedSessionError);

/** True for a refusal because the user pool did not answer the caller's groups. */
export const isGroupLookupError = guardOf(GroupLookupError);

/** The seconds an error tells the caller to wait before trying again, for `Retry-After`; undefined when it says none. */
export function retryAfterOf(error: ApiError): number | undefined {
  return isTooManyRequestsError(error) || isGroupLookupError(error) ? error.retryAfterSeconds : undefined;
}
