import { describe, expect, it } from 'vitest';
import { ANALYSTS } from '../../../lambdas/stack-interface.js';
import { defaultMaxJobsPerOwner } from '../../../lib/owner-cap.js';
import { topology } from '../../../lib/topology.js';

describe('defaultMaxJobsPerOwner', () => {
  it("is half the most chunks one lane works on at once: half the realtime lane's invocations by default", () => {
    const t = topology();
    expect(defaultMaxJobsPerOwner(t)).toBe(
      (t.queues.realtime.maxConcurrency * t.queues.realtime.batchSize) / 2,
    );
    expect(defaultMaxJobsPerOwner(topology({ laneConcurrency: { realtime: 50 } }))).toBe(25);
    expect(defaultMaxJobsPerOwner(topology({ laneConcurrency: { realtime: 3, batch: 1 } }))).toBe(2);
  });

  it("counts a poller lane's tasks times the chunks each works on", () => {
    const t = topology({ laneConcurrency: { realtime: 2, batch: 10 } });
    expect(defaultMaxJobsPerOwner(t)).toBe(10);
    expect(defaultMaxJobsPerOwner(t, { pollerConcurrency: 5 })).toBe(25);
  });

  it("holds to the chunks the primary model's requests-per-minute budget answers in a minute", () => {
    const t = topology();
    const perChunk = 8 * ANALYSTS.length;
    expect(defaultMaxJobsPerOwner(t, { requestsPerMinute: 5 * perChunk })).toBe(5);
    expect(defaultMaxJobsPerOwner(t, { requestsPerMinute: 3 * perChunk, chunkClauses: 4 })).toBe(6);
    // Never below one job, nor above what the lanes hold.
    expect(defaultMaxJobsPerOwner(t, { requestsPerMinute: 10 })).toBe(1);
    expect(defaultMaxJobsPerOwner(t, { requestsPerMinute: 1_000_000 })).toBe(10);
  });
});
