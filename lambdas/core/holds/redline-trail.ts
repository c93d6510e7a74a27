/**
 * A job's redline decisions, beside its findings' decisions in the same partition: append-only
 * items, one per decision, keyed by time so a Query returns them in the order made. A later
 * decision on the same redline supersedes an earlier one; none is ever changed or deleted (purge
 * aside). Finalize reads them to show each redline's decision in report.json and to leave the
 * rejected ones out of report.docx.
 */
import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { applyEdits } from '../../app/redline-text.js';
import type { RedlineDecision, RedlineDecisionRecord } from '../playbooks/review-types.js';
import { jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';

/** Sort-key prefix of a job's redline decisions (after its `DECISION#` items). */
const REDLINE_PREFIX = 'REDLINE#';

/** A job's redline decisions in the state table. */
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

/** The decision in force on each redline: the latest one made. */
export function latestRedlineDecisions(
  trail: readonly RedlineDecisionRecord[],
): Map<string, RedlineDecisionRecord> {
  const latest = new Map<string, RedlineDecisionRecord>();
  for (const r of trail) latest.set(r.redlineId, r);
  return latest;
}

/**
 * The redline decisions in force, from the job's trail: what finalize applies to report.json's
 * redlines (each one's `decision`) and to report.docx (rejected ones are not written).
 */
export async function redlineDecisionsInForce(
  db: DynamoDBDocumentClient,
  tableName: string,
  jobId: string,
): Promise<Map<string, RedlineDecisionRecord>> {
  return latestRedlineDecisions(await new RedlineTrail(db, tableName).list(jobId));
}

/**
 * The decision a report or a listing shows for a redline of `clauseText`: the record in force,
 * or `proposed` when there is none; an edited one with the clause as the reviewer's edits make it.
 */
export function redlineDecisionOf(
  clauseText: string,
  record: RedlineDecisionRecord | undefined,
): RedlineDecision {
  if (!record) return { status: 'proposed' };
  const { status, edits, by, bySub, byName, at, note } = record;
  return {
    status,
    ...(status === 'edited' && edits ? { edits, text: applyEdits(clauseText, edits) } : {}),
    by,
    ...(bySub ? { bySub } : {}),
    ...(byName ? { byName } : {}),
    at,
    ...(note ? { note } : {}),
  };
}
