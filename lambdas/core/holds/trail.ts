/**
 * An append-only trail of decisions under a job's partition: one item per decision, its sort key
 * the decision's time under a prefix of the trail's own, so a Query returns them in the order
 * made. A later decision supersedes an earlier one on the same thing; none is ever changed or
 * deleted (purge aside). The findings' decisions (`DECISION#`) and the redlines' (`REDLINE#`)
 * are two such trails.
 */
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';

/** A job's trail of one kind of decision, kept under sort keys starting with `prefix`. */
export class Trail<T extends { readonly at: string }> {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly prefix: string,
  ) {}

  /** Appends decisions; each item is new (a conditional put), so nothing is overwritten. */
  async append(jobId: string, records: readonly T[]): Promise<void> {
    for (const [i, r] of records.entries()) {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: jobPk(jobId),
            sk: `${this.prefix}${r.at}#${String(i).padStart(5, '0')}#${randomBytes(4).toString('hex')}`,
            ...r,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    }
  }

  /** Every decision of the trail, oldest first. */
  async list(jobId: string): Promise<T[]> {
    const items = await queryAll<T & { pk?: string; sk?: string }>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': this.prefix },
      ConsistentRead: true,
    });
    return items.map(({ pk: _pk, sk: _sk, ...r }) => r as unknown as T);
  }
}

/** Who made a decision and when, with its note, as a report or a listing shows it beside the decision. */
export function decidedBy(d: {
  readonly by: string;
  readonly bySub?: string;
  readonly byName?: string;
  readonly at: string;
  readonly note?: string;
}) {
  return {
    by: d.by,
    ...(d.bySub ? { bySub: d.bySub } : {}),
    ...(d.byName ? { byName: d.byName } : {}),
    at: d.at,
    ...(d.note ? { note: d.note } : {}),
  };
}
