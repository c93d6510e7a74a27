import { Metrics } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, type MetricSample, SampleMetrics } from './pipeline-metrics.js';

/** Options of {@link EmfMetrics}. */
export interface EmfMetricsOptions {
  /** @default METRICS_NAMESPACE ('ClauseReview') */
  readonly namespace?: string;
  /** Receives Powertools' warnings (not the metrics, which go to stdout). @default console */
  readonly logger?: { warn: (...args: unknown[]) => void; error: (...args: unknown[]) => void };
}

/**
 * Metrics for Lambda functions, as Embedded Metric Format lines on stdout (Powertools
 * `Metrics`): CloudWatch Logs extracts them, so publishing costs no API call and no latency.
 * Call {@link flush} at the end of every invocation.
 *
 * A Powertools `Metrics` document carries one dimension set for all its metrics, so this keeps
 * one instance per dimension set (per model, per lane) and publishes each. Powertools' default
 * `service` dimension is removed: the batch lane's PutMetricData has none, and a metric's
 * identity includes its dimensions, so keeping it would split each metric in two.
 *
 * @example
 * ```ts
 * const metrics = new EmfMetrics();
 * export const handler = async (event) => {
 *   try { return await work(event, { metrics }); } finally { await metrics.flush(); }
 * };
 * ```
 */
export class EmfMetrics extends SampleMetrics {
  private readonly documents = new Map<string, Metrics>();

  constructor(private readonly options: EmfMetricsOptions = {}) {
    super();
  }

  protected record(sample: MetricSample): void {
    this.document(sample.dimensions).addMetric(sample.name, sample.unit, sample.value);
  }

  /** Writes every stored metric as EMF and clears the store. */
  async flush(): Promise<void> {
    for (const document of this.documents.values()) {
      if (document.hasStoredMetrics()) document.publishStoredMetrics();
    }
  }

  private document(dimensions: Readonly<Record<string, string>>): Metrics {
    const key = JSON.stringify(Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b)));
    let document = this.documents.get(key);
    if (!document) {
      document = new Metrics({
        namespace: this.options.namespace ?? METRICS_NAMESPACE,
        ...(this.options.logger ? { logger: this.options.logger as never } : {}),
      });
      document.clearDefaultDimensions();
      document.setDefaultDimensions({ ...dimensions });
      this.documents.set(key, document);
    }
    return document;
  }
}
