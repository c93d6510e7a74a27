/** The state errors and their guards: conditional refusals, transaction conflicts, lost leases, unknown jobs. */
import { describe, expect, it } from 'vitest';
import {
  isConditionFailure,
  isJobNotFoundError,
  isLeaseLostError,
  isTransactionConflict,
  JobNotFoundError,
  LeaseLostError,
  StateError,
} from '../../../lambdas/core/state/errors.js';
import { conditionFailed } from '../../helpers/refusals.js';
import { transactionCancelled } from './claims-fixtures.js';

describe('state error guards', () => {
  it('recognises conditional refusals, raw or in a cancelled transaction', () => {
    expect(isConditionFailure(conditionFailed())).toBe(true);
    expect(isConditionFailure(transactionCancelled(['None', 'ConditionalCheckFailed']))).toBe(true);
    expect(isConditionFailure(new Error('ConditionalCheckFailedException'))).toBe(false);
    expect(isConditionFailure({ name: 'ConditionalCheckFailedException' })).toBe(false);
  });

  it('does not count a transaction cancelled only by a conflict as a refusal', () => {
    const conflict = transactionCancelled(['None', 'TransactionConflict']);
    expect(isTransactionConflict(conflict)).toBe(true);
    expect(isConditionFailure(conflict)).toBe(false);
    const refusedToo = transactionCancelled(['ConditionalCheckFailed', 'TransactionConflict']);
    expect(isTransactionConflict(refusedToo)).toBe(false);
    expect(isConditionFailure(refusedToo)).toBe(true);
    expect(isTransactionConflict(conditionFailed())).toBe(false);
  });

  it('tells lost leases and unknown jobs apart, with their context', () => {
    const lost = new LeaseLostError('job-1', 7, 'analyze', { cause: conditionFailed() });
    const missing = new JobNotFoundError('job-9');
    expect(isLeaseLostError(lost)).toBe(true);
    expect(isLeaseLostError(missing)).toBe(false);
    expect(isJobNotFoundError(missing)).toBe(true);
    expect(isJobNotFoundError(lost)).toBe(false);
    expect(lost).toBeInstanceOf(StateError);
    expect(lost.name).toBe('LeaseLostError');
    expect(lost.message).toBe('lost the lease on job job-1 chunk 7 stage analyze');
    expect(missing.name).toBe('JobNotFoundError');
    expect(missing.jobId).toBe('job-9');
  });
});
