/**
 * The report the report.html tests render: four clauses (one with hostile text in its heading,
 * text and a rationale, one partial, one not analysed), an incomplete job with a failed call and
 * an unfinished chunk, and the stand-in's notice; and a way to cut a section out of the page.
 */
import { ANALYSTS, CATEGORIES } from '../../../lambdas/core/analysts/index.js';
import type { Report, ReportClause, ReportFinding } from '../../../lambdas/core/report-types.js';

export const XSS = '</script><img src=x onerror=alert(1)>';
export const ATTR_XSS = '"><svg onload=alert(2)>';

interface ClauseSpec {
  readonly label?: string;
  readonly heading?: string;
  readonly text: string;
  readonly chunk: number;
  readonly status: ReportClause['status'];
  readonly risk: ReportClause['risk'];
  readonly scores: Record<string, number | null>;
  readonly findings: readonly {
    category: string;
    score: number;
    quote: string;
    rationale: string;
    analysts: string[];
  }[];
  readonly analystsFailed?: string[];
}

const SPECS: readonly ClauseSpec[] = [
  {
    label: '4.1',
    heading: 'Term',
    text: 'This Agreement commences on the Effective Date and continues for five (5) years, and thereafter renews automatically for successive one-year terms unless either party gives written notice at least ninety (90) days before the end of the then-current term.',
    chunk: 0,
    status: 'analysed',
    risk: 'medium',
    scores: { 'term-renewal': 2, termination: 0 },
    findings: [
      {
        category: 'term-renewal',
        score: 2,
        quote: 'renews automatically for successive one-year terms',
        rationale: 'Evergreen renewal locks the customer in unless it remembers the 90-day window.',
        analysts: ['deal-balance', 'term-lifecycle'],
      },
      {
        category: 'termination',
        score: 0,
        quote: 'written notice at least ninety (90) days',
        rationale: 'Mutual non-renewal right with a customary notice period.',
        analysts: ['term-lifecycle'],
      },
    ],
  },
  {
    label: '9.2',
    heading: `Indemnity ${XSS} & 'co' ${ATTR_XSS}`,
    text: `Customer shall indemnify, defend and hold harmless Supplier from any and all claims arising out of this Agreement. ${XSS} Supplier's aggregate liability shall not exceed the fees paid in the preceding month.`,
    chunk: 0,
    status: 'analysed',
    risk: 'critical',
    scores: { liability: 3, 'warranty-insurance': 2, 'governing-law-disputes': null },
    findings: [
      {
        category: 'liability',
        score: 3,
        quote:
          'indemnify, defend and hold harmless Supplier from any and all claims arising out of this Agreement',
        rationale: `One-way, uncapped indemnity for any claim. ${XSS}`,
        analysts: ['liability-counsel', 'risk-transfer'],
      },
      {
        category: 'liability',
        score: 3,
        quote: "Supplier's aggregate liability shall not exceed the fees paid in the preceding month",
        rationale: "Supplier's cap is one month of fees while the customer's indemnity is uncapped.",
        analysts: ['liability-counsel'],
      },
      {
        category: 'warranty-insurance',
        score: 2,
        quote: 'aggregate liability shall not exceed',
        rationale: 'No insurance backs the indemnity; overlapping span to exercise nested highlighting.',
        analysts: ['risk-transfer'],
      },
    ],
  },
  {
    label: '12',
    heading: 'Governing law',
    text: 'This Agreement is governed by the laws of the State of New York, and the parties submit to the exclusive jurisdiction of the courts of New York County.',
    chunk: 0,
    status: 'partial',
    risk: 'low',
    scores: { 'governing-law-disputes': 1 },
    findings: [
      {
        category: 'governing-law-disputes',
        score: 1,
        quote: 'exclusive jurisdiction of the courts of New York County',
        rationale: 'Exclusive forum may be distant for a non-US customer.',
        analysts: ['disputes-counsel'],
      },
    ],
    analystsFailed: ['risk-transfer'],
  },
  {
    label: '13',
    text: 'Supplier may audit Customer’s books and records once per calendar year on thirty days’ notice.',
    chunk: 1,
    status: 'not-analysed',
    risk: null,
    scores: {},
    findings: [],
  },
];

