/**
 * report.json's `negotiation`: the other side's changes and comments the stored document records
 * (tracked in the upload, or found by comparing it with the version it answers), each change
 * weighed on the clauses as they read before and now, against the job's playbook or the risk
 * categories, and answered; and, once report.docx is written, what it made of the answers.
 */
import type { StoredDocument } from '../intake/intake.js';
import {
  afterClauseId,
  judgeNegotiation,
  type Negotiation,
  type NegotiationDocx,
} from '../negotiation/index.js';
import type { Playbook } from '../playbooks/index.js';
import type { Position } from '../playbooks/schema.js';
import { claimsOurName } from '../report-docx/index.js';
import type { Report, ReportClause } from '../report-types.js';
import { judgedTopics } from './playbook-review.js';

/**
 * The `negotiation` member of a report (spread into it), or nothing when the document records no
 * change or comment of the other side.
 *
 * @param before the clauses as they read before their changes (`b…`), as the report builds clauses
 */
export function negotiationOf(
  doc: Pick<StoredDocument, 'revisions'>,
  clauses: readonly ReportClause[],
  before: readonly ReportClause[],
  playbook: Playbook | undefined,
  contractType: string | undefined,
): { negotiation?: Negotiation } {
  const revisions = doc.revisions;
  if (!revisions) return {};
  const positions = new Map<string, Position>();
  if (playbook)
    for (const [topic, judged] of judgedTopics(playbook, contractType))
      if (judged.kind === 'position') positions.set(topic, judged.position);
  const omitted = (revisions.omitted?.changes ?? 0) + (revisions.comparison?.omitted ?? 0);
  const negotiation = judgeNegotiation({
    changes: revisions.changes,
    comments: revisions.comments,
    clauses,
    before: new Map(before.map((b) => [afterClauseId(b.id), b])),
    positions,
    ...(revisions.comparison ? { against: revisions.comparison.against } : {}),
    ...(omitted > 0 ? { omitted } : {}),
    ours: claimsOurName,
  });
  return negotiation ? { negotiation } : {};
}

/** The report with what report.docx made of its answers to the other side. */
export function withNegotiationDocx(report: Report, docx: NegotiationDocx | undefined): Report {
  if (!report.negotiation || !docx) return report;
  return { ...report, negotiation: { ...report.negotiation, docx } };
}
