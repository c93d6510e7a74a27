/**
 * The batch lane's PutMetricData sink against the emulator: what it sends is listed by
 * ListMetrics and adds up in GetMetricData, dimensions and counts intact. A namespace and a
 * model name unique to the run keep other files' and runs' metrics out.
 */
import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type GetMetricDataCommandOutput,
  ListMetricsCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIMENSION, METRIC, PutMetricDataMetrics } from '../../lambdas/core/metrics/index.js';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { awsEndpoint, uniquePrefix } from '../helpers/local-aws.js';

const clients = emulatorClients(awsEndpoint());
afterAll(() => clients.destroy());
const cloudwatch: CloudWatchClient = clients.cloudwatch;
const run = uniquePrefix('metrics');
const namespace = `ClauseReview/${run}`;
// moto's GetMetricData matches name and dimensions in every namespace, and the batch-lane
// workers of other test files emit the same metrics: the model name is made unique too.
const MODEL = `anthropic.claude-3-haiku-20240307-v1:0/${run}`;
const startedAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 120_000);

const errors: unknown[] = [];

beforeAll(async () => {
  const metrics = new PutMetricDataMetrics({
    client: cloudwatch,
    namespace,
    flushIntervalMs: 0,
    onError: (error) => errors.push(error),
  });
  for (const latencyMs of [120, 120, 480, 2500])
    metrics.attempt({ model: MODEL, latencyMs, throttled: false });
  metrics.attempt({ model: MODEL, latencyMs: 4, throttled: true });
  metrics.call({ model: MODEL, outcome: 'succeeded', retries: 1 });
  metrics.call({ model: MODEL, outcome: 'succeeded', retries: 0 });
  metrics.call({ model: MODEL, outcome: 'reused' });
  metrics.chunk({ lane: 'batch', redelivered: true });
  metrics.chunk({ lane: 'batch', redelivered: false });
  await metrics.close();
});

async function stat(name: string, dimension: { Name: string; Value: string }, statistic: string) {
  const r: GetMetricDataCommandOutput = await cloudwatch.send(
    new GetMetricDataCommand({
      StartTime: startedAt,
      EndTime: new Date(Date.now() + 120_000),
      MetricDataQueries: [
        {
          Id: 'q',
          MetricStat: {
            Metric: { Namespace: namespace, MetricName: name, Dimensions: [dimension] },
            Period: 3600,
            Stat: statistic,
          },
        },
      ],
    }),
  );
  return (r.MetricDataResults?.[0]?.Values ?? []).reduce((a, b) => a + b, 0);
}

describe('PutMetricData on the emulator', () => {
  it('sends without errors, and ListMetrics lists each metric with its dimension', async () => {
    expect(errors).toEqual([]);
    const listed = await cloudwatch.send(new ListMetricsCommand({ Namespace: namespace }));
    const seen = (listed.Metrics ?? []).map((m) => `${m.MetricName} ${JSON.stringify(m.Dimensions)}`).sort();
    const model = JSON.stringify([{ Name: DIMENSION.model, Value: MODEL }]);
    const lane = JSON.stringify([{ Name: DIMENSION.lane, Value: 'batch' }]);
    expect([...new Set(seen)]).toEqual(
      [
        `${METRIC.callLatency} ${model}`,
        `${METRIC.throttleCount} ${model}`,
        `${METRIC.callsSucceeded} ${model}`,
        `${METRIC.callsReused} ${model}`,
        `${METRIC.tier1Retries} ${model}`,
        `${METRIC.redeliveries} ${lane}`,
      ].sort(),
    );
  });

  it('GetMetricData adds up the values with their counts', async () => {
    const model = { Name: DIMENSION.model, Value: MODEL };
    expect(await stat(METRIC.callLatency, model, 'SampleCount')).toBe(4);
    expect(await stat(METRIC.callLatency, model, 'Sum')).toBe(120 + 120 + 480 + 2500);
    expect(await stat(METRIC.callLatency, model, 'Maximum')).toBe(2500);
    expect(await stat(METRIC.throttleCount, model, 'Sum')).toBe(1);
    expect(await stat(METRIC.throttleCount, model, 'SampleCount')).toBe(5);
    expect(await stat(METRIC.callsSucceeded, model, 'Sum')).toBe(2);
    expect(await stat(METRIC.tier1Retries, model, 'Sum')).toBe(1);
    expect(await stat(METRIC.redeliveries, { Name: DIMENSION.lane, Value: 'batch' }, 'Sum')).toBe(1);
  });
});
