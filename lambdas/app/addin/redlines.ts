/**
 * The proposed redlines of a clause as the pane shows them, and the one place a reviewer's
 * decision on a redline is sent from. Redlines come with a review against a playbook: each
 * position a clause reaches below the standard may carry one (`positions[].redline`, edits of the
 * clause's own text at offsets in it, as report.docx writes them).
 */
import type { ReportClause } from '../../core/report-types.js';
import type { RedlineEdit } from '../../text/redline-edits.js';
import type { AppApi } from '../api.js';

/** A redline as the pane needs it: its id and edits, and the decision in force, if any. */
export interface PaneRedline {
  readonly id: string;
  readonly clauseId: string;
  readonly edits: readonly RedlineEdit[];
  readonly decision?: { readonly status: string };
  /** Where its words came from (`model`: drafted by the model), and the playbook's own language. */
  readonly source?: 'playbook' | 'model';
  readonly shape?: 'in-place' | 'appended';
  readonly language?: string;
}

/** A clause that may carry positions with redlines (a review against a playbook). */
type WithPositions = ReportClause & { readonly positions?: readonly { readonly redline?: PaneRedline }[] };

/** The proposed redlines of a clause, none for a clause reviewed without a playbook. */
export function redlinesOf(clause: ReportClause): PaneRedline[] {
  return ((clause as WithPositions).positions ?? []).flatMap((p) => (p.redline ? [p.redline] : []));
}

/**
 * Records a reviewer's decision on a redline in the job's trail (`POST /jobs/{id}/redlines`),
 * as the app's review view does, and says what became of it. The route takes decisions while the
 * job's review gate holds its redlines; applying a redline in Word changes the document only.
 * @throws AppApiError with the API's own explanation: 409 once the review has closed, 404 for a
 * job the signed-in person may not decide on
 */
export async function recordRedlineDecision(
  api: Pick<AppApi, 'decideRedlines'>,
  jobId: string,
  redlineId: string,
  decision: 'accepted' | 'rejected',
): Promise<string> {
  const r = await api.decideRedlines(jobId, {
    redlines: [redlineId],
    decision: decision === 'accepted' ? 'accept' : 'reject',
  });
  const left = r.reviewClosed
    ? 'nothing is left to decide: the report is being written'
    : `${r.undecided} item(s) of the review still to decide`;
  return `${decision === 'accepted' ? 'Accepted' : 'Rejected'}, recorded in the job's trail; ${left}.`;
}
