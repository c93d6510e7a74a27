import { describe, expect, it } from 'vitest';
import { findDocumentContext } from '../../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../../lambdas/core/documents/index.js';
import { applyReview, reviewOf } from '../../../lambdas/core/holds/apply.js';
import { type Decision, decidedScore, latestDecisions } from '../../../lambdas/core/holds/decisions.js';
import { gatedFindings, significantFindings } from '../../../lambdas/core/holds/findings.js';
import { isJobOptionError, readJobOptions } from '../../../lambdas/core/intake/job-options.js';
import { chunkMessagesOf, type StoredDocument } from '../../../lambdas/core/intake/stored-document.js';
import type { Report, ReportClause } from '../../../lambdas/core/report-types.js';
import { chunkMessageSchema } from '../../../lambdas/core/worker/chunk-message.js';
import { fixture, MEDIUM } from '../../helpers/pipeline.js';

const CATEGORIES = [
  { id: 'liability', name: 'Liability' },
  { id: 'termination', name: 'Termination' },
  { id: 'licensing', name: 'Licensing' },
];

function clause(id: string, risk: ReportClause['risk'], scores: Record<string, number | null>): ReportClause {
  return {
    id,
    index: Number(id.slice(1)),
    chunk: 0,
    start: 0,
    end: 10,
    text: 'clause text',
    status: 'analysed',
    risk,
    maxScore: Math.max(...Object.values(scores).map((s) => s ?? -1)),
    scores,
    findings: Object.entries(scores)
      .filter(([, s]) => s !== null && s >= 1)
      .map(([category, score]) => ({
        category,
        score,
        quote: `quote about ${category}`,
        start: 0,
        end: 5,
        rationale: `why ${category}`,
        analysts: ['liability-counsel'],
      })),
    analystsAnswered: ['liability-counsel'],
    analystsFailed: [],
  };
}

const report = {
  categories: CATEGORIES,
  clauses: [
    clause('c0001', 'critical', { liability: 3, termination: 2, licensing: 0 }),
    clause('c0002', 'high', { liability: 3, termination: 1, licensing: null }),
    clause('c0003', 'medium', { liability: 2, termination: 0, licensing: 1 }),
    clause('c0004', 'low', { liability: 1, termination: null, licensing: null }),
  ],
  summary: {
    clauses: 4,
    clausesAnalysed: 4,
    riskCounts: { none: 0, low: 1, medium: 1, high: 1, critical: 1 },
    categoriesFlagged: { liability: 3, termination: 1, licensing: 0 },
  },
} as unknown as Report;

const at = '2026-03-01T10:00:00.000Z';
const decision = (findingId: string, verdict: Decision['verdict'], score?: 0 | 1 | 2 | 3): Decision => ({
  findingId,
  verdict,
  ...(score !== undefined ? { score } : {}),
  by: 'arn:aws:iam::1:user/reviewer',
  at,
});

describe('gatedFindings', () => {
  it('holds the significant and severe categories of clauses at the gate risk, in clause then category order', () => {
    expect(gatedFindings(report, 'critical').map((f) => f.id)).toEqual([
      'c0001/liability',
      'c0001/termination',
    ]);
    expect(gatedFindings(report, 'high').map((f) => f.id)).toEqual([
      'c0001/liability',
      'c0001/termination',
      'c0002/liability',
    ]);
    expect(gatedFindings(report, 'none')).toEqual([]);
    const [first] = gatedFindings(report, 'critical');
    expect(first).toMatchObject({
      clauseId: 'c0001',
      category: 'liability',
      score: 3,
      clauseRisk: 'critical',
      quotes: [{ quote: 'quote about liability', start: 0, end: 5 }],
      rationale: 'why liability',
      analysts: ['liability-counsel'],
    });
  });

  it('lists every significant finding whatever its clause risk', () => {
    expect(significantFindings(report).map((f) => `${f.id}:${f.clauseRisk}`)).toEqual([
      'c0001/liability:critical',
      'c0001/termination:critical',
      'c0002/liability:high',
      'c0003/liability:medium',
    ]);
  });
});

describe('decisions', () => {
  it('decide a score: the panel on approval, the reviewer on override, 0 on rejection', () => {
    expect(decidedScore({ verdict: 'approve' }, 3)).toBe(3);
    expect(decidedScore({ verdict: 'override', score: 1 }, 3)).toBe(1);
    expect(decidedScore({ verdict: 'reject' }, 2)).toBe(0);
  });

  it('keep the latest decision per finding in force', () => {
    const trail = [decision('a', 'approve'), decision('b', 'reject'), decision('a', 'override', 1)];
    expect([...latestDecisions(trail).entries()].map(([id, d]) => `${id}:${d.verdict}`)).toEqual([
      'a:override',
      'b:reject',
    ]);
  });
});

