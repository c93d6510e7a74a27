import { describe, expect, it } from 'vitest';
import {
  type AnalystAnswer,
  AnalystError,
  CATEGORY_IDS,
  type CategoryId,
  type ClauseRisk,
  clauseFindings,
  consolidateClause,
  riskFromScores,
  type Score,
} from '../../../lambdas/core/analysts/index.js';
import type { Clause } from '../../../lambdas/core/clause.js';

/** Section 13.6 of the Airspan distributor agreement (CUAD), byte for byte. */
const TEXT =
  '13.6 Airspan shall not be liable to Distributor for damages of any kind, including incidental or ' +
  'consequential damages, on account of the termination of this agreement in accordance with this section 13.  ' +
  'Airspan shall not be liable to Distributor on account of termination or expiration of this Agreement for ' +
  'reimbursement or damages for loss of goodwill, prospective profits, or anticipated orders, or on account of ' +
  'any expenditures, investments, leases, or commitments made by either party, or for any other reason ' +
  'whatsoever based upon or growing out of such termination or expiration.  Airspan will recognize payments ' +
  'due to Distributor for orders received up to ninety (90) days after the termination or expiration of this ' +
  'Agreement.';

const START = 51_000;
const DOCUMENT = `${' '.repeat(START)}${TEXT}`;
const clause: Clause = {
  index: 120,
  id: 'c0121',
  label: '13.6',
  start: START,
  end: START + TEXT.length,
  text: TEXT,
};

const NO_DAMAGES = 'Airspan shall not be liable to Distributor for damages of any kind';
const NO_DAMAGES_LONG =
  'Airspan shall not be liable to Distributor for damages of any kind, including incidental or consequential damages';
const GOODWILL = 'reimbursement or damages for loss of goodwill, prospective profits, or anticipated orders';
const PAYMENTS =
  'Airspan will recognize payments due to Distributor for orders received up to ninety (90) days';

function finding(quote: string, rationale: string) {
  const local = TEXT.indexOf(quote);
  if (local < 0) throw new Error(`fixture quote not in the clause: ${quote}`);
  return { quote, start: START + local, end: START + local + quote.length, rationale };
}

type Assessments = AnalystAnswer['assessments'];

function answer(analystId: string, assessments: Assessments): AnalystAnswer {
  return { analystId, clauseId: clause.id, assessments, summary: `${analystId} summary` };
}

/** What the panel might say about 13.6: three analysts see the liability exclusion, two the termination terms. */
function panel(): AnalystAnswer[] {
  return [
    answer('liability-counsel', {
      liability: {
        score: 2,
        findings: [
          finding(NO_DAMAGES_LONG, 'One-way exclusion of all damages on termination, even direct ones.'),
          finding(GOODWILL, 'Distributor cannot recover its investment in the territory.'),
        ],
      },
    }),
    answer('risk-transfer', {
      'warranty-insurance': { score: null, findings: [] },
      liability: { score: 3, findings: [finding(NO_DAMAGES, 'Uncapped one-way exclusion.')] },
    }),
    answer('term-lifecycle', {
      'term-renewal': { score: null, findings: [] },
      termination: {
        score: 1,
        findings: [
          finding(PAYMENTS, 'Payments continue only for orders received within 90 days of termination.'),
        ],
      },
    }),
    answer('disputes-counsel', {
      'governing-law-disputes': { score: null, findings: [] },
      termination: { score: 0, findings: [finding(PAYMENTS, 'Standard post-termination payment window.')] },
    }),
  ];
}

