import { describe, expect, it } from 'vitest';
import { readJobProgress } from '../../lambdas/core/state/progress.js';
import {
  callsAsked,
  expectCompleteReview,
  fixture,
  MEDIUM,
  SMALL,
  startHarness,
} from '../helpers/pipeline.js';

const h = await startHarness('realtime');

describe('the pipeline on the realtime lane (Lambda handlers behind SQS event sources)', () => {
  it.each([SMALL, MEDIUM])(
    'reviews %s end to end: every clause by each analyst the relevance screen keeps, quotes verbatim',
    async (name) => {
      const source = fixture(name).toString('utf8');
      const job = await h.waitForEnd(await h.upload(name, source));
      expect(job.status).toBe('completed');
      expect(job.lane).toBe('realtime');
      expectCompleteReview(await h.report(job), source);
      expect(await h.billedTwice(job.jobId)).toEqual([]);
    },
    240_000,
  );

  it("bills most input at the cache-read price, and the report's tokens and quote agree with Bedrock's books", async () => {
    // A fresh stand-in state: the earlier review of the same contract left its prefixes cached.
    h.bedrock.reset();
    const source = fixture(MEDIUM).toString('utf8');
    const job = await h.waitForEnd(await h.upload(`cached-${MEDIUM}`, source));
    expect(job.status).toBe('completed');
    const cost = (await h.report(job)).cost;
    const books = Object.values(h.bedrock.accounting().cache);
    const sum = (f: (c: (typeof books)[number]) => number) => books.reduce((n, c) => n + f(c), 0);
    expect(cost.cacheReadInputTokens).toBeGreaterThan(cost.inputTokens);
    expect(cost.cacheReadInputTokens).toBe(sum((c) => c.cacheReadInputTokens));
    expect(cost.cacheWriteInputTokens).toBe(sum((c) => c.cacheWriteInputTokens));
    // A write per analyst (more when its first calls in several chunks start together); every
    // later call of the analyst reads the same prefix.
    expect(sum((c) => c.writeCalls)).toBeGreaterThanOrEqual(11);
    expect(sum((c) => c.writeCalls)).toBeLessThan(callsAsked(job) / 10);
    expect(sum((c) => c.readCalls)).toBeGreaterThan((callsAsked(job) * 8) / 10);
    expect(cost.quote?.expectedMicros).toBeGreaterThan(0);
    expect(cost.spentMicros).toBeLessThanOrEqual(cost.quote?.worstCaseMicros ?? 0);
  }, 240_000);

  it('shows calls done moving while the calls of a chunk run, not only when it ends', async () => {
    // One chunk of 77 calls at 600 ms each: several seconds inside one analyze stage.
    h.bedrock.setPlan({ latency: { kind: 'fixed', ms: 600 } });
    const jobId = await h.upload(`progress-${SMALL}`, fixture(SMALL));
    const seen = new Set<number>();
    let planned = 0;
    let asked = 0;
    for (;;) {
      const p = await readJobProgress(h.pipeline.clients.db, h.stack.resources.tableName, jobId);
      if (p && p.chunksTerminal === 0 && p.calls.done > 0) seen.add(p.calls.done);
      if (p && p.chunksTerminal === p.chunkCount && p.chunkCount > 0) {
        planned = p.calls.planned;
        asked = planned - p.calls.screened;
        expect(p.calls.done).toBe(asked);
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(planned).toBe(77);
    // The counts went up at least twice before the chunk's stage ended.
    expect([...seen].filter((n) => n < asked).length).toBeGreaterThanOrEqual(2);
    expect((await h.waitForEnd(jobId)).status).toBe('completed');
  }, 120_000);
});
