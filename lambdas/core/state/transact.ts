import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { isTransactionConflict } from './errors.js';

/** Sends of one request before a conflict is given up on and thrown. */
const CONFLICT_ATTEMPTS = 6;

/** First wait after a conflict, ms; doubles per attempt, full jitter. */
const CONFLICT_BASE_MS = 20;

/**
 * Sends a request again when DynamoDB refused it only because a transaction held one of its
 * items at that moment: a cancelled transaction with `TransactionConflict` reasons, or a
 * single-item write refused with TransactionConflictException. Neither wrote anything, so
 * resending is safe; a refused condition is never resent. The SDK's standard retry strategy
 * does not retry either.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling
 */
export async function retryConflicts<T>(
  send: () => Promise<T>,
  random: () => number = Math.random,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
      const wait = Math.floor(random() * CONFLICT_BASE_MS * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Sends a transaction, resending it while it is cancelled only for conflicts. */
export async function transactWrite(db: DynamoDBDocumentClient, input: TransactWriteCommandInput) {
  return retryConflicts(() => db.send(new TransactWriteCommand(input)));
}

/**
 * Makes a DynamoDB client resend, with backoff, every request refused only for a transaction
 * conflict (see {@link retryConflicts}), whatever code sent it: heartbeats, claims and stamps
 * meet conflicts on the items transactions touch as much as the transactions do.
 */
export function resendConflicts(client: DynamoDBClient, random: () => number = Math.random): DynamoDBClient {
  client.middlewareStack.add((next) => (args) => retryConflicts(() => next(args), random), {
    step: 'initialize',
    name: 'resendTransactionConflicts',
  });
  return client;
}
