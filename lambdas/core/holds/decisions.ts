import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Score } from '../analysts/tool-schema.js';
import { jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';

/** What a reviewer says of a finding. */
export type Verdict = 'approve' | 'override' | 'reject';

/** One reviewer decision, as the trail keeps it. */
export interface Decision {
  readonly findingId: string;
  readonly verdict: Verdict;
  /** The score the reviewer set (override), else absent. */
  readonly score?: Score;
  /** The deciding principal (an IAM ARN, or `cognito-identity:<identity id>`). */
  readonly by: string;
  /**
   * The user pool's permanent id (`sub`) of the deciding person, when they signed in through the
   * user pool: what names them whatever their email becomes.
   */
  readonly bySub?: string;
  /**
   * The name the user pool vouched for when they decided: their email if verified, else their
   * user name (docs/security.md). Never an unverified address.
   */
  readonly byName?: string;
  /** When it was recorded (ISO). */
  readonly at: string;
  readonly note?: string;
}

/** The score a decision leaves a finding with: the panel's on approval, the reviewer's on override, 0 on rejection. */
export function decidedScore(decision: Pick<Decision, 'verdict' | 'score'>, modelScore: Score): Score {
  if (decision.verdict === 'override') return decision.score ?? modelScore;
  return decision.verdict === 'reject' ? 0 : modelScore;
}

/** Sort-key prefix of a job's decisions: after its checkpoints and ledger, in time order. */
const DECISION_PREFIX = 'DECISION#';

/**
 * A job's review trail: append-only items under the job's partition, one per decision, keyed
 * by time so that a Query returns them in the order they were made. A later decision on the
 * same finding supersedes an earlier one; none is ever changed or deleted (purge aside).
 */
export class ReviewTrail {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Appends decisions; each item is new (a conditional put), so nothing is overwritten. */
  async append(jobId: string, decisions: readonly Decision[]): Promise<void> {
    for (const [i, d] of decisions.entries()) {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            pk: jobPk(jobId),
            sk: `${DECISION_PREFIX}${d.at}#${String(i).padStart(5, '0')}#${randomBytes(4).toString('hex')}`,
            ...d,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    }
  }

  /** Every decision on the job, oldest first. */
  async list(jobId: string): Promise<Decision[]> {
    const items = await queryAll<Decision & { pk?: string; sk?: string }>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': DECISION_PREFIX },
      ConsistentRead: true,
    });
    return items.map(({ pk: _pk, sk: _sk, ...d }) => d);
  }
}

/** The decision in force on each finding: the latest one made. */
export function latestDecisions(trail: readonly Decision[]): Map<string, Decision> {
  const latest = new Map<string, Decision>();
  for (const d of trail) latest.set(d.findingId, d);
  return latest;
}
