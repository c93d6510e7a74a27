/**
 * Errors of the job requests (submit, quote, status, cancel, report): each names what was
 * asked and why it cannot be done. The status API maps each to its HTTP answer.
 */

/** Base class of the job requests' refusals. */
export class JobRequestError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JobRequestError';
  }
}

/** The request is not valid: a missing or bad field, a malformed id. `issues` lists each problem. */
export class InvalidJobRequestError extends JobRequestError {
  constructor(
    message: string,
    readonly issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'InvalidJobRequestError';
  }
}

/** No job or submission with this id that the caller may act on. */
export class JobNotFoundError extends JobRequestError {
  constructor(
    readonly id: string,
    detail?: string,
  ) {
    super(detail ?? `no job with id '${id}'`);
    this.name = 'JobNotFoundError';
  }
}

/** The job's state does not allow the request (cancel after the end, report before it). */
export class JobConflictError extends JobRequestError {
  constructor(
    message: string,
    readonly jobId: string,
    readonly status: string,
  ) {
    super(message);
    this.name = 'JobConflictError';
  }
}

/** The document of a quote cannot be read (wrong format, too large, too complex); `reason` says which. */
export class DocumentUnreadableError extends JobRequestError {
  constructor(
    message: string,
    readonly filename: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DocumentUnreadableError';
  }
}

/**
 * The document of a quote could not be read in the time a request has: the service was busy (the
 * parse had CPU time left), so nothing is wrong with the document. Ask again shortly.
 */
export class QuoteBusyError extends JobRequestError {
  constructor(
    readonly filename: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${filename} could not be read in time because the service is busy; nothing was found wrong with it: ` +
        'ask for the quote again in a minute, or submit it with POST /jobs (intake retries a busy read)',
      options,
    );
    this.name = 'QuoteBusyError';
  }
}

/** True for any refusal of a job request. */
export function isJobRequestError(error: unknown): error is JobRequestError {
  return error instanceof JobRequestError;
}

/** True for an invalid request. */
export function isInvalidJobRequestError(error: unknown): error is InvalidJobRequestError {
  return error instanceof InvalidJobRequestError;
}

/** True for an unknown (or hidden) job. */
export function isJobNotFoundError(error: unknown): error is JobNotFoundError {
  return error instanceof JobNotFoundError;
}

/** True for a request the job's state refuses. */
export function isJobConflictError(error: unknown): error is JobConflictError {
  return error instanceof JobConflictError;
}

/** True for a quote's document that cannot be read. */
export function isDocumentUnreadableError(error: unknown): error is DocumentUnreadableError {
  return error instanceof DocumentUnreadableError;
}

/** True for a quote the service was too busy to read. */
export function isQuoteBusyError(error: unknown): error is QuoteBusyError {
  return error instanceof QuoteBusyError;
}
