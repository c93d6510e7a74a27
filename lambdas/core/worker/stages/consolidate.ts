import {
  type AnalystAnswer,
  type AnalystDefinition,
  type ClauseAssessment,
  consolidateClause,
} from '../../analysts/index.js';
import type { Clause } from '../../clause.js';
import type { LedgerEntry } from '../../state/call-ledger.js';
import { callSk } from '../../state/keys.js';

/**
 * The consolidate stage: merges each clause's answers into one assessment. A clause whose
 * analysts did not all answer is consolidated from those that did, and names the others; an
 * analyst the relevance screen did not ask about the clause is neither.
 */
export function consolidateChunk(
  chunk: number,
  clauses: readonly Clause[],
  analysts: readonly AnalystDefinition[],
  entries: ReadonlyMap<string, Pick<LedgerEntry, 'status' | 'result'>>,
  screened?: Readonly<Record<string, readonly string[]>>,
): ClauseAssessment[] {
  return clauses.map((clause) => {
    const answers: AnalystAnswer[] = [];
    const failed: string[] = [];
    for (const analyst of analysts) {
      if (screened?.[clause.id]?.includes(analyst.id)) continue;
      const entry = entries.get(callSk(chunk, clause.id, analyst.id));
      if (entry?.status === 'done' && entry.result) answers.push(JSON.parse(entry.result) as AnalystAnswer);
      else failed.push(analyst.id);
    }
    return consolidateClause(clause, answers, failed);
  });
}
