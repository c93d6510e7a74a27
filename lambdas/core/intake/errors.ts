/**
 * Intake's own failures, as opposed to a rejected job: an intake that is to be tried again.
 */
import { guardOf } from '../error-guard.js';

/** Base class of intake's failures. */
export class IntakeError extends Error {
  override readonly name: string = 'IntakeError';
}

/**
 * The upload's parse was stopped by the wall clock with CPU time to spare (the machine was busy):
 * the intake message is to come back after `retryAfterSeconds` and be read again. The job stays
 * in `intake` meanwhile; after the queue's last receive it is rejected as
 * `parse-timeout-under-load` instead.
 */
export class IntakeDeferredError extends IntakeError {
  override readonly name = 'IntakeDeferredError';
  constructor(
    readonly jobId: string,
    /** The receive of the intake message that was deferred (1 for the first). */
    readonly receiveCount: number,
    /** How long the message should stay invisible before it is read again. */
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(
      `job ${jobId}: reading the upload was cut short by a busy machine on receive ${receiveCount}; ` +
        `it is read again in ${retryAfterSeconds} s`,
      options,
    );
  }
}

/** True for an intake to be tried again later. */
export const isIntakeDeferredError = guardOf(IntakeDeferredError);
