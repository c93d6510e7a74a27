import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { DIMENSION, METRIC, METRICS_NAMESPACE, type MetricName } from '../lambdas/stack-interface.js';
import { checkRange } from './checks.js';
import { DeadLetterAlarms } from './dead-letter-alarms.js';
import { ValidationError } from './errors.js';
import { LANES, QUEUE_ROLES, type QueueRole, type Topology } from './topology.js';

/** Properties of {@link Observability}. */
export interface ObservabilityProps {
  /** Queue names and alarm thresholds; the result of `topology()`. */
  readonly topology: Topology;
  /** The work queues by role. */
  readonly queues: Readonly<Record<QueueRole, sqs.IQueue>>;
  /** The dead-letter queues by role. */
  readonly deadLetterQueues: Readonly<Record<QueueRole, sqs.IQueue>>;
  /** Functions whose errors raise an alarm, by a short name used in alarm names and widgets. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  /** Where the alarms notify. */
  readonly topic: sns.ITopic;
  /** Model ids the analysts call (primary and fallback): the dashboard draws a line per model. */
  readonly modelIds: readonly string[];
  /**
   * Messages a DLQ must hold within {@link deadLetterPeriod} to raise its burst alarm.
   * @default 3
   */
  readonly deadLetterThreshold?: number;
  /**
   * Window of the DLQ burst alarm.
   * @default Duration.minutes(5)
   */
  readonly deadLetterPeriod?: Duration;
  /**
   * Errors of one function within five minutes that raise its alarm.
   * @default 1
   */
  readonly functionErrorThreshold?: number;
  /**
   * Name of the dashboard.
   * @default '<prefix>-pipeline'
   */
  readonly dashboardName?: string;
}

/** Period of the queue-age and function-error alarms. */
const ALARM_PERIOD = Duration.minutes(5);
/** Period of the dashboard's graphs. */
const GRAPH_PERIOD = Duration.minutes(1);
const FUNCTION_KEY = /^[A-Za-z][A-Za-z0-9-]{0,39}$/;

/**
 * Alarms to the alerts topic and the pipeline's dashboard.
 *
 * Alarms: a DLQ holding `deadLetterThreshold` or more messages within `deadLetterPeriod` (a
 * burst: something systemic, beyond what triage redrives; the `DeadLetterAlarms` "not-empty"
 * backstop still fires on the first dead letter), each work queue's oldest message older than
 * its topology threshold for five minutes, and any function error. Missing data is not a
 * breach: an idle pipeline emits nothing.
 *
 * Dashboard: the worker metrics of lambdas/core/metrics per model (calls by outcome, p99
 * latency, concurrency limit and use, throttles, tier-1 retries, cost), redeliveries and job cost
 * per lane, queue depths and ages, DLQ depths, function errors and duration.
 */
export class Observability extends Construct {
  /** DLQ burst alarms by role. */
  readonly deadLetterAlarms: DeadLetterAlarms;
  /** Oldest-message-age alarms by work queue role. */
  readonly queueAgeAlarms: Readonly<Record<QueueRole, cloudwatch.Alarm>>;
  /** Error alarms by function name. */
  readonly functionErrorAlarms: Readonly<Record<string, cloudwatch.Alarm>>;
  /** Raised when the sweeper finds a review past its deadline (it then writes that report without it). */
  readonly overdueReviewAlarm: cloudwatch.Alarm;
  /** Raised on the first breach of a chunk's money books a worker finds (a defect, never load). */
  readonly booksBreachAlarm: cloudwatch.Alarm;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const t = props.topology;
    const errorThreshold = checkProps(this, props);
    const action = new actions.SnsAction(props.topic);
    const notify = (alarm: cloudwatch.Alarm) => {
      alarm.addAlarmAction(action);
      return alarm;
    };

    const deadLetterThreshold = props.deadLetterThreshold ?? 3;
    this.deadLetterAlarms = new DeadLetterAlarms(this, 'DeadLetterBursts', {
      deadLetterQueues: props.deadLetterQueues,
      settings: t.queues,
      topic: props.topic,
      threshold: deadLetterThreshold,
      period: props.deadLetterPeriod ?? Duration.minutes(5),
      alarmNameSuffix: `holding-${deadLetterThreshold}`,
    });

