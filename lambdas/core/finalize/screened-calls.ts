/**
 * The calls a job did not ask, as the report accounts for them: one outcome, `screened`, for a
 * pair of clause and analyst the relevance screen left out because it found none of the
 * analyst's categories likely in the clause, with the highest probability it gave them.
 */
import { ANALYST_IDS, analystById } from '../analysts/index.js';
import type { StoredDocument } from '../intake/intake.js';
import type { ReportScreened, ReportScreenedPair } from '../report-types.js';

type Screened = StoredDocument['screened'];

/** The analysts the screen left out of one clause, in panel order. */
export function screenedPairs(screened: Screened, clauseId: string): ReportScreenedPair[] {
  return (screened?.[clauseId] ?? []).map((s) => ({
    analystId: s.analystId,
    reason: 'screen',
    probability: s.probability,
  }));
}

/** The screened calls per analyst, and their total, over a document of `clauses` clauses. */
export function screenedCalls(
  screened: Screened,
  clauses: number,
): { callsScreened: number; screened?: ReportScreened[] } {
  const byAnalyst = new Map<string, number>();
  for (const left of Object.values(screened ?? {}))
    for (const s of left) byAnalyst.set(s.analystId, (byAnalyst.get(s.analystId) ?? 0) + 1);
  const rows: ReportScreened[] = [];
  for (const analystId of ANALYST_IDS) {
    const calls = byAnalyst.get(analystId);
    if (!calls) continue;
    const categories = analystById(analystId).categories.join(', ');
    rows.push({
      analystId,
      reason: 'screen',
      calls,
      detail: `the relevance screen found none of its categories (${categories}) likely in ${calls} of ${clauses} clauses`,
    });
  }
  const callsScreened = rows.reduce((n, r) => n + r.calls, 0);
  return rows.length > 0 ? { callsScreened, screened: rows } : { callsScreened };
}
