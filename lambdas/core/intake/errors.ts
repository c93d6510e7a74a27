/**
 * Intake's own failures, as opposed to a rejected job: an intake that is to be tried again.
 */

/** Base class of intake's failures. */
export class IntakeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IntakeError';
  }
}

/**
 * The upload's parse was stopped by the wall clock with CPU time to spare (the machine was busy):
 * the intake message is to come back after `retryAfterSeconds` and be read again. The job stays
 * in `intake` meanwhile; after the queue's last receive it is rejected as
 * `parse-timeout-under-load` instead.
 */
export class IntakeDeferredError extends IntakeError {
  constructor(
    readonly jobId: string,
    /** The receive of the intake message that was deferred (1 for the first). */
    readonly receiveCount: number,
    /** How long the message should stay invisible before it is read again. */
    readonly retryAfterSeconds: number,
    options?: { cause?: unknown },
  ) {
    super(
      `job ${jobId}: reading the upload was cut short by a busy machine on receive ${receiveCount}; ` +
        `it is read again in ${retryAfterSeconds} s`,
      options,
    );
    this.name = 'IntakeDeferredError';
  }
}

/** True for an intake to be tried again later. */
export function isIntakeDeferredError(error: unknown): error is IntakeDeferredError {
  return error instanceof IntakeDeferredError;
}
