import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { isTransactionConflict } from './errors.js';

/** Sends of one transaction before a conflict is given up on and thrown. */
const CONFLICT_ATTEMPTS = 5;

/** First wait after a conflict, ms; doubles per attempt, full jitter. */
const CONFLICT_BASE_MS = 20;

/**
 * Sends a transaction, and sends it again when DynamoDB cancelled it only for a conflict with
 * another transaction on the same item (the SDK does not retry those). A cancelled transaction
 * wrote nothing, so resending is safe; a refused condition is never resent.
 */
export async function transactWrite(db: DynamoDBDocumentClient, input: TransactWriteCommandInput) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.send(new TransactWriteCommand(input));
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
      const wait = Math.floor(Math.random() * CONFLICT_BASE_MS * 2 ** attempt);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
