/**
 * The Word comments the add-in writes: one per clause at or above the risk the reviewer chose,
 * its first line naming clause-review, the job and the clause, so the add-in knows its own
 * comments when the pane is opened again (Word sets a comment's author to the person signed in
 * to Office, not to the add-in, so the text is what tells them apart).
 */
import type { ReportClause, Risk } from '../../core/report-types.js';
import { RISKS, riskOf } from '../clauses.js';

/** The first line of an add-in comment: `clause-review · job <job> · clause <clause> · <risk> risk`. */
const MARKER = /^clause-review · job (\S+) · clause (\S+) · /;

/** True when a clause's risk is `threshold` or higher. */
export function atOrAbove(clause: Pick<ReportClause, 'risk'>, threshold: Risk): boolean {
  return RISKS.indexOf(riskOf(clause)) <= RISKS.indexOf(threshold);
}

const human = (id: string) => id.replace(/[-_]/g, ' ');

/**
 * The comment of a clause: the marker line, then each finding's category, score and reason,
 * highest score first.
 *
 * @example
 * commentText('j-1', clause); // 'clause-review · job j-1 · clause c-4 · high risk\nliability cap (score 3): …'
 */
export function commentText(jobId: string, clause: ReportClause): string {
  const findings = [...clause.findings].sort((a, b) => (b.score ?? -1) - (a.score ?? -1));
  return [
    `clause-review · job ${jobId} · clause ${clause.id} · ${riskOf(clause)} risk`,
    ...findings.map((f) => `${human(f.category)} (score ${f.score ?? '–'}): ${f.rationale}`),
  ].join('\n');
}

/** The job and clause of a comment the add-in wrote; undefined for anyone else's comment. */
export function commentedClause(content: string): { jobId: string; clauseId: string } | undefined {
  const m = MARKER.exec(content);
  return m ? { jobId: m[1] ?? '', clauseId: m[2] ?? '' } : undefined;
}
