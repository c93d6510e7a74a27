/**
 * The decision a trail puts in force on a redline, and what an edited one makes of its clause's
 * text (edits are offsets into the clause's text, made as `applyEdits` makes them).
 */
import { applyEdits } from '../report-docx/edits.js';
import type { RedlineDecision, RedlineDecisionRecord } from './review-types.js';

/** The decision in force on each redline: the latest one made. */
export function latestRedlineDecisions(
  trail: readonly RedlineDecisionRecord[],
): Map<string, RedlineDecisionRecord> {
  const latest = new Map<string, RedlineDecisionRecord>();
  for (const r of trail) latest.set(r.redlineId, r);
  return latest;
}

/** The decision a report shows for a redline of `clauseText`: the record in force, or `proposed`. */
export function redlineDecision(
  clauseText: string,
  record: RedlineDecisionRecord | undefined,
): RedlineDecision {
  if (!record) return { status: 'proposed' };
  const { status, edits, by, byName, at, note } = record;
  return {
    status,
    ...(status === 'edited' && edits ? { edits, text: applyEdits(clauseText, edits) } : {}),
    by,
    ...(byName ? { byName } : {}),
    at,
    ...(note ? { note } : {}),
  };
}