describe('consolidateClause', () => {
  const result = consolidateClause(clause, panel(), ['ip-counsel', 'commercial-terms', 'ip-counsel']);

  it('takes the highest score per category and lists who scored it', () => {
    expect(result.categories.liability.score).toBe(3);
    expect(result.categories.liability.scoredBy).toEqual(['liability-counsel', 'risk-transfer']);
    expect(result.categories.termination.score).toBe(1);
    expect(result.categories.termination.scoredBy).toEqual(['disputes-counsel', 'term-lifecycle']);
    expect(result.maxScore).toBe(3);
  });

  it('merges overlapping quotes from different analysts into one finding', () => {
    const [exclusion, goodwill] = result.categories.liability.findings;
    expect(result.categories.liability.findings).toHaveLength(2);
    // NO_DAMAGES lies inside NO_DAMAGES_LONG: one finding spanning both, naming both analysts.
    expect(exclusion?.analysts).toEqual(['liability-counsel', 'risk-transfer']);
    expect(exclusion?.quote).toBe(NO_DAMAGES_LONG);
    expect(DOCUMENT.slice(exclusion?.start, exclusion?.end)).toBe(NO_DAMAGES_LONG);
    expect(exclusion?.rationale).toBe('One-way exclusion of all damages on termination, even direct ones.');
    expect(exclusion?.score).toBe(3);
    expect(goodwill?.analysts).toEqual(['liability-counsel']);
    expect(goodwill?.score).toBe(2);
    expect(goodwill?.quote).toBe(GOODWILL);
    expect((exclusion?.start ?? 0) < (goodwill?.start ?? 0)).toBe(true);

    const [payments] = result.categories.termination.findings;
    expect(result.categories.termination.findings).toHaveLength(1);
    expect(payments?.analysts).toEqual(['disputes-counsel', 'term-lifecycle']);
    expect(payments?.rationale).toBe(
      'Payments continue only for orders received within 90 days of termination.',
    );
    expect(payments?.score).toBe(1);
  });

  it('keeps quotes that overlap by less than half of the shorter one apart', () => {
    // Two quotes sharing "damages of any kind, including" (30 characters), each over 75 long.
    const a = finding('Airspan shall not be liable to Distributor for damages of any kind, including', 'a');
    const bQuote = 'damages of any kind, including incidental or consequential damages, on account of';
    const b = finding(bQuote, 'b');
    const overlap = a.end - b.start;
    expect(overlap).toBeGreaterThan(0);
    expect(overlap / Math.min(a.end - a.start, b.end - b.start)).toBeLessThan(0.5);
    const merged = consolidateClause(clause, [
      answer('liability-counsel', { liability: { score: 2, findings: [b] } }),
      answer('risk-transfer', { liability: { score: 2, findings: [a] } }),
    ]);
    expect(merged.categories.liability.findings.map((f) => f.quote)).toEqual([a.quote, bQuote]);
  });

  it('reports null for categories no analyst scored, and says which nobody assessed', () => {
    for (const id of ['warranty-insurance', 'term-renewal', 'governing-law-disputes'] as const) {
      expect(result.categories[id]).toEqual({ score: null, scoredBy: [], findings: [] });
    }
    expect(Object.keys(result.categories)).toEqual([...CATEGORY_IDS]);
    const assessed: CategoryId[] = [
      'term-renewal',
      'termination',
      'liability',
      'warranty-insurance',
      'governing-law-disputes',
    ];
    expect(result.coverage.categoriesUnassessed).toEqual(CATEGORY_IDS.filter((id) => !assessed.includes(id)));
    expect(result.categories.competition).toEqual({ score: null, scoredBy: [], findings: [] });
  });

  it('records who answered and who failed, sorted and unique', () => {
    expect(result.clauseId).toBe('c0121');
    expect(result.coverage.analystsAnswered).toEqual([
      'disputes-counsel',
      'liability-counsel',
      'risk-transfer',
      'term-lifecycle',
    ]);
    expect(result.coverage.analystsFailed).toEqual(['commercial-terms', 'ip-counsel']);
  });

  it('derives the risk from the scores', () => {
    // Liability 3, termination 1: one severe category alone.
    expect(result.risk).toBe('high');
    const onlyTermination = consolidateClause(clause, panel().slice(2));
    expect(onlyTermination.risk).toBe('low');
    expect(onlyTermination.maxScore).toBe(1);
    // A second opinion raising termination to 2 makes it severe plus significant.
    const harsher = answer('deal-balance', {
      termination: {
        score: 2,
        findings: [finding(PAYMENTS, 'Only 90 days of orders are paid after termination.')],
      },
    });
    expect(consolidateClause(clause, [...panel(), harsher]).risk).toBe('critical');
  });

  it('lists every finding with its category in text order', () => {
    const flat = clauseFindings(result);
    expect(flat.map((f) => [f.category, f.quote])).toEqual([
      ['liability', NO_DAMAGES_LONG],
      ['liability', GOODWILL],
      ['termination', PAYMENTS],
    ]);
    expect(flat[2]?.analysts).toEqual(['disputes-counsel', 'term-lifecycle']);
  });

  it('is deterministic whatever order the answers arrive in', () => {
    const answers = panel();
    const reversed = consolidateClause(clause, [...answers].reverse(), ['commercial-terms', 'ip-counsel']);
    expect(reversed).toEqual(result);
    const rotated = consolidateClause(
      clause,
      [...answers.slice(1), ...answers.slice(0, 1)],
      ['ip-counsel', 'commercial-terms'],
    );
    expect(JSON.stringify(rotated)).toBe(JSON.stringify(result));
  });

  it('gives none when nobody answered', () => {
    const empty = consolidateClause(clause, [], ['liability-counsel']);
    expect(empty.maxScore).toBeNull();
    expect(empty.risk).toBe('none');
    expect(empty.coverage.categoriesUnassessed).toEqual([...CATEGORY_IDS]);
  });

  it('refuses an answer that belongs to another clause', () => {
    const stray = { ...answer('ip-counsel', {}), clauseId: 'c0001' };
    expect(() => consolidateClause(clause, [stray])).toThrow(AnalystError);
    expect(() => consolidateClause(clause, [stray])).toThrow(/clause c0001, not c0121/);
  });
});

describe('riskFromScores', () => {
  const cases: [(Score | null)[], ClauseRisk][] = [
    [[], 'none'],
    [[null, null], 'none'],
    [[0, null, 0], 'none'],
    [[1, 0, null], 'low'],
    [[2, 1], 'medium'],
    [[2, 2, 1], 'medium'],
    [[2, 2, 2], 'high'],
    [[3, 1, 1, null], 'high'],
    [[3, 2], 'critical'],
    [[3, 3], 'critical'],
  ];
  it.each(cases)('scores %j give %s', (scores, risk) => {
    expect(riskFromScores(scores)).toBe(risk);
  });
});
