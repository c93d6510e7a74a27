import { describe, expect, it } from 'vitest';
import { readJobProgress } from '../../lambdas/core/state/progress.js';
import { duplicateBilledCalls } from '../../localstack/bedrock/index.js';
import { fixture, LARGEST, SMALL, startHarness } from '../helpers/pipeline.js';

// The deployed realtime lane's shape: 20 concurrent invocations of 8 calls each.
const h = await startHarness('scale', { pipeline: { realtimeConcurrency: 20 } });

describe('a contract of more than 8,000 calls whose ceiling is reached early', () => {
  it('ends budget_exceeded soon after the ceiling, with a report that accounts for every call', async () => {
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 0 } }, { replace: true });
    const probe = await h.waitForEnd(await h.upload(`probe-${SMALL}`, fixture(SMALL)), 60_000);
    expect(probe.status).toBe('completed');
    const perCall = probe.costSpent / probe.callsPlanned;

    h.bedrock.resetAccounting();
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 50 } }, { replace: true });
    // Room for about 1,200 of its calls.
    const ceilingUsd = Number(((perCall * 1200) / 1_000_000).toFixed(6));
    const jobId = await h.upload(`scale-${LARGEST}`, fixture(LARGEST), {
      'cost-ceiling-usd': String(ceilingUsd),
      // Below the quote on purpose: without this, intake refuses it (budget-below-quote).
      'allow-partial': 'true',
    });
    const job = await h.waitForEnd(jobId, 300_000);
    const ceiling = Math.round(ceilingUsd * 1_000_000);

    expect(job.callsPlanned).toBeGreaterThanOrEqual(8000);
    expect(job.status).toBe('budget_exceeded');
    expect(job.budgetExceededAt).toBeDefined();
    // The ceiling is recorded once; every chunk still to run then ends in a few requests.
    const tail = Date.parse(job.finalizedAt ?? '') - Date.parse(job.budgetExceededAt ?? '');
    expect(tail).toBeLessThanOrEqual(60_000);

    expect(job.costSpent).toBeLessThanOrEqual(ceiling);
    expect(job.costCommitted).toBeLessThanOrEqual(ceiling);
    expect(job.costReserved).toBe(0);
    expect(h.billedMicros()).toBeLessThanOrEqual(job.costSpent);

    const report = await h.report(job);
    const c = report.coverage;
    expect(report.job.status).toBe('budget_exceeded');
    expect(c.callsSkippedBudget).toBeGreaterThan(job.callsPlanned / 2);
    expect(c.callsDone + c.callsFailed + c.callsSkippedBudget).toBe(job.callsPlanned);
    expect(c.callsNotRun).toBe(0);
    expect(report.job.reason).toMatch(/cost ceiling/);
    // What a person watching saw at the end agrees with the report.
    const progress = await readJobProgress(h.pipeline.clients.db, h.stack.resources.tableName, jobId);
    expect(progress?.calls).toEqual({
      planned: job.callsPlanned,
      done: c.callsDone,
      failed: c.callsFailed,
      skipped: c.callsSkippedBudget,
      cancelled: 0,
    });
    expect(progress?.chunksTerminal).toBe(job.chunkCount);
    expect(duplicateBilledCalls(h.bedrock.accounting())).toEqual([]);
  }, 420_000);
});
