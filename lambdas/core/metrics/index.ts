export { EmfMetrics, type EmfMetricsOptions } from './emf-metrics.js';
export {
  type AttemptMetric,
  type BooksMetric,
  type CallMetric,
  type CallOutcome,
  type ChunkMetric,
  DIMENSION,
  type HoldsMetric,
  type JobMetric,
  type LimiterWindow,
  METRIC,
  METRICS_NAMESPACE,
  type MetricName,
  type MetricSample,
  type PipelineMetrics,
  samplesOf,
} from './pipeline-metrics.js';
export {
  MAX_DATUMS_PER_REQUEST,
  MAX_VALUES_PER_DATUM,
  PutMetricDataMetrics,
  type PutMetricDataMetricsOptions,
} from './put-metric-data.js';
