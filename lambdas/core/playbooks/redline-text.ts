/**
 * What a redline's edits make of its clause's text, and the decision a trail puts in force on
 * it. Edits are offsets into the clause's text; they do not overlap.
 */
import type { RedlineEdit } from '../report-docx/redlines.js';
import type { RedlineDecision, RedlineDecisionRecord } from './review-types.js';

/**
 * `text` with each edit made.
 * @example applyEdits('ninety (90) days', [{ start: 0, end: 11, insert: 'thirty (30)' }]) // 'thirty (30) days'
 */
export function applyEdits(text: string, edits: readonly RedlineEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((x, y) => y.start - x.start || y.end - x.end))
    out = out.slice(0, e.start) + e.insert + out.slice(e.end);
  return out;
}

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
