import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RedlineDecisionRecord } from '../playbooks/review-types.js';
import { jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';

/** Sort-key prefix of a job's redline decisions, beside its findings' decisions. */
const REDLINE_PREFIX = 'REDLINE#';

/**
 * A job's redline decisions: append-only items under the job's partition, one per decision,
 * keyed by time so a Query returns them in the order made. A later decision on the same
 * redline supersedes an earlier one; none is ever changed or deleted (purge aside).
 */
export class RedlineTrail {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Appends decisions; each item is new (a conditional put), so nothing is overwritten. */
  async append(jobId: string, records: readonly RedlineDecisionRecord[]): Promise<void> {
    for (const [i, r] of records.entries()) {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: jobPk(jobId),
            sk: `${REDLINE_PREFIX}${r.at}#${String(i).padStart(5, '0')}#${randomBytes(4).toString('hex')}`,
            ...r,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    }
  }

  /** Every redline decision on the job, oldest first. */
  async list(jobId: string): Promise<RedlineDecisionRecord[]> {
    const items = await queryAll<RedlineDecisionRecord & { pk?: string; sk?: string }>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': REDLINE_PREFIX },
      ConsistentRead: true,
    });
    return items.map(({ pk: _pk, sk: _sk, ...r }) => r);
  }
}
