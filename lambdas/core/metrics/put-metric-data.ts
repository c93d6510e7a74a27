import { type CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { METRICS_NAMESPACE, type MetricSample, type MetricUnit, SampleMetrics } from './pipeline-metrics.js';

/** Options of {@link PutMetricDataMetrics}. */
export interface PutMetricDataMetricsOptions {
  readonly client: CloudWatchClient;
  /** @default METRICS_NAMESPACE ('ClauseReview') */
  readonly namespace?: string;
  /**
   * Longest time a sample waits in the buffer. A timer sends the buffer this often; 0 turns the
   * timer off (then only {@link PutMetricDataMetrics.flush} and `close` send).
   * @default 30_000
   */
  readonly flushIntervalMs?: number;
  /** Clock in epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** Told about a request that failed; its samples are dropped (metrics are best effort). */
  readonly onError?: (error: unknown, datums: number) => void;
}

/** PutMetricData allows 150 distinct values in one datum. */
export const MAX_VALUES_PER_DATUM = 150;
/** Datums per request: well under the API's limits (1,000 datums, 1 MB) whatever the values. */
export const MAX_DATUMS_PER_REQUEST = 20;

interface Series {
  readonly name: string;
  readonly unit: MetricUnit;
  readonly dimensions: Readonly<Record<string, string>>;
  /** Start of the minute the samples belong to. */
  readonly minute: number;
  /** value → how many times it was seen. */
  readonly counts: Map<number, number>;
}

const MINUTE = 60_000;

/**
 * Metrics for long-running processes (the Fargate batch lane), sent with PutMetricData.
 *
 * Samples are buffered per metric, dimensions and minute as value → count pairs and sent as
 * `Values`/`Counts`: one request carries thousands of samples, and CloudWatch keeps the
 * distribution, so percentile statistics (p99 of `CallLatency`) work, which statistic sets
 * (`StatisticValues`) would not allow. The buffer goes out every `flushIntervalMs` and on
 * {@link close}; call `close` before the process exits.
 *
 * @example
 * ```ts
 * const metrics = new PutMetricDataMetrics({ client: new CloudWatchClient({}) });
 * process.once('SIGTERM', () => void metrics.close());
 * ```
 */
export class PutMetricDataMetrics extends SampleMetrics {
  private readonly namespace: string;
  private readonly now: () => number;
  private buffer = new Map<string, Series>();
  private sending: Promise<void> = Promise.resolve();
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: PutMetricDataMetricsOptions) {
    super();
    this.namespace = options.namespace ?? METRICS_NAMESPACE;
    this.now = options.now ?? Date.now;
    const every = options.flushIntervalMs ?? 30_000;
    if (!(every >= 0 && Number.isFinite(every))) {
      throw new RangeError(`PutMetricDataMetrics flushIntervalMs must be a finite number ≥ 0; got ${every}`);
    }
    if (every > 0) {
      this.timer = setInterval(() => void this.flush(), every);
      // The buffer must not keep a finished process alive; `close` sends what is left.
      this.timer.unref?.();
    }
  }

  /** Samples waiting to be sent. */
  get pending(): number {
    let n = 0;
    for (const series of this.buffer.values()) for (const c of series.counts.values()) n += c;
    return n;
  }

  protected record(sample: MetricSample): void {
    const minute = Math.floor(this.now() / MINUTE) * MINUTE;
    const dims = Object.entries(sample.dimensions).sort(([a], [b]) => a.localeCompare(b));
    const key = JSON.stringify([sample.name, dims, minute]);
    let series = this.buffer.get(key);
    if (!series) {
      series = {
        name: sample.name,
        unit: sample.unit,
        dimensions: sample.dimensions,
        minute,
        counts: new Map(),
      };
      this.buffer.set(key, series);
    }
    series.counts.set(sample.value, (series.counts.get(sample.value) ?? 0) + 1);
  }

  /** Sends everything buffered so far; resolves once it is sent (or its failure reported). */
  flush(): Promise<void> {
    const taken = this.buffer;
    this.buffer = new Map();
    // One flush at a time, in order; a failed one does not stop the next.
    this.sending = this.sending.then(() => this.send(taken));
    return this.sending;
  }

  /** Stops the timer and sends what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private async send(series: Map<string, Series>): Promise<void> {
    const datums = [...series.values()].flatMap(toDatums);
    for (let i = 0; i < datums.length; i += MAX_DATUMS_PER_REQUEST) {
      const batch = datums.slice(i, i + MAX_DATUMS_PER_REQUEST);
      try {
        await this.options.client.send(
          new PutMetricDataCommand({ Namespace: this.namespace, MetricData: batch }),
        );
      } catch (error) {
        this.options.onError?.(error, batch.length);
      }
    }
  }
}

function toDatums(series: Series): MetricDatum[] {
  const pairs = [...series.counts];
  const datums: MetricDatum[] = [];
  for (let i = 0; i < pairs.length; i += MAX_VALUES_PER_DATUM) {
    const slice = pairs.slice(i, i + MAX_VALUES_PER_DATUM);
    datums.push({
      MetricName: series.name,
      Unit: series.unit,
      Timestamp: new Date(series.minute),
      Dimensions: Object.entries(series.dimensions).map(([Name, Value]) => ({ Name, Value })),
      Values: slice.map(([value]) => value),
      Counts: slice.map(([, count]) => count),
    });
  }
  return datums;
}