    this.queueAgeAlarms = Object.fromEntries(
      QUEUE_ROLES.map((role) => {
        const settings = t.queues[role];
        const limit = checkRange(
          this,
          `Observability: queue '${settings.name}' oldestMessageAlarmSeconds`,
          settings.oldestMessageAlarmSeconds,
          { min: 60 },
        );
        const alarm = new cloudwatch.Alarm(this, `${role}OldestMessage`, {
          alarmName: `${settings.name}-oldest-message-age`,
          alarmDescription:
            `The oldest message of ${settings.name} has waited more than ${limit} s: the ${role} stage is ` +
            'not keeping up, or its consumer is failing.',
          metric: props.queues[role].metricApproximateAgeOfOldestMessage({
            period: ALARM_PERIOD,
            statistic: 'Maximum',
          }),
          threshold: limit,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
        return [role, notify(alarm)] as const;
      }),
    ) as Record<QueueRole, cloudwatch.Alarm>;

    this.functionErrorAlarms = Object.fromEntries(
      Object.entries(props.functions).map(([name, fn]) => {
        const alarm = new cloudwatch.Alarm(this, `${name}Errors`, {
          alarmName: `${t.prefix}-${name}-errors`,
          alarmDescription:
            `The ${name} function failed an invocation (an unhandled error, a timeout or running out of memory). ` +
            'Records a handler reports as batch item failures are retries, not errors.',
          metric: fn.metricErrors({ period: ALARM_PERIOD, statistic: 'Sum' }),
          threshold: errorThreshold,
          evaluationPeriods: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        });
        return [name, notify(alarm)] as const;
      }),
    );

    this.overdueReviewAlarm = this.pipelineAlarm(notify, t.prefix, {
      id: 'OverdueReviews',
      suffix: 'reviews-overdue',
      description:
        'A job held for a reviewer passed its review deadline: the sweeper wrote its report with the undecided ' +
        "findings marked 'unreviewed'. 'clause-review findings <job>' shows them.",
      metric: METRIC.reviewsOverdue,
      statistic: 'Maximum',
    });
    this.booksBreachAlarm = this.pipelineAlarm(notify, t.prefix, {
      id: 'BooksBreaches',
      suffix: 'books-breaches',
      description:
        "A worker found a chunk's money books broken: an allotment left on a finished stage, an intent " +
        'outliving its chunk, spend the job was not told of, or an overdraw. The job may have spent past ' +
        "its ceiling or still count money as reserved; the workers' `books-breach` log events name the job " +
        'and chunk.',
      metric: METRIC.booksBreaches,
      statistic: 'Sum',
    });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName ?? `${t.prefix}-pipeline`,
      defaultInterval: Duration.hours(3),
    });
    this.addWidgets(props);
  }

  /** An alarm on the first datum of one of the pipeline's own metrics, notified to the topic. */
  private pipelineAlarm(
    notify: (alarm: cloudwatch.Alarm) => cloudwatch.Alarm,
    prefix: string,
    a: { id: string; suffix: string; description: string; metric: MetricName; statistic: string },
  ): cloudwatch.Alarm {
    return notify(
      new cloudwatch.Alarm(this, a.id, {
        alarmName: `${prefix}-${a.suffix}`,
        alarmDescription: a.description,
        metric: new cloudwatch.Metric({
          namespace: METRICS_NAMESPACE,
          metricName: a.metric,
          statistic: a.statistic,
          period: ALARM_PERIOD,
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private addWidgets(props: ObservabilityProps): void {
    const perModel = (name: MetricName, statistic: string, label: string = name) =>
      props.modelIds.map((model) =>
        pipelineMetric(name, statistic, { [DIMENSION.model]: model }, `${label} ${model}`),
      );
    const perLane = (name: MetricName, statistic: string) =>
      LANES.map((lane) => pipelineMetric(name, statistic, { [DIMENSION.lane]: lane }, `${name} ${lane}`));
    const fns = Object.entries(props.functions);

    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        markdown:
          '# clause-review\nModel calls per model (Lambda: EMF; Fargate: PutMetricData), queues, dead letters and functions.',
        width: 24,
        height: 1,
      }),
    );
    this.dashboard.addWidgets(
      graph('Calls by outcome', [
        ...perModel(METRIC.callsSucceeded, 'Sum'),
        ...perModel(METRIC.callsFailed, 'Sum'),
        ...perModel(METRIC.callsReused, 'Sum'),
      ]),
      graph('Call latency', [
        ...perModel(METRIC.callLatency, 'p99', 'p99 CallLatency'),
        ...perModel(METRIC.p99Latency, 'Maximum', 'limiter P99Latency'),
      ]),
      graph('Concurrency (limit and use, per process)', [
        ...perModel(METRIC.concurrencyLimit, 'Average'),
        ...perModel(METRIC.activeConcurrency, 'Maximum'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Throttles', perModel(METRIC.throttleCount, 'Sum')),
      graph('Tier-1 retries', perModel(METRIC.tier1Retries, 'Sum')),
      graph('Cost spent (micro-USD)', [
        ...perModel(METRIC.costSpent, 'Sum'),
        ...perLane(METRIC.jobCostSpent, 'Sum'),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Chunk redeliveries', perLane(METRIC.redeliveries, 'Sum')),
      graph(
        'Queue depth (visible)',
        queues((q) => q.metricApproximateNumberOfMessagesVisible({ period: GRAPH_PERIOD }), props.queues),
      ),
      graph(
        'Oldest message age (s)',
        queues(
          (q) => q.metricApproximateAgeOfOldestMessage({ period: GRAPH_PERIOD, statistic: 'Maximum' }),
          props.queues,
        ),
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Dead-letter queue depth',
        queues(
          (q) => q.metricApproximateNumberOfMessagesVisible({ period: GRAPH_PERIOD, statistic: 'Maximum' }),
          props.deadLetterQueues,
        ),
      ),
      graph(
        'Function errors',
        fns.map(([name, fn]) => fn.metricErrors({ period: GRAPH_PERIOD, statistic: 'Sum', label: name })),
      ),
      graph(
        'Function duration p99 (ms)',
        fns.map(([name, fn]) => fn.metricDuration({ period: GRAPH_PERIOD, statistic: 'p99', label: name })),
      ),
    );
    this.addHoldsAndAlarms();
  }

  /** Jobs a person holds, and every alarm's state. */
  private addHoldsAndAlarms(): void {
    this.dashboard.addWidgets(
      graph(
        'Jobs held by a person (paused, awaiting review, reviews overdue)',
        [METRIC.jobsPaused, METRIC.jobsAwaitingReview, METRIC.reviewsOverdue].map((name) =>
          pipelineMetric(name, 'Maximum', {}, name),
        ),
        16,
      ),
      graph(
        "Breaches of a chunk's money books (0 always)",
        [pipelineMetric(METRIC.booksBreaches, 'Sum', {}, METRIC.booksBreaches)],
        8,
      ),
    );
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        width: 24,
        alarms: [
          ...Object.values(this.deadLetterAlarms.alarms),
          ...Object.values(this.queueAgeAlarms),
          ...Object.values(this.functionErrorAlarms),
          this.overdueReviewAlarm,
          this.booksBreachAlarm,
        ],
      }),
    );
  }
}

/** Refuses props out of range, naming the value; returns the function error threshold. */
function checkProps(scope: IConstruct, props: ObservabilityProps): number {
  const threshold = props.functionErrorThreshold ?? 1;
  const errorThreshold = checkRange(scope, 'Observability functionErrorThreshold', threshold, { min: 1 });
  if (props.modelIds.length === 0) {
    throw new ValidationError(
      'Empty',
      'Observability modelIds must name at least one model; got none',
      scope,
    );
  }
  for (const name of Object.keys(props.functions)) {
    if (!FUNCTION_KEY.test(name)) {
      throw new ValidationError(
        'BadName',
        `Observability function names must be 1-40 characters of A-Z, a-z, 0-9 and '-', starting with a letter; got '${name}'`,
        scope,
      );
    }
  }
  return errorThreshold;
}

/** One of the pipeline's own metrics, on the dashboard's graph period. */
function pipelineMetric(
  name: MetricName,
  statistic: string,
  dimensionsMap: Record<string, string>,
  label: string,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    ...(Object.keys(dimensionsMap).length > 0 ? { dimensionsMap } : {}),
    statistic,
    period: GRAPH_PERIOD,
    label,
  });
}

function graph(title: string, left: cloudwatch.IMetric[], width = 8): cloudwatch.GraphWidget {
  return new cloudwatch.GraphWidget({ title, left, width, height: 6 });
}

function queues(
  metric: (q: sqs.IQueue) => cloudwatch.IMetric,
  which: Readonly<Record<QueueRole, sqs.IQueue>>,
): cloudwatch.IMetric[] {
  return QUEUE_ROLES.map((role) => metric(which[role]));
}
