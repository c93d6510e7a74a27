/**
 * EmfMetrics: what Powertools writes to stdout is one EMF document per dimension set, with the
 * ClauseReview namespace, no `service` dimension, and every sample of a metric as a value.
 */
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { EmfMetrics, METRICS_NAMESPACE } from '../../../lambdas/core/metrics/index.js';

interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

let log: MockInstance<typeof console.log>;
const warn = vi.fn();
const documents = (): EmfDocument[] =>
  log.mock.calls.map(([line]) => JSON.parse(String(line)) as EmfDocument);

beforeEach(() => {
  // With POWERTOOLS_DEV set, Powertools writes through the global console (its documented test
  // hook); dev mode also turns metrics off unless POWERTOOLS_METRICS_DISABLED says otherwise.
  vi.stubEnv('POWERTOOLS_DEV', 'true');
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  warn.mockReset();
});

afterEach(() => {
  vi.unstubAllEnvs();
  log.mockRestore();
});

describe('EmfMetrics', () => {
  it('writes one EMF document per model and per lane, with the samples as values', async () => {
    const metrics = new EmfMetrics({ logger: { warn, error: warn } });
    metrics.call({ model: 'model-a', outcome: 'succeeded', retries: 1 });
    metrics.call({ model: 'model-a', outcome: 'succeeded', retries: 0 });
    metrics.attempt({ model: 'model-a', latencyMs: 812.4, throttled: false, costMicros: 420 });
    metrics.attempt({ model: 'model-b', latencyMs: 3, throttled: true });
    metrics.chunk({ lane: 'batch', redelivered: true });
    metrics.limiter({ name: 'model-a', limitAfter: 12, peakActive: 9, p99Ms: 1900 });
    expect(log).not.toHaveBeenCalled();

    await metrics.flush();

    const byDimension = Object.fromEntries(
      documents().map((d) => [JSON.stringify(d._aws.CloudWatchMetrics[0]?.Dimensions), d]),
    );
    expect(Object.keys(byDimension).sort()).toEqual(['[["Lane"]]', '[["Model"]]']);
    expect(documents()).toHaveLength(3);
    for (const d of documents()) {
      expect(d._aws.CloudWatchMetrics[0]?.Namespace).toBe(METRICS_NAMESPACE);
      expect(d).not.toHaveProperty('service');
    }
    const a = documents().find((d) => d.Model === 'model-a');
    expect(a).toMatchObject({
      CallsSucceeded: [1, 1],
      Tier1Retries: [1, 0],
      CallLatency: 812,
      ThrottleCount: 0,
      CostSpent: 420,
      ConcurrencyLimit: 12,
      ActiveConcurrency: 9,
      P99Latency: 1900,
    });
    expect(a?._aws.CloudWatchMetrics[0]?.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'CallsSucceeded', Unit: 'Count' },
        { Name: 'CallLatency', Unit: 'Milliseconds' },
        { Name: 'CostSpent', Unit: 'None' },
      ]),
    );
    const b = documents().find((d) => d.Model === 'model-b');
    expect(b).toMatchObject({ ThrottleCount: 1 });
    expect(b).not.toHaveProperty('CallLatency');
    expect(documents().find((d) => d.Lane === 'batch')).toMatchObject({ Redeliveries: 1 });
    expect(warn).not.toHaveBeenCalled();
  });

  it('starts afresh after a flush and writes nothing (nor warns) when nothing was recorded', async () => {
    const metrics = new EmfMetrics({ logger: { warn, error: warn } });
    metrics.job({ lane: 'realtime', costSpentMicros: 91_000 });
    await metrics.flush();
    await metrics.flush();
    expect(documents()).toHaveLength(1);
    expect(documents()[0]).toMatchObject({ Lane: 'realtime', JobCostSpent: 91_000 });
    expect(warn).not.toHaveBeenCalled();
  });
});
