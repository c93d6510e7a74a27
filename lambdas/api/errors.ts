/**
 * Errors of the status API. Each carries the HTTP status it maps to and a message a caller can
 * act on; the handler turns them into `{ "error": name, "message": … }` responses.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ApiError';
  }
}

/** The request is malformed: bad JSON, a missing or invalid field, a malformed job id. */
export class BadRequestError extends ApiError {
  constructor(
    message: string,
    readonly issues: readonly string[] = [],
  ) {
    super(message, 400);
    this.name = 'BadRequestError';
  }
}

/** No job (or submission) with this id. */
export class JobUnknownError extends ApiError {
  constructor(
    readonly id: string,
    detail?: string,
  ) {
    super(detail ?? `no job with id '${id}'`, 404);
    this.name = 'JobUnknownError';
  }
}

/** The route is for the administrators the stack names, and the caller is not one of them. */
export class NotAdministratorError extends ApiError {
  constructor(message: string) {
    super(message, 403);
    this.name = 'NotAdministratorError';
  }
}

/** No playbook of that name, or no such version of it. */
export class PlaybookUnknownError extends ApiError {
  constructor(message: string) {
    super(message, 404);
    this.name = 'PlaybookUnknownError';
  }
}

/** The job is not in a state that allows the operation (cancel after the end, report before it). */
export class JobStateConflictError extends ApiError {
  constructor(
    message: string,
    readonly jobId: string,
    readonly status: string,
  ) {
    super(message, 409);
    this.name = 'JobStateConflictError';
  }
}

/** The document of a quote cannot be read (its format, its size, its complexity); `reason` says which. */
export class UnprocessableDocumentError extends ApiError {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message, 422);
    this.name = 'UnprocessableDocumentError';
  }
}

/** The service is too busy to answer now; the same request may succeed shortly. */
export class ServiceBusyError extends ApiError {
  constructor(message: string) {
    super(message, 503);
    this.name = 'ServiceBusyError';
  }
}

/** The request body is larger than the API reads. */
export class PayloadTooLargeError extends ApiError {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the request body has ${bytes} bytes; the API reads at most ${limit}`, 413);
    this.name = 'PayloadTooLargeError';
  }
}

/** The request line and headers together are larger than the API accepts. */
export class HeadersTooLargeError extends ApiError {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the request line and headers have ${bytes} bytes; the API accepts at most ${limit}`, 431);
    this.name = 'HeadersTooLargeError';
  }
}

/**
 * The caller signs with a role session whose name they chose, which the API cannot own jobs by
 * (`sessionRefusal` in access.ts).
 */
export class UntrustedSessionError extends ApiError {
  constructor(readonly role: string) {
    super(
      `sessions of ${role} are named by whoever assumes the role, so they cannot own jobs here: ` +
        'call as an IAM user, sign in through the reviewer app or IAM Identity Center, or have the stack name ' +
        'the role in sessionNamedRoles once its trust policy fixes the session name (docs/security.md)',
      403,
    );
    this.name = 'UntrustedSessionError';
  }
}

/** The caller has used up their budget of a costly route for now; `retryAfterSeconds` says when to come back. */
export class TooManyRequestsError extends ApiError {
  constructor(
    readonly route: string,
    readonly retryAfterSeconds: number,
    readonly limit: { readonly burst: number; readonly perMinute: number },
  ) {
    super(
      `too many ${route} requests from this caller: at most ${limit.burst} at once and ${limit.perMinute} a minute; try again in ${retryAfterSeconds} s`,
      429,
    );
    this.name = 'TooManyRequestsError';
  }
}

/** True for any status API error. */
export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** True for a malformed request. */
export function isBadRequestError(error: unknown): error is BadRequestError {
  return error instanceof BadRequestError;
}

/** True for an unknown job or submission. */
export function isJobUnknownError(error: unknown): error is JobUnknownError {
  return error instanceof JobUnknownError;
}

/** True for a caller refused because only administrators may do it. */
export function isNotAdministratorError(error: unknown): error is NotAdministratorError {
  return error instanceof NotAdministratorError;
}

/** True for an unknown playbook or version. */
export function isPlaybookUnknownError(error: unknown): error is PlaybookUnknownError {
  return error instanceof PlaybookUnknownError;
}

/** True for an operation the job's state does not allow. */
export function isJobStateConflictError(error: unknown): error is JobStateConflictError {
  return error instanceof JobStateConflictError;
}

/** True for a quote's document that cannot be read. */
export function isUnprocessableDocumentError(error: unknown): error is UnprocessableDocumentError {
  return error instanceof UnprocessableDocumentError;
}

/** True for a body over the limit. */
export function isPayloadTooLargeError(error: unknown): error is PayloadTooLargeError {
  return error instanceof PayloadTooLargeError;
}

/** True for a request line and headers over the limit. */
export function isHeadersTooLargeError(error: unknown): error is HeadersTooLargeError {
  return error instanceof HeadersTooLargeError;
}

/** True for a 503 of a busy service. */
export function isServiceBusyError(error: unknown): error is ServiceBusyError {
  return error instanceof ServiceBusyError;
}

/** True for a caller over their budget of a route. */
export function isTooManyRequestsError(error: unknown): error is TooManyRequestsError {
  return error instanceof TooManyRequestsError;
}

/** True for a caller whose role session cannot own jobs. */
export function isUntrustedSessionError(error: unknown): error is UntrustedSessionError {
  return error instanceof UntrustedSessionError;
}
