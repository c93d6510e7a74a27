import { describe, expect, it } from 'vitest';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import { fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

const INVOCATIONS = 8;
const CALLS_PER_INVOCATION = 8;
// Eight concurrent worker invocations of eight calls each, over small chunks.
const h = await startHarness('control', {
  settings: { chunkClauses: 2, callConcurrency: CALLS_PER_INVOCATION },
  pipeline: { realtimeConcurrency: INVOCATIONS },
});
const ledger = new CallLedger(h.pipeline.clients.db, h.stack.resources.tableName);

describe('cancel mid-run', () => {
  it('starts no model call after the cancel is recorded, and says where each chunk stopped', async () => {
    h.bedrock.resetAccounting();
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 100 } });
    const jobId = await h.upload(`cancel-${MEDIUM}`, fixture(MEDIUM));
    await h.untilCalls((n) => n >= 60);
    const { cancelled, job: flipped } = await h.jobs.cancel(jobId, 'cancelled by the test');
    expect(cancelled).toBe(true);
    // The cancel is recorded when its write commits; `cancelledAt` is stamped just before.
    const recorded = Date.now();
    const callsAtCancel = h.bedrock.accounting().totals.calls;

    const job = await h.waitForEnd(jobId, 120_000);
    expect(job.status).toBe('cancelled');
    const entries = await ledger.forJob(jobId);
    // A call is sent only after a job-status read that began after it asked; a read that
    // began after the cancel committed sees it, so no sent call passed such a read.
    const late = entries.filter((e) => (e.checkedAt ?? 0) > recorded);
    expect(late).toEqual([]);
    expect(entries.some((e) => e.checkedAt !== undefined)).toBe(true);
    // Calls already on their way when the cancel landed are bounded by the concurrency.
    const after = h.bedrock.accounting().totals.calls - callsAtCancel;
    expect(after).toBeLessThanOrEqual(INVOCATIONS * CALLS_PER_INVOCATION);
    expect(h.bedrock.accounting().totals.calls).toBeLessThan(job.callsPlanned);

    const report = await h.report(job);
    expect(report.job.status).toBe('cancelled');
    expect(report.job.reason).toBe('cancelled by the test');
    expect(report.timings.cancelledAt).toBe(flipped.cancelledAt);
    const stopped = report.coverage.unfinishedChunks;
    expect(stopped.length).toBeGreaterThan(0);
    for (const chunk of stopped) {
      expect(chunk.status).toBe('cancelled');
      expect(chunk.detail).toMatch(/^cancelled-at-stage-[12]$/);
    }
    const finished = report.chunks.filter((c) => Object.values(c.stages).every((s) => s.status === 'done'));
    expect(finished.length + stopped.length).toBe(job.chunkCount);
    expect(report.cost.reservedMicros).toBe(0);
    const c = report.coverage;
    expect(c.callsCancelled).toBeGreaterThan(0);
    expect(c.callsDone + c.callsFailed + c.callsSkippedBudget + c.callsCancelled + c.callsScreened).toBe(
      job.callsPlanned,
    );
  }, 180_000);
});

describe('a cost ceiling below what the job needs', () => {
  it('never spends over it with 8 concurrent workers, and ends budget_exceeded', async () => {
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 0 } }, { replace: true });
    // What a call costs here, from a small contract run to completion.
    const probe = await h.waitForEnd(await h.upload(`probe-${SMALL}`, fixture(SMALL)), 60_000);
    expect(probe.status).toBe('completed');
    const perCall = probe.costSpent / probe.callsPlanned;

    h.bedrock.resetAccounting();
    const ceilingUsd = Number(((perCall * 572 * 0.35) / 1_000_000).toFixed(6));
    const jobId = await h.upload(`budget-${MEDIUM}`, fixture(MEDIUM), {
      'ceiling-usd': String(ceilingUsd),
      // Below the quote on purpose: without this, intake refuses it (budget-below-quote).
      'allow-partial': 'true',
    });
    // A chunk short of room waits for what other chunks hold (their calls in flight) up to four
    // times the retry cap (4 × 30 s) before it records the ceiling, so the end can come that late.
    const job = await h.waitForEnd(jobId, 240_000);
    const ceiling = Math.round(ceilingUsd * 1_000_000);

    expect(job.ceilingMicros).toBe(ceiling);
    expect(job.status).toBe('budget_exceeded');
    expect(job.costSpent).toBeLessThanOrEqual(ceiling);
    expect(job.costCommitted).toBeLessThanOrEqual(ceiling);
    expect(job.costReserved).toBe(0);
    // The stand-in's own books, priced independently, agree: nothing billed over the ceiling.
    expect(h.billedMicros()).toBeLessThanOrEqual(job.costSpent);
    expect(job.costSpent).toBeGreaterThan(ceiling * 0.5);

    const report = await h.report(job);
    expect(report.job.status).toBe('budget_exceeded');
    expect(report.coverage.callsSkippedBudget).toBeGreaterThan(0);
    expect(
      report.coverage.callsDone +
        report.coverage.callsSkippedBudget +
        report.coverage.callsFailed +
        report.coverage.callsScreened,
    ).toBe(job.callsPlanned);
    expect(await h.billedTwice(job.jobId)).toEqual([]);
  }, 330_000);
});
