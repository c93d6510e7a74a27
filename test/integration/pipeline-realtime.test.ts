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
});
