/** Base class of the errors of job holds (pause, resume) and reviews. */
export class HoldError extends Error {
  constructor(
    message: string,
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HoldError';
  }
}

/** The job is not in a state the request applies to (resume a running job, decide on a job not awaiting review). */
export class HoldStateError extends HoldError {
  constructor(
    message: string,
    jobId: string,
    readonly status: string,
  ) {
    super(message, jobId);
    this.name = 'HoldStateError';
  }
}

/** A decision that cannot be recorded as given: an unknown finding, a missing or bad score. */
export class DecisionError extends HoldError {
  constructor(message: string, jobId: string) {
    super(message, jobId);
    this.name = 'DecisionError';
  }
}

/**
 * The caller may see the job but not decide this: an escalated finding held for a group they are
 * not in, or (for an approver) the job's own findings and redlines. Answered as a missing finding.
 */
export class NotYoursToDecideError extends HoldError {
  constructor(
    message: string,
    jobId: string,
    /** The finding or redline ids refused. */
    readonly ids: readonly string[],
  ) {
    super(message, jobId);
    this.name = 'NotYoursToDecideError';
  }
}

/** True for any hold or review error. */
export function isHoldError(error: unknown): error is HoldError {
  return error instanceof HoldError;
}

/** True when the job's state refused the request. */
export function isHoldStateError(error: unknown): error is HoldStateError {
  return error instanceof HoldStateError;
}

/** True for a decision refused for what it says. */
export function isDecisionError(error: unknown): error is DecisionError {
  return error instanceof DecisionError;
}

/** True when the caller may not decide what they named. */
export function isNotYoursToDecideError(error: unknown): error is NotYoursToDecideError {
  return error instanceof NotYoursToDecideError;
}
