/**
 * A job's redline decisions, beside its findings' decisions in the same partition: append-only
 * items, one per decision, keyed by time so a Query returns them in the order made. A later
 * decision on the same redline supersedes an earlier one; none is ever changed or deleted (purge
 * aside). Once a review closes, finalize reads them and `applyReview` puts the decision in force
 * on each redline of report.json, which report.html shows and report.docx follows (a rejected one
 * left out, an edited one written with the reviewer's edits).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { applyEdits } from '../../text/redline-edits.js';
import type { RedlineDecision, RedlineDecisionRecord } from '../playbooks/review-types.js';
import { decidedBy, Trail } from './trail.js';

/**
 * A job's redline decisions in the state table: append-only under sort keys `REDLINE#<at>…`,
 * after its findings' `DECISION#` items.
 */
export class RedlineTrail extends Trail<RedlineDecisionRecord> {
  constructor(db: DynamoDBDocumentClient, tableName: string) {
    super(db, tableName, 'REDLINE#');
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
 * The decision a report or a listing shows for a redline of `clauseText`: the record in force,
 * or `proposed` when there is none; an edited one with the clause as the reviewer's edits make it.
 */
export function redlineDecisionOf(
  clauseText: string,
  record: RedlineDecisionRecord | undefined,
): RedlineDecision {
  if (!record) return { status: 'proposed' };
  const { status, edits } = record;
  return {
    status,
    ...(status === 'edited' && edits ? { edits, text: applyEdits(clauseText, edits) } : {}),
    ...decidedBy(record),
  };
}
