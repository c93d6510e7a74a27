import { guardOf } from '../error-guard.js';

/** Base class of state-table errors. */
export class StateError extends Error {
  override readonly name: string = 'StateError';
  constructor(
    message: string,
    readonly jobId: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The worker's claim on a chunk-stage is gone (expired and taken over, or the chunk was
 * finished elsewhere): it must stop and commit nothing more.
 */
export class LeaseLostError extends StateError {
  override readonly name: string = 'LeaseLostError';
  constructor(
    jobId: string,
    readonly chunk: number,
    readonly stage: string,
    options?: ErrorOptions,
  ) {
    super(`lost the lease on job ${jobId} chunk ${chunk} stage ${stage}`, jobId, options);
  }
}

/**
 * A move of a chunk's money was refused because it would have taken the checkpoint's allotment
 * below zero, while the lease was still this holder's: its books and the table's disagree. The
 * holder stops as it would on a lost lease (the next holder's takeover settles the allotment
 * from the ledger), and the refusal is reported as a defect.
 */
export class AllotmentOverdrawnError extends LeaseLostError {
  override readonly name = 'AllotmentOverdrawnError';
  constructor(
    jobId: string,
    chunk: number,
    stage: string,
    /** The allotment the checkpoint held, and what the move would have taken from it. */
    readonly held: number,
    readonly wanted: number,
    options?: ErrorOptions,
  ) {
    super(jobId, chunk, stage, options);
    this.message = `a move of ${wanted} µ$ from the allotment of job ${jobId} chunk ${chunk} stage ${stage} was refused: it holds ${held} µ$`;
  }
}

/** A job id that the table does not know. */
export class JobNotFoundError extends StateError {
  override readonly name = 'JobNotFoundError';
  constructor(jobId: string) {
    super(`no job with id '${jobId}'`, jobId);
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
  override readonly name = 'WriteRefusedError';
  constructor(
    jobId: string,
    readonly label: string,
    readonly item: Item | undefined,
    options?: ErrorOptions,
  ) {
    super(`the ${label} write of job ${jobId} was refused by its condition`, jobId, options);
  }
}

/** True when a conditional write was refused (see {@link WriteRefusedError}). */
export const isWriteRefused = guardOf<WriteRefusedError>(WriteRefusedError);

/** True when the worker lost its claim (an overdraw refusal included: the holder stops the same way). */
export const isLeaseLostError = guardOf(LeaseLostError);

/** True when a move was refused for taking an allotment below zero. */
export const isAllotmentOverdrawnError = guardOf(AllotmentOverdrawnError);

/** True when a job id is unknown. */
export const isJobNotFoundError = guardOf(JobNotFoundError);

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
