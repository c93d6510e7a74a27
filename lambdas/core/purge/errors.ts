/** Base class of purge errors; carries the job id. */
export class PurgeError extends Error {
  constructor(
    message: string,
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PurgeError';
  }
}

/**
 * The job has not ended: workers or finalize could still write what purge would delete, so
 * nothing is deleted.
 */
export class JobNotEndedError extends PurgeError {
  constructor(
    jobId: string,
    readonly status: string,
  ) {
    super(
      `job ${jobId} is ${status} and has not ended, so its data is still being written; ` +
        'cancel it and purge it once it has ended (its status then shows finalizedAt)',
      jobId,
    );
    this.name = 'JobNotEndedError';
  }
}

/** S3 or DynamoDB refused some deletions; what was refused is listed, and purge can be run again. */
export class PurgeIncompleteError extends PurgeError {
  constructor(
    jobId: string,
    readonly failures: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(
      `purge of job ${jobId} left ${failures.length} thing(s) behind (${failures.slice(0, 5).join('; ')}${
        failures.length > 5 ? '; …' : ''
      }); run it again`,
      jobId,
      options,
    );
    this.name = 'PurgeIncompleteError';
  }
}

/** True for any purge error. */
export function isPurgeError(error: unknown): error is PurgeError {
  return error instanceof PurgeError;
}

/** True when the job has not ended yet. */
export function isJobNotEndedError(error: unknown): error is JobNotEndedError {
  return error instanceof JobNotEndedError;
}

/** True when some deletions were refused. */
export function isPurgeIncompleteError(error: unknown): error is PurgeIncompleteError {
  return error instanceof PurgeIncompleteError;
}
