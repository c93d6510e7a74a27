/**
 * Hostile documents through intake on the local stack: each is refused with its reason within
 * seconds, the object stays where it was uploaded, and no chunk is sent. A bounded subset of the
 * generator's cases; `npm run bench -- --only hostile` runs them all with time and memory.
 */
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { Claims } from '../../lambdas/core/state/claims.js';
import { startHarness } from '../helpers/pipeline.js';
import { HOSTILE_CASES } from '../hostile/generate.js';

const h = await startHarness('hostile');
const { s3, db } = h.pipeline.clients;
const refused = HOSTILE_CASES.filter((c) => c.inTests && c.expect !== 'accepted');

describe('intake of hostile documents', () => {
  it.each(refused.map((c) => [c.name, c] as const))(
    'refuses %s with its reason, keeps the object and sends no chunk',
    async (_name, c) => {
      const body = c.build();
      const jobId = await h.upload(c.key, body);
      const job = await h.waitForEnd(jobId, 60_000);
      expect(job.status).toBe('rejected');
      expect(job.rejection).toBe(c.expect);
      expect(job.reason).toMatch(/more than/);
      const head = await s3.send(
        new HeadObjectCommand({ Bucket: h.stack.resources.intakeBucket, Key: `incoming/${c.key}` }),
      );
      expect(head.ContentLength).toBe(body.length);
      expect(await new Claims(db, h.stack.resources.tableName).list(jobId)).toEqual([]);
    },
    90_000,
  );

  it('reads the hostile Markdown it accepts into its clauses', async () => {
    const accepted = HOSTILE_CASES.filter((c) => c.inTests && c.expect === 'accepted');
    expect(accepted.length).toBeGreaterThan(0);
    for (const c of accepted) {
      const jobId = await h.upload(c.key, c.build(), {
        'ceiling-usd': '0.01',
        'allow-partial': 'false',
      });
      const job = await h.waitForEnd(jobId, 60_000);
      // Read and split: the only refusal left is the deliberately low ceiling.
      expect(job.rejection).toBe('budget-below-quote');
      expect(job.reason).toMatch(/\d+ clauses × 11 analysts/);
    }
  }, 120_000);
});
