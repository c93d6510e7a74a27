import { guardOf } from '../error-guard.js';

/** Base class of the errors of job holds (pause, resume) and reviews. */
export class HoldError extends Error {
  override readonly name: string = 'HoldError';
  constructor(
    message: string,
    readonly jobId: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The job is not in a state the request applies to (resume a running job, decide on a job not awaiting review). */
export class HoldStateError extends HoldError {
  override readonly name = 'HoldStateError';
  constructor(
    message: string,
    jobId: string,
    readonly status: string,
  ) {
    super(message, jobId);
  }
}

/** A decision that cannot be recorded as given: an unknown finding, a missing or bad score. */
export class DecisionError extends HoldError {
  override readonly name = 'DecisionError';
}

/**
 * The caller may see the job but not decide this: an escalated finding held for a group they are
 * not in, or (for an approver) the job's own findings and redlines. Answered as a missing finding.
 */
export class NotYoursToDecideError extends HoldError {
  override readonly name = 'NotYoursToDecideError';
  constructor(
    message: string,
    jobId: string,
    /** The finding or redline ids refused. */
    readonly ids: readonly string[],
  ) {
    super(message, jobId);
  }
}

/**
 * The caller owns the job and named an escalation on it: whoever submitted a contract may not
 * accept the risk its playbook escalates to someone else (unless the stack lets owners).
 */
export class OwnEscalationError extends HoldError {
  override readonly name = 'OwnEscalationError';
  constructor(
    message: string,
    jobId: string,
    /** The escalated finding ids refused. */
    readonly ids: readonly string[],
  ) {
    super(message, jobId);
  }
}

/** True for any hold or review error. */
export const isHoldError = guardOf(HoldError);

/** True when the job's state refused the request. */
export const isHoldStateError = guardOf(HoldStateError);

/** True for a decision refused for what it says. */
export const isDecisionError = guardOf(DecisionError);

/** True when the owner of a job named one of its escalations. */
export const isOwnEscalationError = guardOf(OwnEscalationError);

/** True when the caller may not decide what they named. */
export const isNotYoursToDecideError = guardOf(NotYoursToDecideError);
