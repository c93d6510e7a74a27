/**
 * The proposed redlines of a clause as the pane shows them, and the one place a reviewer's
 * decision on a redline is sent from. Redlines come with a review against a playbook: each
 * position a clause reaches below the standard may carry one (`positions[].redline`, edits of the
 * clause's own text at offsets in it, as report.docx writes them).
 */
import type { ReportClause } from '../../core/finalize/report-types.js';
import type { RedlineEdit } from '../../core/report-docx/edits.js';
import type { AppApi } from '../api.js';

/** A redline as the pane needs it: its id and edits, and the decision in force, if any. */
export interface PaneRedline {
  readonly id: string;
  readonly clauseId: string;
  readonly edits: readonly RedlineEdit[];
  readonly decision?: { readonly status: string };
}

/** A clause that may carry positions with redlines (a review against a playbook). */
type WithPositions = ReportClause & { readonly positions?: readonly { readonly redline?: PaneRedline }[] };

/** The proposed redlines of a clause, none for a clause reviewed without a playbook. */
export function redlinesOf(clause: ReportClause): PaneRedline[] {
  return ((clause as WithPositions).positions ?? []).flatMap((p) => (p.redline ? [p.redline] : []));
}

/** A redline decision could not be recorded: this stack has no route for it. */
export class RedlineDecisionUnavailableError extends Error {
  override readonly name = 'RedlineDecisionUnavailableError';
}

/**
 * Records a reviewer's decision on a redline in the job's trail. The status API has no route
 * for it yet: until it has, this says so, and applying a redline in Word changes the document
 * only.
 * @throws RedlineDecisionUnavailableError
 */
export async function recordRedlineDecision(
  _api: AppApi,
  jobId: string,
  redlineId: string,
  decision: 'accepted' | 'rejected',
): Promise<string> {
  throw new RedlineDecisionUnavailableError(
    `this stack cannot record redline decisions yet, so ${decision} was not recorded for ${redlineId} of ${jobId}; applying it in Word changes the document only`,
  );
}
