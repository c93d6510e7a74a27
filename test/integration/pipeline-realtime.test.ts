import { describe, expect, it } from 'vitest';
import { duplicateBilledCalls } from '../../localstack/bedrock/index.js';
import { expectCompleteReview, fixture, MEDIUM, SMALL, startHarness } from '../helpers/pipeline.js';

const h = await startHarness('realtime');

describe('the pipeline on the realtime lane (Lambda handlers behind SQS event sources)', () => {
  it.each([SMALL, MEDIUM])(
    'reviews %s end to end: every clause by all 11 analysts, quotes verbatim',
    async (name) => {
      const source = fixture(name).toString('utf8');
      const job = await h.waitForEnd(await h.upload(name, source));
      expect(job.status).toBe('completed');
      expect(job.lane).toBe('realtime');
      expectCompleteReview(await h.report(job), source);
      expect(duplicateBilledCalls(h.bedrock.accounting())).toEqual([]);
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
    expect(sum((c) => c.writeCalls)).toBeLessThan(job.callsPlanned / 10);
    expect(sum((c) => c.readCalls)).toBeGreaterThan((job.callsPlanned * 8) / 10);
    expect(cost.quote?.expectedMicros).toBeGreaterThan(0);
    expect(cost.spentMicros).toBeLessThanOrEqual(cost.quote?.worstCaseMicros ?? 0);
  }, 240_000);
});
