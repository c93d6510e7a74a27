/**
 * PutMetricDataMetrics: buffers samples as value/count pairs per metric, dimensions and minute,
 * and sends them on a timer, on flush and on close, in requests of bounded size.
 */
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_DATUMS_PER_REQUEST,
  MAX_VALUES_PER_DATUM,
  METRICS_NAMESPACE,
  PutMetricDataMetrics,
} from '../../../lambdas/core/metrics/index.js';

const cloudwatch = mockClient(CloudWatchClient);
const client = new CloudWatchClient({ region: 'us-east-1' });
const T0 = Date.UTC(2026, 0, 15, 12, 0, 10);

const sent = () => cloudwatch.commandCalls(PutMetricDataCommand).map((c) => c.args[0].input);
const datums = (): MetricDatum[] => sent().flatMap((input) => input.MetricData ?? []);
const datum = (name: string, model: string) =>
  datums().find((d) => d.MetricName === name && d.Dimensions?.some((x) => x.Value === model));

beforeEach(() => {
  cloudwatch.reset();
  cloudwatch.on(PutMetricDataCommand).resolves({});
  vi.useFakeTimers({ now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('PutMetricDataMetrics', () => {
  it('sends latency samples as Values/Counts, so CloudWatch can compute their p99', async () => {
    const metrics = new PutMetricDataMetrics({ client, flushIntervalMs: 0 });
    for (const latencyMs of [100, 100, 100, 250.2, 4000]) {
      metrics.attempt({ model: 'model-a', latencyMs, throttled: false });
    }
    metrics.attempt({ model: 'model-a', latencyMs: 2, throttled: true });
    metrics.call({ model: 'model-a', outcome: 'failed', retries: 3 });
    expect(metrics.pending).toBe(13);
    expect(sent()).toHaveLength(0);

    await metrics.flush();

    expect(sent()).toHaveLength(1);
    expect(sent()[0]?.Namespace).toBe(METRICS_NAMESPACE);
    const minute = new Date(Date.UTC(2026, 0, 15, 12, 0, 0));
    expect(datum('CallLatency', 'model-a')).toEqual({
      MetricName: 'CallLatency',
      Unit: 'Milliseconds',
      Timestamp: minute,
      Dimensions: [{ Name: 'Model', Value: 'model-a' }],
      Values: [100, 250, 4000],
      Counts: [3, 1, 1],
    });
    expect(datum('ThrottleCount', 'model-a')).toMatchObject({ Values: [0, 1], Counts: [5, 1] });
    expect(datum('CallsFailed', 'model-a')).toMatchObject({ Unit: 'Count', Values: [1], Counts: [1] });
    expect(datum('Tier1Retries', 'model-a')).toMatchObject({ Values: [3], Counts: [1] });
    expect(metrics.pending).toBe(0);
  });

  it('sends at most once per interval, and nothing when nothing was recorded', async () => {
    const metrics = new PutMetricDataMetrics({ client, flushIntervalMs: 30_000 });
    metrics.chunk({ lane: 'batch', redelivered: true });
    metrics.chunk({ lane: 'batch', redelivered: false });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(sent()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(datums()).toEqual([
      expect.objectContaining({
        MetricName: 'Redeliveries',
        Dimensions: [{ Name: 'Lane', Value: 'batch' }],
        Values: [1, 0],
        Counts: [1, 1],
      }),
    ]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent()).toHaveLength(1);
    await metrics.close();
  });

  it('sends what is left on close, and stops its timer', async () => {
    const metrics = new PutMetricDataMetrics({ client, flushIntervalMs: 30_000 });
    metrics.job({ lane: 'batch', costSpentMicros: 1234 });
    await metrics.close();
    expect(datums()).toEqual([expect.objectContaining({ MetricName: 'JobCostSpent', Values: [1234] })]);
    metrics.job({ lane: 'batch', costSpentMicros: 1 });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(sent()).toHaveLength(1);
  });

  it('keeps samples of different minutes apart, each stamped with its minute', async () => {
    const metrics = new PutMetricDataMetrics({ client, flushIntervalMs: 0 });
    metrics.limiter({ name: 'model-a', limitAfter: 10, peakActive: 4 });
    vi.setSystemTime(T0 + 60_000);
    metrics.limiter({ name: 'model-a', limitAfter: 15, peakActive: 15, p99Ms: 1200 });
    await metrics.flush();
    const limits = datums().filter((d) => d.MetricName === 'ConcurrencyLimit');
    expect(limits.map((d) => [d.Timestamp?.toISOString(), d.Values])).toEqual([
      ['2026-01-15T12:00:00.000Z', [10]],
      ['2026-01-15T12:01:00.000Z', [15]],
    ]);
    expect(datums().filter((d) => d.MetricName === 'P99Latency')).toHaveLength(1);
  });

  it('splits many distinct values and many series into requests the API accepts', async () => {
    const metrics = new PutMetricDataMetrics({ client, flushIntervalMs: 0 });
    for (let ms = 0; ms < MAX_VALUES_PER_DATUM + 10; ms++) {
      metrics.attempt({ model: 'model-a', latencyMs: ms, throttled: false });
    }
    for (let m = 0; m < MAX_DATUMS_PER_REQUEST; m++) {
      metrics.call({ model: `model-${m}`, outcome: 'reused' });
    }
    await metrics.flush();
    const latency = datums().filter((d) => d.MetricName === 'CallLatency');
    expect(latency.map((d) => d.Values?.length)).toEqual([MAX_VALUES_PER_DATUM, 10]);
    expect(sent().every((input) => (input.MetricData?.length ?? 0) <= MAX_DATUMS_PER_REQUEST)).toBe(true);
    expect(datums().filter((d) => d.MetricName === 'CallsReused')).toHaveLength(MAX_DATUMS_PER_REQUEST);
  });

  it('reports a failed request and goes on with the next one', async () => {
    const onError = vi.fn();
    cloudwatch.on(PutMetricDataCommand).rejectsOnce(new Error('throttled by CloudWatch')).resolves({});
    const metrics = new PutMetricDataMetrics({ client, flushIntervalMs: 0, onError });
    metrics.call({ model: 'model-a', outcome: 'succeeded', retries: 0 });
    await metrics.flush();
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'throttled by CloudWatch' }), 2);
    metrics.call({ model: 'model-a', outcome: 'succeeded', retries: 0 });
    await metrics.flush();
    expect(sent()).toHaveLength(2);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('rejects a negative flush interval', () => {
    expect(() => new PutMetricDataMetrics({ client, flushIntervalMs: -1 })).toThrow(
      'PutMetricDataMetrics flushIntervalMs must be a finite number ≥ 0; got -1',
    );
  });
});
