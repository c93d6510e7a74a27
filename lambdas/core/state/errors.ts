/** Base class of state-table errors. */
export class StateError extends Error {
  constructor(
    message: string,
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StateError';
  }
}

/**
 * The worker's claim on a chunk-stage is gone (expired and taken over, or the chunk was
 * finished elsewhere): it must stop and commit nothing more.
 */
export class LeaseLostError extends StateError {
  constructor(
    jobId: string,
    readonly chunk: number,
    readonly stage: string,
    options?: { cause?: unknown },
  ) {
    super(`lost the lease on job ${jobId} chunk ${chunk} stage ${stage}`, jobId, options);
    this.name = 'LeaseLostError';
  }
}

/** A job id that the table does not know. */
export class JobNotFoundError extends StateError {
  constructor(jobId: string) {
    super(`no job with id '${jobId}'`, jobId);
    this.name = 'JobNotFoundError';
  }
}

/**
 * A conditional write DynamoDB refused, with the item as it stood when it refused (asked for
 * with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`, so no read is needed to learn why),
 * and, in a transaction, the label of the item whose condition failed. `item` is undefined
 * when there was no item.
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValuesOnConditionCheckFailure
 */
export class WriteRefusedError<Item = Record<string, unknown>> extends StateError {
  constructor(
    jobId: string,
    readonly label: string,
    readonly item: Item | undefined,
    options?: { cause?: unknown },
  ) {
    super(`the ${label} write of job ${jobId} was refused by its condition`, jobId, options);
    this.name = 'WriteRefusedError';
  }
}

/** True when a conditional write was refused (see {@link WriteRefusedError}). */
export function isWriteRefused(error: unknown): error is WriteRefusedError {
  return error instanceof WriteRefusedError;
}

/** True when the worker lost its claim. */
export function isLeaseLostError(error: unknown): error is LeaseLostError {
  return error instanceof LeaseLostError;
}

/** True when a job id is unknown. */
export function isJobNotFoundError(error: unknown): error is JobNotFoundError {
  return error instanceof JobNotFoundError;
}

/** True for DynamoDB's conditional-check refusals, raw or inside a cancelled transaction. */
export function isConditionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  return error.name === 'TransactionCanceledException' && !isTransactionConflict(error);
}

/**
 * True when DynamoDB refused a write only because a transaction was writing one of its items
 * at the same moment: a transaction cancelled with `TransactionConflict` reasons (and no
 * refused condition), or a single-item write refused with TransactionConflictException.
 * Nothing was written, so the same request may be sent again; it is not a refusal.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling
 */
export function isTransactionConflict(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TransactionConflictException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return (
    reasons.some((r) => r.Code === 'TransactionConflict') &&
    !reasons.some((r) => r.Code === 'ConditionalCheckFailed')
  );
}
