import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { isConditionFailure, isTransactionConflict, WriteRefusedError } from './errors.js';

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

/** One item of a transaction, named where it is built so its refusal can be told by name. */
export interface LabelledItem<Label extends string> {
  readonly label: Label;
  readonly item: NonNullable<TransactWriteCommandInput['TransactItems']>[number];
}

/** The conditional part of a transaction item, whichever kind it is. */
function conditional(item: LabelledItem<string>['item']) {
  return item.Update ?? item.Put ?? item.Delete ?? item.ConditionCheck;
}

/**
 * Sends a transaction of labelled items, each conditional one asking for the item as it stood
 * if its condition fails. A refusal throws {@link WriteRefusedError} for the first item whose
 * condition failed, matched to its label by position: DynamoDB returns the cancellation reasons
 * in the order of the request's items, with a `None` code for an item that did not fail
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html).
 */
export async function transactLabelled<Label extends string>(
  db: DynamoDBDocumentClient,
  jobId: string,
  items: readonly LabelledItem<Label>[],
): Promise<void> {
  const TransactItems = items.map(({ item }) => {
    const c = conditional(item);
    if (!c?.ConditionExpression) return item;
    const key = item.Update ? 'Update' : item.Put ? 'Put' : item.Delete ? 'Delete' : 'ConditionCheck';
    return { [key]: { ...c, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } };
  });
  try {
    await transactWrite(db, { TransactItems });
  } catch (error) {
    const refused = refusalOf(error, items);
    if (refused) throw new WriteRefusedError(jobId, refused.label, refused.item, { cause: error });
    throw error;
  }
}

/** The first item a cancelled transaction names as refused by its condition, by label. */
function refusalOf<Label extends string>(
  error: unknown,
  items: readonly LabelledItem<Label>[],
): { label: Label; item: Record<string, unknown> | undefined } | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons =
    (error as { CancellationReasons?: { Code?: string; Item?: Record<string, AttributeValue> }[] })
      .CancellationReasons ?? [];
  for (const [at, reason] of reasons.entries()) {
    const labelled = items[at];
    if (reason.Code !== 'ConditionalCheckFailed' || !labelled) continue;
    return { label: labelled.label, item: reason.Item ? unmarshall(reason.Item) : undefined };
  }
  return undefined;
}

/**
 * Sends one conditional write for a caller that needs only whether it happened: false when its
 * condition refused it (the item had moved on), conflicts resent as {@link retryConflicts} does,
 * anything else thrown.
 */
export async function conditionHeld(send: () => Promise<unknown>): Promise<boolean> {
  try {
    await retryConflicts(send);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Sends one conditional write asking for the item as it stood if its condition fails; a
 * refusal throws {@link WriteRefusedError} carrying that item under `label`.
 */
export async function refusable<T>(
  jobId: string,
  label: string,
  send: (returnOnRefusal: { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }) => Promise<T>,
): Promise<T> {
  try {
    return await retryConflicts(() => send({ ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }));
  } catch (error) {
    if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
    const item = (error as { Item?: Record<string, AttributeValue> }).Item;
    throw new WriteRefusedError(jobId, label, item ? unmarshall(item) : undefined, { cause: error });
  }
}
