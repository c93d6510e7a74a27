import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isTransactionConflict } from '../../lambdas/core/state/errors.js';

/** A running count of the transaction conflicts a client met. */
export interface ConflictCounter {
  readonly count: number;
}

/**
 * Counts every attempt the ground refused for a transaction conflict, including those the
 * client then resent (the middleware sits below the SDK's retries).
 */
export function countConflicts(
  db: DynamoDBDocumentClient,
  name = 'countTransactionConflicts',
): ConflictCounter {
  const counter = { count: 0 };
  db.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (isTransactionConflict(error)) counter.count++;
        throw error;
      }
    },
    { step: 'deserialize', name },
  );
  return counter;
}
