import type { Score } from '../analysts/tool-schema.js';
import type { Report, Risk } from '../report-types.js';
import type { ReviewGate } from '../state/job.js';

/** The lowest category score a gated finding has: the scores that make a clause's risk. */
const SIGNIFICANT_SCORE = 2;

/** The clause risks each gate holds for a reviewer. */
const GATED_RISKS: Readonly<Record<ReviewGate, readonly Risk[]>> = {
  none: [],
  critical: ['critical'],
  high: ['high', 'critical'],
};

/**
 * One finding held for a reviewer: a category of a clause whose risk meets the gate, scored
 * significant (2) or severe (3) by the panel. Its id, `<clause>/<category>`, is what a
 * reviewer's decision names.
 */
export interface GatedFinding {
  readonly id: string;
  readonly clauseId: string;
  readonly clauseIndex: number;
  readonly label?: string;
  readonly heading?: string;
  readonly category: string;
  /** The panel's score of the category. */
  readonly score: Score;
  readonly clauseRisk: Risk;
  /** The passages the analysts quoted for the category, with the longest rationale. */
  readonly quotes: readonly { readonly quote: string; readonly start: number; readonly end: number }[];
  readonly rationale: string;
  readonly analysts: readonly string[];
}

/** The id of the finding on a clause's category. */
export const findingId = (clauseId: string, category: string) => `${clauseId}/${category}`;

/**
 * The findings a gate holds for a reviewer, in clause order then category order. Empty for
 * the gate `none`, and for a report with no clause at the gate's risk.
 */
export function gatedFindings(
  report: Pick<Report, 'clauses' | 'categories'>,
  gate: ReviewGate,
): GatedFinding[] {
  const risks = GATED_RISKS[gate];
  return findingsOf(report, (risk) => risks.includes(risk));
}

/** Every clause category the panel scored significant or severe, whatever the clause's risk. */
export function significantFindings(report: Pick<Report, 'clauses' | 'categories'>): GatedFinding[] {
  return findingsOf(report, () => true);
}

function findingsOf(
  report: Pick<Report, 'clauses' | 'categories'>,
  clauseAt: (risk: Risk) => boolean,
): GatedFinding[] {
  const out: GatedFinding[] = [];
  for (const clause of report.clauses) {
    if (!clause.risk || !clauseAt(clause.risk)) continue;
    for (const { id: category } of report.categories) {
      const score = clause.scores[category];
      if (score === null || score === undefined || score < SIGNIFICANT_SCORE) continue;
      const evidence = clause.findings.filter((f) => f.category === category);
      out.push({
        id: findingId(clause.id, category),
        clauseId: clause.id,
        clauseIndex: clause.index,
        ...(clause.label ? { label: clause.label } : {}),
        ...(clause.heading ? { heading: clause.heading } : {}),
        category,
        score: score as Score,
        clauseRisk: clause.risk,
        quotes: evidence.map((f) => ({ quote: f.quote, start: f.start, end: f.end })),
        rationale: evidence.reduce((r, f) => (f.rationale.length > r.length ? f.rationale : r), ''),
        analysts: [...new Set(evidence.flatMap((f) => f.analysts))].sort(),
      });
    }
  }
  return out;
}
