import { describe, expect, it } from 'vitest';
import { LANES, laneQueue, QUEUE_ROLES, TopologyError, topology } from '../../../lib/topology.js';

describe('topology', () => {
  it('names every resource under the prefix, DLQs beside their queues', () => {
    const t = topology({ prefix: 'acme-cr' });
    for (const role of QUEUE_ROLES) {
      expect(t.queues[role].name).toBe(`acme-cr-${role}`);
      expect(t.queues[role].dlqName).toBe(`acme-cr-${role}-dlq`);
      expect(t.queues[role].dlqRetentionSeconds).toBe(14 * 86_400);
    }
    expect(t.table.name).toBe('acme-cr-state');
    expect(t.buckets.intake.name).toBe('acme-cr-intake');
    expect(topology({ prefix: 'acme-cr', bucketSuffix: '123456789012-eu-west-1' }).buckets.results.name).toBe(
      'acme-cr-results-123456789012-eu-west-1',
    );
  });

  it('gives Lambda-consumed queues a visibility timeout of at least six times the consumer timeout', () => {
    const t = topology();
    for (const role of ['intake', 'realtime', 'finalize'] as const) {
      expect(t.queues[role].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
        6 * t.queues[role].consumerTimeoutSeconds,
      );
    }
  });

  it('maps each lane to its own queue', () => {
    const t = topology();
    expect(LANES.map((lane) => laneQueue(t, lane).name)).toEqual([
      'clause-review-realtime',
      'clause-review-batch',
    ]);
  });

  it('applies the chunk receive budget to both lanes and the redelivery backoff as given', () => {
    const t = topology({ chunkMaxReceiveCount: 5, redeliveryBackoffSeconds: [10, 20] });
    expect(t.queues.realtime.maxReceiveCount).toBe(5);
    expect(t.queues.batch.maxReceiveCount).toBe(5);
    expect(t.redeliveryBackoffSeconds).toEqual([10, 20]);
  });

  it("sets a lane's consumer concurrency over its default, leaving the other lanes as they are", () => {
    const t = topology({ laneConcurrency: { batch: 9 } });
    expect(t.queues.batch.maxConcurrency).toBe(9);
    expect(t.queues.realtime.maxConcurrency).toBe(topology().queues.realtime.maxConcurrency);
    expect(() => topology({ laneConcurrency: { batch: 0 } })).toThrow(
      /laneConcurrency.batch must be an integer of at least 1; got 0/,
    );
    expect(() => topology({ laneConcurrency: { intake: 3 } as never })).toThrow(/names lanes .*got 'intake'/);
  });

  it('rejects out-of-range options with a message naming the range and the value', () => {
    expect(() => topology({ prefix: 'Bad_Prefix' })).toThrow(TopologyError);
    expect(() => topology({ prefix: 'Bad_Prefix' })).toThrow(/3-24 characters.*got 'Bad_Prefix'/);
    expect(() => topology({ chunkMaxReceiveCount: 0 })).toThrow(/from 1 to 1000; got 0/);
    expect(() => topology({ redeliveryBackoffSeconds: [50_000] })).toThrow(
      /redeliveryBackoffSeconds\[0\] must be an integer from 0 to 43200 \(SQS's 12 h limit\); got 50000/,
    );
    expect(() => topology({ redeliveryBackoffSeconds: [] })).toThrow(/at least one delay.*got \[\]/);
  });
});