describe('applyReview', () => {
  const gated = gatedFindings(report, 'high');
  const job = {
    gate: 'high' as const,
    status: 'awaiting_review' as const,
    reviewStartedAt: at,
    reviewDeadline: Date.parse(at) + 3_600_000,
    reviewCompletedAt: at,
  };

  it('recomputes a decided clause risk from the decided scores, keeps the panel risk, and recounts the summary', () => {
    const trail = [
      decision('c0002/liability', 'override', 1),
      decision('c0001/liability', 'approve'),
      decision('c0001/termination', 'reject'),
    ];
    const out = applyReview(report, job, { findings: gated }, trail);
    const c1 = out.clauses[0];
    const c2 = out.clauses[1];
    // c0001: liability 3 kept, termination rejected to 0 → one severe alone is high.
    expect(c1?.scores).toEqual({ liability: 3, termination: 0, licensing: 0 });
    expect(c1?.risk).toBe('high');
    expect(c1?.model).toEqual({
      risk: 'critical',
      maxScore: 3,
      scores: { liability: 3, termination: 2, licensing: 0 },
    });
    // c0002: liability overridden 3 → 1, termination 1 → low.
    expect(c2?.risk).toBe('low');
    expect(c2?.maxScore).toBe(1);
    expect(c2?.findings.find((f) => f.category === 'liability')?.review).toMatchObject({
      decision: 'overridden',
      modelScore: 3,
      decidedScore: 1,
      by: 'arn:aws:iam::1:user/reviewer',
    });
    // Clauses not gated are untouched.
    expect(out.clauses[2]).toBe(report.clauses[2]);
    expect(out.summary.riskCounts).toEqual({ none: 0, low: 2, medium: 1, high: 1, critical: 0 });
    expect(out.summary.categoriesFlagged).toEqual({ liability: 2, termination: 0, licensing: 0 });
    expect(out.review).toMatchObject({ gate: 'high', outcome: 'decided', trail });
  });

  it('marks findings without a decision unreviewed when the deadline passed, with the panel scores standing', () => {
    const expired = { ...job, reviewCompletedAt: undefined, reviewExpiredAt: at };
    const out = applyReview(report, expired, { findings: gated }, [decision('c0002/liability', 'approve')]);
    expect(out.review?.outcome).toBe('expired');
    expect(reviewOf(gated, [decision('c0002/liability', 'approve')]).map((r) => r.decision)).toEqual([
      'unreviewed',
      'unreviewed',
      'approved',
    ]);
    expect(out.clauses[0]?.risk).toBe('critical');
  });

  it('leaves a report alone when the job had no review', () => {
    expect(applyReview(report, { ...job, reviewStartedAt: undefined }, { findings: gated }, [])).toBe(report);
    expect(applyReview(report, { ...job, gate: 'none' }, { findings: gated }, [])).toBe(report);
  });
});

describe('chunkMessagesOf', () => {
  it("rebuilds intake's messages with the document context, also for documents stored without it", async () => {
    const parsed = await parseDocument(fixture(MEDIUM), {
      key: MEDIUM,
      maxBytes: 10_000_000,
      chunk: { maxClauses: 8 },
    });
    const context = findDocumentContext(parsed.text, parsed.clauses);
    const stored: StoredDocument = {
      jobId: 'j-1',
      format: parsed.format,
      sha256: parsed.sha256,
      text: parsed.text,
      chunks: parsed.chunks,
    };
    const fromOld = chunkMessagesOf(stored, 'batch', [2, 0]);
    expect(fromOld.map((m) => m.chunk)).toEqual([2, 0]);
    for (const m of fromOld) {
      expect(chunkMessageSchema.parse(m)).toEqual(m);
      expect(m.context).toEqual(context);
      expect(m.lane).toBe('batch');
      expect(m.clauses).toEqual(parsed.chunks[m.chunk]?.clauses);
    }
    expect(chunkMessagesOf({ ...stored, context }, 'batch')).toHaveLength(parsed.chunks.length);
    expect(() => chunkMessagesOf(stored, 'batch', [999])).toThrow(
      'stored document of job j-1 has no chunk 999',
    );
  });
});

describe('review options of an upload', () => {
  const defaults = { lane: 'realtime' as const, ceilingMicros: 1_000_000 };

  it('reads gate and review-hours, with no gate and 72 hours by default', () => {
    expect(readJobOptions({}, {}, defaults)).toMatchObject({ gate: 'none', reviewHours: 72 });
    expect(readJobOptions({ gate: 'High', 'review-hours': '1.5' }, {}, defaults)).toMatchObject({
      gate: 'high',
      reviewHours: 1.5,
    });
    expect(readJobOptions({}, { gate: 'critical' }, defaults).gate).toBe('critical');
  });

  it('names a bad gate or review deadline and what is allowed', () => {
    const bad = (metadata: Record<string, string>) => {
      try {
        readJobOptions(metadata, {}, defaults);
      } catch (error) {
        if (isJobOptionError(error)) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(bad({ gate: 'medium' })).toBe(
      "the 'gate' option must be one of none, critical, high; got 'medium'",
    );
    expect(bad({ 'review-hours': '0' })).toBe(
      "the 'review-hours' option must be a number of hours from 1 (this stack's shortest review) to 720; got '0'",
    );
    expect(bad({ 'review-hours': '0.5' })).toMatch(/from 1 \(this stack's shortest review\)/);
    expect(bad({ 'review-hours': '1e9' })).toMatch(/got '1e9'/);
  });

  it("holds a review window to the stack's floor, which the stack may lower or raise", () => {
    expect(
      readJobOptions({ 'review-hours': '0.5' }, {}, { ...defaults, minReviewHours: 0.25 }).reviewHours,
    ).toBe(0.5);
    expect(() => readJobOptions({ 'review-hours': '4' }, {}, { ...defaults, minReviewHours: 8 })).toThrow(
      "from 8 (this stack's shortest review) to 720; got '4'",
    );
    // The default window never falls below the floor.
    expect(readJobOptions({}, {}, { ...defaults, minReviewHours: 100 }).reviewHours).toBe(100);
  });
});
