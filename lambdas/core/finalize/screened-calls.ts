/**
 * The calls a job did not ask, as the report accounts for them: one outcome, `screened`, for a
 * pair of clause and analyst not asked, with its reason: the relevance screen found none of the
 * analyst's categories likely in the clause (`screen`, with the probability it gave them), or
 * the job's playbook gives the analyst nothing to judge (`playbook`, every clause).
 */
import { ANALYST_IDS, analystById } from '../analysts/index.js';
import type { StoredDocument } from '../intake/intake.js';
import type { Job } from '../state/jobs.js';
import type { ReportScreened, ReportScreenedPair } from './report-types.js';

/** What the accounting reads of a job and its stored document. */
export interface ScreenedSource {
  readonly doc: Pick<StoredDocument, 'screened'>;
  readonly job: Pick<Job, 'notAsked'>;
}

/** The analysts not asked about one clause, the playbook's first, then the screen's. */
export function screenedPairs({ doc, job }: ScreenedSource, clauseId: string): ReportScreenedPair[] {
  return [
    ...(job.notAsked ?? []).map((n) => ({ analystId: n.analystId, reason: 'playbook' as const })),
    ...(doc.screened?.[clauseId] ?? []).map((s) => ({
      analystId: s.analystId,
      reason: 'screen' as const,
      probability: s.probability,
    })),
  ];
}

/** The screened calls per analyst and reason, and their total, over `clauses` clauses. */
export function screenedCalls(
  { doc, job }: ScreenedSource,
  clauses: number,
): { callsScreened: number; screened?: ReportScreened[] } {
  const rows: ReportScreened[] = (job.notAsked ?? []).map((n) => ({
    analystId: n.analystId,
    reason: 'playbook',
    calls: clauses,
    detail: n.detail,
  }));
  const byAnalyst = new Map<string, number>();
  for (const left of Object.values(doc.screened ?? {}))
    for (const s of left) byAnalyst.set(s.analystId, (byAnalyst.get(s.analystId) ?? 0) + 1);
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
