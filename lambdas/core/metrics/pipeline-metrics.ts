/**
 * The pipeline's metrics port: what the worker core reports, independent of how it reaches
 * CloudWatch (Embedded Metric Format from Lambda, PutMetricData from the Fargate poller).
 *
 * Every event maps to the same samples whichever transport carries them ({@link samplesOf}),
 * so the alarms and the dashboard (lib/observability.ts) read one set of metrics for both lanes.
 *
 * Latency: each answered or failed Bedrock attempt is sent as a `CallLatency` sample and
 * CloudWatch computes the percentiles (p99 over every process of the fleet, which no process
 * can compute alone). `P99Latency` is the adaptive limiter's own window p99, per process: what
 * the AIMD decision saw. The dashboard shows both; alarms should use p99(CallLatency).
 */
import type { Lane } from '../clause.js';

/** CloudWatch namespace of every clause-review metric. */
export const METRICS_NAMESPACE = 'ClauseReview';

/** Metric names, shared by the runtime and the CDK dashboard. */
export const METRIC = {
  /** Limiter: the concurrency limit in force at the end of a window (per model and process). */
  concurrencyLimit: 'ConcurrencyLimit',
  /** Limiter: most permits in use at once during a window (per model and process). */
  activeConcurrency: 'ActiveConcurrency',
  /** Limiter: nearest-rank p99 latency of a window's unthrottled calls (per model and process). */
  p99Latency: 'P99Latency',
  /** Per attempt: latency of a Bedrock request that was not throttled; use its p99 statistic. */
  callLatency: 'CallLatency',
  /** Per attempt: 1 if Bedrock throttled it, else 0 (Sum = throttles, Average = throttle rate). */
  throttleCount: 'ThrottleCount',
  /** Per answered attempt: micro-USD billed (repair attempts included). */
  costSpent: 'CostSpent',
  /** Per call: a valid answer was recorded. */
  callsSucceeded: 'CallsSucceeded',
  /** Per call: no answer this time (permanent, invalid, over budget, or out of tier-1 retries). */
  callsFailed: 'CallsFailed',
  /** Per call: the ledger already held its outcome, so no request was made (nor billed). */
  callsReused: 'CallsReused',
  /** Per call that made requests: its tier-1 retries (0 included, so Average = retries per call). */
  tier1Retries: 'Tier1Retries',
  /** Per chunk delivery: 1 if SQS delivered it before (receive count > 1), else 0. */
  redeliveries: 'Redeliveries',
  /** Per finalized job: micro-USD spent on the whole job. */
  jobCostSpent: 'JobCostSpent',
  /** Per sweep: jobs paused by a person. */
  jobsPaused: 'JobsPaused',
  /** Per sweep: jobs held for a reviewer. */
  jobsAwaitingReview: 'JobsAwaitingReview',
  /** Per sweep: jobs whose review deadline passed before every gated finding had a decision. */
  reviewsOverdue: 'ReviewsOverdue',
  /**
   * Per breach of a chunk's money books (an allotment left, an intent outliving its chunk, spend
   * the job was not told of, an overdraw): 1. Any is a defect; the alarm fires on the first.
   */
  booksBreaches: 'BooksBreaches',
} as const;

/** A metric name. */
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/** Dimension names. */
export const DIMENSION = { model: 'Model', lane: 'Lane' } as const;

/** How a call (one analyst × one clause) ended in this delivery. */
export type CallOutcome = 'succeeded' | 'failed' | 'reused';

/** One finished call. */
export interface CallMetric {
  /** The model of its last attempt (the fallback, if it came to that). */
  readonly model: string;
  readonly outcome: CallOutcome;
  /** Tier-1 retries; omitted for reused calls, which made no request. */
  readonly retries?: number;
}

/** One Bedrock request. */
export interface AttemptMetric {
  readonly model: string;
  readonly latencyMs: number;
  readonly throttled: boolean;
  /** What the answer was billed, in micro-USD; absent when there was no answer. */
  readonly costMicros?: number;
}

/** One delivery of a chunk message. */
export interface ChunkMetric {
  /** Absent when the message could not be read. */
  readonly lane?: Lane;
  readonly redelivered: boolean;
}

/** One finalized job. */
export interface JobMetric {
  readonly lane: string;
  readonly costSpentMicros: number;
}

/** What metrics need of an adaptive-limiter window (`WindowSnapshot` fits). */
export interface LimiterWindow {
  /** The model id. */
  readonly name?: string;
  readonly limitAfter: number;
  readonly peakActive: number;
  readonly p99Ms?: number;
}

/** Where the pipeline reports what it does. Every method is cheap and never throws. */
/** Jobs a person holds, counted by one sweep. */
export interface HoldsMetric {
  readonly paused: number;
  readonly awaitingReview: number;
  readonly reviewsOverdue: number;
}

/** One breach of a chunk's money books (`BooksBreachKind` in state/chunk-books.ts). */
export interface BooksMetric {
  readonly kind: string;
}

export interface PipelineMetrics {
  call(event: CallMetric): void;
  books(event: BooksMetric): void;
  holds(event: HoldsMetric): void;
  attempt(event: AttemptMetric): void;
  chunk(event: ChunkMetric): void;
  job(event: JobMetric): void;
  limiter(window: LimiterWindow): void;
  /** Sends what is buffered. */
  flush(): Promise<void>;
}

/** CloudWatch units used here (a subset of both Powertools' and the SDK's). */
export type MetricUnit = 'Count' | 'Milliseconds' | 'None';

