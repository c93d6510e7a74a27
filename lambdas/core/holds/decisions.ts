import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Score } from '../analysts/tool-schema.js';
import { Trail } from './trail.js';

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

/**
 * A job's review trail: its findings' decisions, append-only under sort keys `DECISION#<at>…`
 * (after its checkpoints and ledger), in time order. A later decision on the same finding
 * supersedes an earlier one; none is ever changed or deleted (purge aside).
 */
export class ReviewTrail extends Trail<Decision> {
  constructor(db: DynamoDBDocumentClient, tableName: string) {
    super(db, tableName, 'DECISION#');
  }
}

/** The decision in force on each finding: the latest one made. */
export function latestDecisions(trail: readonly Decision[]): Map<string, Decision> {
  const latest = new Map<string, Decision>();
  for (const d of trail) latest.set(d.findingId, d);
  return latest;
}
