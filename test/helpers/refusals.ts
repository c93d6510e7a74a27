import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';

/**
 * DynamoDB's refusal of a conditional write, for unit tests of handlers and state classes; with
 * `item`, the item as it stood (what `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` returns).
 */
export function conditionFailed(item?: Record<string, unknown>): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({
    message: 'The conditional request failed',
    $metadata: {},
    ...(item ? { Item: marshall(item) } : {}),
  });
}
