/**
 * The other side's changes as a job's chunks consolidate: each change is judged and handed out
 * once, by the read whose chunks complete it (every clause it falls in consolidated, as it reads
 * now and as it read before), with the same verdict and answer report.json will give it.
 */

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reportClause } from '../finalize/build-report.js';
import { negotiationOf } from '../finalize/negotiation-report.js';
import { judgedTopics, positionFindings } from '../finalize/playbook-review.js';
import type { StoredDocument } from '../intake/stored-document.js';
import { beforeClauseId, isBeforeClause, type NegotiationChange } from '../negotiation/index.js';
import type { ReportClause } from '../report-types.js';
import type { Job } from '../state/job.js';
import { storesOf } from '../stores.js';
import { readAssessments } from './assessments.js';

/** The chunks a change needs consolidated: those of its clauses, and of their texts before. */
function neededChunks(doc: StoredDocument, change: { readonly clauseIds?: readonly string[] }): number[] {
  const ids = new Set((change.clauseIds ?? []).flatMap((id) => [id, beforeClauseId(id)]));
  return doc.chunks.filter((c) => c.clauses.some((x) => ids.has(x.id))).map((c) => c.index);
}

/**
 * The changes of theirs this read completes: judged on the clauses of every chunk delivered, and
 * handed out only when the read's chunks hold the last of what they need. Empty when the document
 * records no change of theirs, or none is completed now.
 *
 * @param before the chunks delivered before this read; `now` those delivered with it
 */
export async function liveNegotiation(
  job: Job,
  doc: StoredDocument,
  before: ReadonlySet<number>,
  now: ReadonlySet<number>,
  deps: { readonly db: DynamoDBDocumentClient; readonly tableName: string },
): Promise<NegotiationChange[]> {
  const changes = doc.revisions?.changes ?? [];
  const completed = changes.filter((c) => {
    const needed = neededChunks(doc, c);
    return needed.length > 0 && needed.every((n) => now.has(n)) && !needed.every((n) => before.has(n));
  });
  if (completed.length === 0) return [];
  const chunks = [...new Set(completed.flatMap((c) => neededChunks(doc, c)))];
  const assessments = await readAssessments(job.jobId, chunks, deps);
  const playbook = job.playbook ? await storesOf(deps).playbooks.forJob(job.playbook) : undefined;
  const topics = playbook ? judgedTopics(playbook, job.contractType?.type) : undefined;
  const clauses: ReportClause[] = [];
  const earlier: ReportClause[] = [];
  for (const index of chunks) {
    const chunk = doc.chunks.find((c) => c.index === index);
    for (const clause of chunk?.clauses ?? []) {
      const a = assessments.get(index)?.find((x) => x.clauseId === clause.id);
      const toFindings = topics
        ? (c: { id: string; text: string }, v: Parameters<typeof positionFindings>[1]) =>
            positionFindings(c, v, topics)
        : undefined;
      (isBeforeClause(clause.id) ? earlier : clauses).push(
        reportClause(clause, index, a, doc.screened, toFindings),
      );
    }
  }
  const { negotiation } = negotiationOf(doc, clauses, earlier, playbook, job.contractType?.type);
  const ids = new Set(completed.map((c) => c.id));
  return (negotiation?.changes ?? []).filter(
    (c) => c.revisions.some((r) => ids.has(r)) && c.verdict !== 'not-judged',
  );
}
