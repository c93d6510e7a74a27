/** Base class of the errors of reading a job's findings and listing jobs as they happen. */
export class LiveReadError extends Error {
  constructor(
    message: string,
    /** The job read, when one was. */
    readonly jobId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LiveReadError';
  }
}

/** A cursor (`after=`) that this job, or this listing, never handed out. */
export class CursorError extends LiveReadError {
  constructor(
    message: string,
    readonly cursor: string,
    jobId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, jobId, options);
    this.name = 'CursorError';
  }
}

/** True for any error of the live reads. */
export function isLiveReadError(error: unknown): error is LiveReadError {
  return error instanceof LiveReadError;
}

/** True for a cursor that cannot be read. */
export function isCursorError(error: unknown): error is CursorError {
  return error instanceof CursorError;
}
