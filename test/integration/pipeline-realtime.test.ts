import { describe, expect, it } from 'vitest';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { duplicateBilledCalls } from '../../localstack/bedrock/index.js';
import { fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

const h = await startHarness('realtime');

describe('the pipeline on the realtime lane', () => {
  it.each([SMALL, MEDIUM])(
    'reviews %s end to end: every clause by all 11 analysts, quotes verbatim',
    async (name) => {
      const source = fixture(name).toString('utf8');
      const jobId = await h.upload(name, source);
      const job = await h.waitForEnd(jobId);
      expect(job.status).toBe('completed');
      const report = await h.report(job);
      expect(report.job.status).toBe('completed');
      expect(report.clauses.length).toBeGreaterThan(0);
      expect(report.coverage.callsPlanned).toBe(report.clauses.length * ANALYSTS.length);
      expect(report.coverage.callsDone).toBe(report.coverage.callsPlanned);
      for (const clause of report.clauses) {
        expect(clause.status).toBe('analysed');
        expect([...clause.analystsAnswered].sort()).toEqual(ANALYSTS.map((a) => a.id).sort());
        for (const f of clause.findings) {
          expect(clause.text.slice(f.start - clause.start, f.end - clause.start)).toBe(f.quote);
        }
      }
      const quotes = report.clauses.flatMap((c) => c.findings.map((f) => f.quote));
      expect(quotes.length).toBeGreaterThan(0);
      expect(report.cost.spentMicros).toBeGreaterThan(0);
      expect(report.cost.spentMicros).toBeLessThanOrEqual(report.cost.ceilingMicros);
      expect(report.cost.reservedMicros).toBe(0);
      expect(duplicateBilledCalls(h.bedrock.accounting())).toEqual([]);
    },
    240_000,
  );
});
