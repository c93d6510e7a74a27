import { describe, expect, it } from 'vitest';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { shippedScreen } from '../../lambdas/core/screen/index.js';
import { readJobProgress } from '../../lambdas/core/state/progress.js';
import { duplicateBilledCalls } from '../../localstack/bedrock/index.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

const h = await startHarness('realtime');

describe('the relevance screen, on by default', () => {
  it('asks each clause only the analysts the screen keeps, and accounts every other pair as screened', async () => {
    h.bedrock.reset();
    const source = fixture(SMALL).toString('utf8');
    const jobId = await h.upload(`screened-${SMALL}`, source);
    const job = await h.waitForEnd(jobId);
    expect(job.status).toBe('completed');
    const report = await h.report(job);
    const c = report.coverage;
    const panel = ANALYSTS.map((a) => a.id).sort();

    // The screen intake ran is the shipped one, over the clauses the report lists.
    const expected = shippedScreen()?.screenDocument(report.clauses, ANALYSTS);
    expect(expected?.calls).toBeGreaterThan(0);
    expect(c.callsPlanned).toBe(report.clauses.length * ANALYSTS.length);
    expect(c.callsScreened).toBe(expected?.calls);
    expect(c.callsDone + c.callsFailed + c.callsSkippedBudget + c.callsCancelled + c.callsScreened).toBe(
      c.callsPlanned,
    );
    expect(c.callsNotRun).toBe(0);
    expect(c.screened?.reduce((n, r) => n + r.calls, 0)).toBe(c.callsScreened);

    // Per clause: the analysts answered and those screened are the panel, each once.
    for (const clause of report.clauses) {
      const left = clause.screened ?? [];
      expect(left.map((s) => s.analystId)).toEqual(
        (expected?.screened[clause.id] ?? []).map((s) => s.analystId),
      );
      expect([...clause.analystsAnswered, ...left.map((s) => s.analystId)].sort()).toEqual(panel);
      for (const s of left) {
        expect(s.reason).toBe('screen');
        expect(s.probability).toBeGreaterThanOrEqual(0);
        expect(s.probability).toBeLessThan(1);
      }
    }

    // Bedrock was asked exactly the calls not screened, once each.
    const books = h.bedrock.accounting();
    expect(books.totals.calls).toBe(c.callsPlanned - c.callsScreened);
    expect(duplicateBilledCalls(books)).toEqual([]);

    // The quote priced those calls and said what the screened ones would have cost.
    expect(job.callsScreened).toBe(c.callsScreened);
    expect(job.quote?.screened?.calls).toBe(c.callsScreened);
    expect(job.quote?.screened?.expectedMicros).toBeGreaterThan(0);
    expect(report.cost.spentMicros).toBeLessThanOrEqual(job.quote?.worstCaseMicros ?? 0);
    const progress = await readJobProgress(h.pipeline.clients.db, h.stack.resources.tableName, jobId);
    expect(progress?.calls).toMatchObject({
      planned: c.callsPlanned,
      done: c.callsDone,
      screened: c.callsScreened,
    });
  }, 240_000);

  it('asks every analyst about every clause when the upload asks for the full panel', async () => {
    const source = fixture(SMALL).toString('utf8');
    const job = await h.waitForEnd(await h.upload(`full-${SMALL}`, source, { 'full-panel': 'true' }));
    const c = (await h.report(job)).coverage;
    expect(c.callsScreened).toBe(0);
    expect(c.screened).toBeUndefined();
    expect(c.callsDone).toBe(c.callsPlanned);
    expect(job.callsScreened).toBeUndefined();
    expect(job.quote?.screened).toBeUndefined();
  }, 240_000);
});
