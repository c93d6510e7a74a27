/**
 * Answers that come back after the worker's model timeout, through the local pipeline: Bedrock
 * answered (and billed) them, the worker gave up on them. Each such attempt counts at its worst
 * case, so the job's recorded spend never falls below what was billed and the ceiling holds; the
 * ledger names each one `unanswered`, the call is asked again, and every repeated answer the
 * stand-in billed is one of them.
 */
import { describe, expect, it } from 'vitest';
import { CallLedger } from '../../lambdas/core/state/call-ledger.js';
import { repeatedAnswers } from '../../localstack/bedrock/index.js';
import { fixture, SMALL, startHarness } from '../helpers/pipeline.js';

// A model timeout of 800 ms; a late answer comes back 2.5 s after it was billed.
const h = await startHarness('late', { settings: { modelTimeoutMs: 800 } });

describe('answers billed but delivered after the worker gave up on them', () => {
  it('count at their worst case, are recorded unanswered and asked again; the job completes within its ceiling', async () => {
    h.bedrock.resetAccounting();
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 20 }, lateAnswer: { probability: 0.15, ms: 2500 } });
    const jobId = await h.upload(`late-${SMALL}`, fixture(SMALL));
    const job = await h.waitForEnd(jobId, 120_000);
    h.bedrock.setPlan({ lateAnswer: { probability: 0 } });
    expect(job.status).toBe('completed');

    const entries = await new CallLedger(h.pipeline.clients.db, h.stack.resources.tableName).forJob(jobId);
    const unanswered = entries.reduce((n, e) => n + (e.unanswered ?? 0), 0);
    const repeated = repeatedAnswers(h.bedrock.accounting());
    // Some answers were late (about one in seven), each billed, and its call answered again.
    expect(unanswered).toBeGreaterThan(0);
    expect(repeated).toBeGreaterThan(0);
    expect(repeated).toBeLessThanOrEqual(unanswered);
    expect(await h.billedTwice(jobId)).toEqual([]);
    expect(entries.every((e) => e.status === 'done')).toBe(true);

    // What the stand-in billed, priced on its own, is within what the job recorded as spent.
    expect(h.billedMicros()).toBeLessThanOrEqual(job.costSpent);
    expect(job.costSpent).toBeLessThanOrEqual(job.ceilingMicros);
    expect(job.costReserved).toBe(0);
    const report = await h.report(job);
    expect(report.cost.spentMicros).toBe(job.costSpent);
  }, 180_000);
});
