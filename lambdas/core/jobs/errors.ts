/**
 * Errors of the job requests (submit, quote, status, cancel, report): each names what was
 * asked and why it cannot be done. The status API maps each to its HTTP answer.
 */
import { guardOf } from '../error-guard.js';

/** Base class of the job requests' refusals. */
export class JobRequestError extends Error {
  override readonly name: string = 'JobRequestError';
}

/** The request is not valid: a missing or bad field, a malformed id. `issues` lists each problem. */
export class InvalidJobRequestError extends JobRequestError {
  override readonly name = 'InvalidJobRequestError';
  constructor(
    message: string,
    readonly issues: readonly string[] = [],
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No job or submission with this id that the caller may act on. */
export class JobNotFoundError extends JobRequestError {
  override readonly name = 'JobNotFoundError';
  constructor(
    readonly id: string,
    detail?: string,
  ) {
    super(detail ?? `no job with id '${id}'`);
  }
}

/** The job's state does not allow the request (cancel after the end, report before it). */
export class JobConflictError extends JobRequestError {
  override readonly name = 'JobConflictError';
  constructor(
    message: string,
    readonly jobId: string,
    readonly status: string,
  ) {
    super(message);
  }
}

/** The document of a quote cannot be read (wrong format, too large, too complex); `reason` says which. */
export class DocumentUnreadableError extends JobRequestError {
  override readonly name = 'DocumentUnreadableError';
  constructor(
    message: string,
    readonly filename: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The document of a quote could not be read in the time a request has: the service was busy (the
 * parse had CPU time left), so nothing is wrong with the document. Ask again shortly.
 */
export class QuoteBusyError extends JobRequestError {
  override readonly name = 'QuoteBusyError';
  constructor(
    readonly filename: string,
    options?: ErrorOptions,
  ) {
    super(
      `${filename} could not be read in time because the service is busy; nothing was found wrong with it: ` +
        'ask for the quote again in a minute, or submit it with POST /jobs (intake retries a busy read)',
      options,
    );
  }
}

/** True for any refusal of a job request. */
export const isJobRequestError = guardOf(JobRequestError);

/** True for an invalid request. */
export const isInvalidJobRequestError = guardOf(InvalidJobRequestError);

/** True for an unknown (or hidden) job. */
export const isJobNotFoundError = guardOf(JobNotFoundError);

/** True for a request the job's state refuses. */
export const isJobConflictError = guardOf(JobConflictError);

/** True for a quote's document that cannot be read. */
export const isDocumentUnreadableError = guardOf(DocumentUnreadableError);

/** True for a quote the service was too busy to read. */
export const isQuoteBusyError = guardOf(QuoteBusyError);