/** One data point, before a transport sends it. */
export interface MetricSample {
  readonly name: MetricName;
  readonly unit: MetricUnit;
  readonly value: number;
  readonly dimensions: Readonly<Record<string, string>>;
}

/** One event of {@link PipelineMetrics}, tagged with its kind. */
export type MetricEvent =
  | ({ readonly kind: 'call' } & CallMetric)
  | ({ readonly kind: 'attempt' } & AttemptMetric)
  | ({ readonly kind: 'chunk' } & ChunkMetric)
  | ({ readonly kind: 'job' } & JobMetric)
  | ({ readonly kind: 'limiter' } & LimiterWindow)
  | ({ readonly kind: 'holds' } & HoldsMetric)
  | { readonly kind: 'books'; readonly breach: string };

const OUTCOME_METRIC: Record<CallOutcome, MetricName> = {
  succeeded: METRIC.callsSucceeded,
  failed: METRIC.callsFailed,
  reused: METRIC.callsReused,
};

/** The samples an event stands for: the single mapping both transports share. */
export function samplesOf(event: MetricEvent): MetricSample[] {
  switch (event.kind) {
    case 'call': {
      const dimensions = { [DIMENSION.model]: event.model };
      const samples: MetricSample[] = [
        { name: OUTCOME_METRIC[event.outcome], unit: 'Count', value: 1, dimensions },
      ];
      if (event.outcome !== 'reused') {
        samples.push({ name: METRIC.tier1Retries, unit: 'Count', value: event.retries ?? 0, dimensions });
      }
      return samples;
    }
    case 'attempt': {
      const dimensions = { [DIMENSION.model]: event.model };
      const samples: MetricSample[] = [
        { name: METRIC.throttleCount, unit: 'Count', value: event.throttled ? 1 : 0, dimensions },
      ];
      // Like the limiter, latency counts unthrottled requests only: a throttle answers at once.
      if (!event.throttled) {
        samples.push({
          name: METRIC.callLatency,
          unit: 'Milliseconds',
          value: Math.max(0, Math.round(event.latencyMs)),
          dimensions,
        });
      }
      if (event.costMicros !== undefined) {
        samples.push({ name: METRIC.costSpent, unit: 'None', value: event.costMicros, dimensions });
      }
      return samples;
    }
    case 'chunk':
      return [
        {
          name: METRIC.redeliveries,
          unit: 'Count',
          value: event.redelivered ? 1 : 0,
          dimensions: { [DIMENSION.lane]: event.lane ?? 'unknown' },
        },
      ];
    case 'job':
      return [
        {
          name: METRIC.jobCostSpent,
          unit: 'None',
          value: event.costSpentMicros,
          dimensions: { [DIMENSION.lane]: event.lane },
        },
      ];
    case 'books':
      // No dimension: the alarm reads the one series, the log says which breach it was.
      return [{ name: METRIC.booksBreaches, unit: 'Count', value: 1, dimensions: {} }];
    case 'holds':
      return [
        { name: METRIC.jobsPaused, unit: 'Count', value: event.paused, dimensions: {} },
        { name: METRIC.jobsAwaitingReview, unit: 'Count', value: event.awaitingReview, dimensions: {} },
        { name: METRIC.reviewsOverdue, unit: 'Count', value: event.reviewsOverdue, dimensions: {} },
      ];
    case 'limiter': {
      if (!event.name) return [];
      const dimensions = { [DIMENSION.model]: event.name };
      const samples: MetricSample[] = [
        { name: METRIC.concurrencyLimit, unit: 'Count', value: event.limitAfter, dimensions },
        { name: METRIC.activeConcurrency, unit: 'Count', value: event.peakActive, dimensions },
      ];
      if (event.p99Ms !== undefined) {
        samples.push({
          name: METRIC.p99Latency,
          unit: 'Milliseconds',
          value: Math.round(event.p99Ms),
          dimensions,
        });
      }
      return samples;
    }
  }
}

/**
 * Base of the transports: turns each event into samples and hands them to `record`.
 * A transport only decides how samples are stored and sent.
 */
export abstract class SampleMetrics implements PipelineMetrics {
  call(event: CallMetric): void {
    this.emit({ kind: 'call', ...event });
  }
  attempt(event: AttemptMetric): void {
    this.emit({ kind: 'attempt', ...event });
  }
  chunk(event: ChunkMetric): void {
    this.emit({ kind: 'chunk', ...event });
  }
  job(event: JobMetric): void {
    this.emit({ kind: 'job', ...event });
  }
  holds(event: HoldsMetric): void {
    this.emit({ kind: 'holds', ...event });
  }
  books(event: BooksMetric): void {
    this.emit({ kind: 'books', breach: event.kind });
  }
  limiter(window: LimiterWindow): void {
    this.emit({
      kind: 'limiter',
      ...(window.name !== undefined ? { name: window.name } : {}),
      limitAfter: window.limitAfter,
      peakActive: window.peakActive,
      ...(window.p99Ms !== undefined ? { p99Ms: window.p99Ms } : {}),
    });
  }
  abstract flush(): Promise<void>;
  protected abstract record(sample: MetricSample): void;

  private emit(event: MetricEvent): void {
    // Metrics are a side channel: a bad sample must never fail the model call it describes.
    try {
      for (const sample of samplesOf(event)) {
        if (Number.isFinite(sample.value)) this.record(sample);
      }
    } catch {
      // dropped
    }
  }
}
