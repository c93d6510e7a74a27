import { describe, expect, it } from 'vitest';
import { ANALYSTS } from '../../lambdas/core/analysts/index.js';
import { findDocumentContext } from '../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { quoteJob } from '../../lambdas/core/intake/quote.js';
import { readJobProgress } from '../../lambdas/core/state/progress.js';
import { callsAsked, fixture, LARGEST, startHarness } from '../helpers/pipeline.js';

// The deployed realtime lane's shape: 20 concurrent invocations of 8 calls each.
const h = await startHarness('scale', { pipeline: { realtimeConcurrency: 20 } });

describe('a contract of more than 8,000 calls whose ceiling is reached early', () => {
  it('ends budget_exceeded soon after the ceiling, with a report that accounts for every call', async () => {
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 50 } }, { replace: true });
    // Room for about 1,200 of its calls, at what intake will quote per call (cache reads included).
    const doc = await parseDocument(fixture(LARGEST), {
      key: LARGEST,
      maxBytes: 10 * 1024 * 1024,
      chunk: { maxClauses: 8 },
    });
    const quote = quoteJob(doc.clauses, ANALYSTS, findDocumentContext(doc.text, doc.clauses));
    const perCall = quote.expectedMicros / (doc.clauses.length * ANALYSTS.length);
    const ceilingUsd = Number(((perCall * 1200) / 1_000_000).toFixed(6));
    const jobId = await h.upload(`scale-${LARGEST}`, fixture(LARGEST), {
      'ceiling-usd': String(ceilingUsd),
      // Below the quote on purpose: without this, intake refuses it (budget-below-quote).
      'allow-partial': 'true',
    });
    // The Converse calls the stand-in has received when the ceiling is first seen on the job.
    await h.until(jobId, (j) => j.budgetExceededAt !== undefined || j.finalizedAt !== undefined, 300_000);
    const callsAtCeiling = h.bedrock.accounting().totals.calls;
    const job = await h.waitForEnd(jobId, 300_000);
    const ceiling = Math.round(ceilingUsd * 1_000_000);

    expect(job.callsPlanned).toBeGreaterThanOrEqual(8000);
    expect(job.status).toBe('budget_exceeded');
    expect(job.budgetExceededAt).toBeDefined();
    // The ceiling is recorded once; after it, no call starts: what the stand-in still receives
    // is at most what was in flight (20 invocations of 8 calls), read once more for slack,
    // against the thousands of calls the contract still had to make.
    const callsAfter = h.bedrock.accounting().totals.calls - callsAtCeiling;
    console.log(`ceiling reached at ${callsAtCeiling} calls, then ${callsAfter} more`);
    expect(callsAfter).toBeLessThanOrEqual(2 * 20 * 8);

    expect(job.costSpent).toBeLessThanOrEqual(ceiling);
    expect(job.costCommitted).toBeLessThanOrEqual(ceiling);
    expect(job.costReserved).toBe(0);
    expect(h.billedMicros()).toBeLessThanOrEqual(job.costSpent);

    const report = await h.report(job);
    const c = report.coverage;
    expect(report.job.status).toBe('budget_exceeded');
    expect(c.callsSkippedBudget).toBeGreaterThan(callsAsked(job) / 2);
    expect(c.callsDone + c.callsFailed + c.callsSkippedBudget + c.callsScreened).toBe(job.callsPlanned);
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
      screened: c.callsScreened,
    });
    expect(progress?.chunksTerminal).toBe(job.chunkCount);
    expect(await h.billedTwice(jobId)).toEqual([]);
  }, 420_000);
});
