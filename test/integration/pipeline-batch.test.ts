import { describe, expect, it } from 'vitest';
import { expectCompleteReview, fixture, LARGE, startHarness } from '../helpers/pipeline.js';

// The batch lane: two long-running poller processes, as the Fargate service runs them.
const h = await startHarness('batch', { pipeline: { batchWorkers: 2 } });

describe('the pipeline on the batch lane (Fargate-style poller processes)', () => {
  it('reviews a contract of over 100 KB end to end: every clause by each analyst the relevance screen keeps, quotes verbatim', async () => {
    const source = fixture(LARGE).toString('utf8');
    expect(source.length).toBeGreaterThan(100_000);
    const job = await h.waitForEnd(await h.upload(LARGE, source, { lane: 'batch' }), 300_000);
    expect(job.status).toBe('completed');
    expect(job.lane).toBe('batch');
    const report = await h.report(job);
    expectCompleteReview(report, source);
    expect(report.coverage.callsPlanned).toBeGreaterThan(2_000);
    expect(await h.billedTwice(job.jobId)).toEqual([]);
  }, 360_000);
});