/** The report, with `overrides` over its top-level fields. */
export function buildFixture(overrides: Partial<Report> = {}): Report {
  const clauses: ReportClause[] = [];
  let offset = 120; // a title block precedes the first clause in the normalised text
  SPECS.forEach((spec, index) => {
    const start = offset;
    const end = start + spec.text.length;
    offset = end + 2;
    const findings: ReportFinding[] = spec.findings.map((f) => {
      const at = spec.text.indexOf(f.quote);
      if (at < 0) throw new Error(`fixture quote not in clause: ${f.quote}`);
      return { ...f, start: start + at, end: start + at + f.quote.length };
    });
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c.id, spec.scores[c.id] ?? null]));
    const failed = spec.analystsFailed ?? [];
    clauses.push({
      id: `c${String(index + 1).padStart(4, '0')}`,
      index,
      chunk: spec.chunk,
      ...(spec.label ? { label: spec.label } : {}),
      ...(spec.heading ? { heading: spec.heading } : {}),
      start,
      end,
      text: spec.text,
      status: spec.status,
      risk: spec.risk,
      maxScore:
        spec.status === 'not-analysed' ? null : Math.max(...Object.values(spec.scores).map((s) => s ?? -1)),
      scores,
      findings,
      analystsAnswered:
        spec.status === 'not-analysed' ? [] : ANALYSTS.map((a) => a.id).filter((id) => !failed.includes(id)),
      analystsFailed: failed,
    });
  });

  return {
    schemaVersion: 1,
    job: {
      jobId: 'job-2f6c1e0a-report-test',
      status: 'incomplete',
      reason: `1 chunk(s) did not finish; 1 call(s) failed: c0003/risk-transfer (validation: quote not found in clause)`,
      lane: 'realtime',
      analysts: ANALYSTS.map((a) => a.id),
      document: {
        bucket: 'clause-review-inbox',
        key: 'inbox/acme/master-services-agreement.docx',
        versionId: 'v3',
        sha256: 'a'.repeat(64),
        bytes: 48_213,
        format: 'docx',
      },
    },
    categories: CATEGORIES.map((c) => ({ id: c.id, name: c.name })),
    analystPanel: ANALYSTS.map((a) => ({ id: a.id, name: a.name, categories: [...a.categories] })),
    summary: {
      clauses: 4,
      clausesAnalysed: 3,
      riskCounts: { none: 0, low: 1, medium: 1, high: 0, critical: 1 },
      categoriesFlagged: Object.fromEntries(
        CATEGORIES.map((c) => [
          c.id,
          ['term-renewal', 'liability', 'warranty-insurance'].includes(c.id) ? 1 : 0,
        ]),
      ),
    },
    clauses,
    chunks: [
      {
        chunk: 0,
        clauseIds: ['c0001', 'c0002', 'c0003'],
        stages: {
          analyze: {
            status: 'done',
            attempts: 2,
            startedAt: '2025-03-04T10:00:01.000Z',
            finishedAt: '2025-03-04T10:00:41.000Z',
          },
          consolidate: {
            status: 'done',
            attempts: 1,
            startedAt: '2025-03-04T10:00:41.500Z',
            finishedAt: '2025-03-04T10:00:42.000Z',
          },
        },
      },
      {
        chunk: 1,
        clauseIds: ['c0004'],
        stages: {
          analyze: {
            status: 'dead',
            attempts: 3,
            startedAt: '2025-03-04T10:00:01.000Z',
            lastError: 'ThrottlingException: Rate exceeded <retry later>',
            errorClass: 'transient',
          },
          consolidate: { status: 'missing', attempts: 0 },
        },
      },
    ],
    coverage: {
      callsPlanned: 44,
      callsDone: 32,
      callsReused: 3,
      callsFailed: 1,
      callsSkippedBudget: 0,
      callsCancelled: 0,
      callsScreened: 0,
      callsNotRun: 11,
      modelAttempts: 41,
      tier1Retries: 6,
      redeliveries: 3,
      failedCalls: [
        {
          chunk: 0,
          clauseId: 'c0003',
          analystId: 'risk-transfer',
          failureKind: 'validation',
          errorClass: 'validation',
          lastError: `quote not found in clause: "limits of <b>insurance</b>" ${XSS}`,
          attempts: 2,
        },
      ],
      unfinishedChunks: [
        {
          chunk: 1,
          stage: 'analyze',
          status: 'dead',
          detail: 'ThrottlingException: Rate exceeded <retry later>',
        },
      ],
    },
    cost: {
      ceilingMicros: 2_000_000,
      spentMicros: 421_337,
      reservedMicros: 12_000,
      committedMicros: 433_337,
      inputTokens: 90_210,
      outputTokens: 40_112,
      cacheReadInputTokens: 310_400,
      cacheWriteInputTokens: 52_800,
    },
    timings: {
      createdAt: '2025-03-04T09:59:58.000Z',
      finalizedAt: '2025-03-04T10:05:12.000Z',
      durationMs: 314_000,
    },
    notice:
      'Answers came from the offline heuristic stand-in for Amazon Bedrock, not from a legal-grade model: do not rely on them.',
    ...overrides,
  };
}

/** The content of the first element matching `open` up to its closing `close`. */
export function between(html: string, open: RegExp, close: string): string {
  const m = open.exec(html);
  if (!m) throw new Error(`no match for ${open}`);
  const from = m.index + m[0].length;
  const to = html.indexOf(close, from);
  if (to < 0) throw new Error(`no ${close} after ${open}`);
  return html.slice(from, to);
}
