/**
 * The clause assessments consolidate stored on a job's chunk checkpoints, read with BatchGetItem
 * (only the chunk number and the result projected), whatever chunks a reader wants.
 */

import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClauseAssessment } from '../analysts/index.js';
import { checkpointSk, jobPk } from '../state/keys.js';
import { LiveReadError } from './errors.js';

/** BatchGetItem takes at most 100 keys. https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html */
const BATCH_GET_KEYS = 100;
/** Rounds of UnprocessedKeys before giving up; each waits a little longer. */
const UNPROCESSED_ROUNDS = 8;

/** The clause assessments consolidate stored on the checkpoints of `chunks`. */
export async function readAssessments(
  jobId: string,
  chunks: readonly number[],
  deps: { readonly db: DynamoDBDocumentClient; readonly tableName: string },
): Promise<Map<number, ClauseAssessment[]>> {
  const out = new Map<number, ClauseAssessment[]>();
  for (let i = 0; i < chunks.length; i += BATCH_GET_KEYS) {
    let keys: Record<string, unknown>[] = chunks
      .slice(i, i + BATCH_GET_KEYS)
      .map((c) => ({ pk: jobPk(jobId), sk: checkpointSk(c, 'consolidate') }));
    for (let round = 0; keys.length > 0; round++) {
      if (round >= UNPROCESSED_ROUNDS) {
        throw new LiveReadError(`DynamoDB left ${keys.length} checkpoint(s) of job ${jobId} unread`, jobId);
      }
      if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
      const r = await deps.db.send(
        new BatchGetCommand({
          RequestItems: {
            [deps.tableName]: {
              Keys: keys,
              ProjectionExpression: '#chunk, #result',
              ExpressionAttributeNames: { '#chunk': 'chunk', '#result': 'result' },
              ConsistentRead: true,
            },
          },
        }),
      );
      for (const item of r.Responses?.[deps.tableName] ?? []) {
        const { chunk, result } = item as { chunk: number; result?: string };
        out.set(chunk, result ? (JSON.parse(result) as ClauseAssessment[]) : []);
      }
      // BatchGetItem may return part of the keys; the rest come back in UnprocessedKeys.
      keys = (r.UnprocessedKeys?.[deps.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return out;
}
