import { guardOf } from '../error-guard.js';

/** Base class of the errors of reading a job's findings and listing jobs as they happen. */
export class LiveReadError extends Error {
  override readonly name: string = 'LiveReadError';
  constructor(
    message: string,
    /** The job read, when one was. */
    readonly jobId?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A cursor (`after=`) that this job, or this listing, never handed out. */
export class CursorError extends LiveReadError {
  override readonly name = 'CursorError';
  constructor(
    message: string,
    readonly cursor: string,
    jobId?: string,
    options?: ErrorOptions,
  ) {
    super(message, jobId, options);
  }
}

/** True for any error of the live reads. */
export const isLiveReadError = guardOf(LiveReadError);

/** True for a cursor that cannot be read. */
export const isCursorError = guardOf(CursorError);
