import { guardOf } from '../error-guard.js';

/** Base class of purge errors; carries the job id. */
export class PurgeError extends Error {
  override readonly name: string = 'PurgeError';
  constructor(
    message: string,
    readonly jobId: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The job has not ended: workers or finalize could still write what purge would delete, so
 * nothing is deleted.
 */
export class JobNotEndedError extends PurgeError {
  override readonly name = 'JobNotEndedError';
  constructor(
    jobId: string,
    readonly status: string,
  ) {
    super(
      `job ${jobId} is ${status} and has not ended, so its data is still being written; ` +
        'cancel it and purge it once it has ended (its status then shows finalizedAt)',
      jobId,
    );
  }
}

/** S3 or DynamoDB refused some deletions; what was refused is listed, and purge can be run again. */
export class PurgeIncompleteError extends PurgeError {
  override readonly name = 'PurgeIncompleteError';
  constructor(
    jobId: string,
    readonly failures: readonly string[],
    options?: ErrorOptions,
  ) {
    super(
      `purge of job ${jobId} left ${failures.length} thing(s) behind (${failures.slice(0, 5).join('; ')}${
        failures.length > 5 ? '; …' : ''
      }); run it again`,
      jobId,
      options,
    );
  }
}

/** True for any purge error. */
export const isPurgeError = guardOf(PurgeError);

/** True when the job has not ended yet. */
export const isJobNotEndedError = guardOf(JobNotEndedError);

/** True when some deletions were refused. */
export const isPurgeIncompleteError = guardOf(PurgeIncompleteError);
