import { describe, expect, it } from 'vitest';
import { ANALYST_IDS } from '../../../lambdas/core/analysts/index.js';
import {
  BATCH_IDLE_MINUTES,
  CALL_SECONDS,
  COMPUTE_PRICES,
  LANE_COMPUTE,
  laneComputeCost,
} from '../../../lambdas/core/intake/lane-cost.js';
import { quoteDocument } from '../../../lambdas/core/intake/quote.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../../lambdas/core/model-catalogue.js';

describe("a job's compute on each lane", () => {
  it('prices the realtime lane per GB-second of chunk work and per invocation', () => {
    // 3,366 calls in 39 chunks, 16 at a time for 2.5 s: 526 s of a 512 MB arm64 function.
    const seconds = (3366 * CALL_SECONDS) / LANE_COMPUTE.callsPerChunk;
    const expected =
      seconds * 0.5 * COMPUTE_PRICES.lambdaArmPerGbSecond + 39 * COMPUTE_PRICES.lambdaPerRequest;
    expect(laneComputeCost(3366, 39).realtime).toBe(Math.ceil(expected));
  });

  it('prices the batch lane per task-second, with the idle minutes before its tasks stop', () => {
    const { batch } = LANE_COMPUTE;
    const perSecond =
      (batch.cpuUnits / 1024) * COMPUTE_PRICES.fargateArmPerVcpuSecond +
      (batch.memoryMiB / 1024) * COMPUTE_PRICES.fargateArmPerGbSecond;
    // One chunk of 16 calls: one task, 2.5 s of work and five idle minutes.
    expect(laneComputeCost(16, 1).batch).toBe(
      Math.ceil((CALL_SECONDS / 2 + BATCH_IDLE_MINUTES * 60) * perSecond),
    );
    // A small job costs more on Fargate than on Lambda: the tasks wait out the idle minutes.
    const small = laneComputeCost(77, 1);
    expect(small.batch).toBeGreaterThan(small.realtime);
    expect(laneComputeCost(0, 0)).toEqual({ realtime: 0, batch: 0 });
  });

  it('is part of every quote, for the calls asked', () => {
    const text = 'The Supplier shall indemnify the Customer.\n\nEither party may terminate on notice.';
    const clauses = [
      { index: 0, id: 'c0001', start: 0, end: 42, text: text.slice(0, 42) },
      { index: 1, id: 'c0002', start: 44, end: text.length, text: text.slice(44) },
    ];
    const { quote } = quoteDocument(
      { text, clauses, chunks: [{}] },
      {
        analysts: [...ANALYST_IDS],
        models: { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID },
        fullPanel: true,
      },
    );
    expect(quote.compute).toEqual(laneComputeCost(2 * ANALYST_IDS.length, 1));
  });
});
