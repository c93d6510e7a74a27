import { join } from 'node:path';
import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LANES, sweepRules } from '../lambdas/stack-interface.js';
import { bucketLogicalId } from './bucket-logical-id.js';
import { checkProjectRoot, checkRange } from './checks.js';
import { type ModelIds, resolveModelIds } from './model-access.js';
import { handlerFunction, WORK_PREFIX } from './pipeline-functions.js';
import { PROJECT_ROOT } from './project-root.js';
import { keyedVariable, type PipelineResourcesProps, runtimeEnvironment } from './runtime-environment.js';
import { grantItemAccess } from './state-table.js';
import { QUEUE_ROLES, type QueueRole, SWEEP_EVERY_MINUTES } from './topology.js';

/** Properties of {@link OperationsFunctions}. */
export interface OperationsFunctionsProps extends PipelineResourcesProps {
  /** Their dead-letter queues by role. */
  readonly deadLetterQueues: Readonly<Record<QueueRole, sqs.IQueue>>;
  /**
   * How often the sweeper runs, in minutes (1-60).
   * @default 1
   */
  readonly sweepEveryMinutes?: number;
  /**
   * How often DLQ triage runs, in minutes (1-1440).
   * @default 15
   */
  readonly triageEveryMinutes?: number;
  /**
   * Redrives of one chunk out of its DLQ before triage marks it dead (0-20).
   * @default 2
   */
  readonly maxRedrives?: number;
  /**
   * Directory holding package-lock.json and the handler sources.
   * @default the repository this file belongs to
   */
  readonly projectRoot?: string;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The analysts' models, named in the environment like every other handler's.
   * @default the primary and fallback of lambdas/core/model-catalogue.ts
   */
  readonly modelIds?: ModelIds;
}

/** Lease length the runtime uses when tuning names none (lambdas/shared/config.ts). */
const DEFAULT_LEASE_SECONDS = 120;

/**
 * The pipeline's operations functions: the sweeper (every minute: lost chunk messages, jobs
 * never finalized, jobs past their deadline) and DLQ triage (every 15 minutes: classify,
 * redrive or mark dead, record, alert), each on an EventBridge schedule, each with its own
 * role holding only what its handler does. A run that fails lands in {@link failureQueue},
 * whose alarm notifies the alerts topic.
 */
export class OperationsFunctions extends Construct {
  readonly sweeperFunction: nodejs.NodejsFunction;
  readonly triageFunction: nodejs.NodejsFunction;
  readonly sweepSchedule: events.Rule;
  readonly triageSchedule: events.Rule;
  /**
   * Where a scheduled run that failed goes: an invocation that threw (the Lambda on-failure
   * destination) or an event EventBridge could not deliver (the target's dead-letter queue).
   */
  readonly failureQueue: sqs.Queue;
  /** Raised, to the alerts topic, as soon as a failed run reaches {@link failureQueue}. */
  readonly failureAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: OperationsFunctionsProps) {
    super(scope, id);
    const sweepEvery = props.sweepEveryMinutes ?? SWEEP_EVERY_MINUTES;
    const triageEvery = props.triageEveryMinutes ?? 15;
    const maxRedrives = props.maxRedrives ?? 2;
    checkRange(this, 'OperationsFunctions sweepEveryMinutes', sweepEvery, { min: 1, max: 60 });
    checkRange(this, 'OperationsFunctions triageEveryMinutes', triageEvery, { min: 1, max: 1440 });
    checkRange(this, 'OperationsFunctions maxRedrives', maxRedrives, { min: 0, max: 20 });
    const projectRoot = props.projectRoot ?? PROJECT_ROOT;
    checkProjectRoot(this, 'OperationsFunctions', projectRoot);
    const environment = this.environmentOf(props, maxRedrives);

    const make = (name: 'Sweeper' | 'DlqTriage', entry: string, description: string, timeout: Duration) => {
      const { fn } = handlerFunction(this, name, {
        entry: join(projectRoot, entry),
        projectRoot,
        description,
        roleDescription: `clause-review ${name} function`,
        memorySize: 512,
        timeout,
        environment,
        ...(props.logRetention ? { logRetention: props.logRetention } : {}),
        ...(props.removalPolicy ? { removalPolicy: props.removalPolicy } : {}),
      });
      grantItemAccess(props.table, fn);
      return fn;
    };

    this.sweeperFunction = make(
      'Sweeper',
      'lambdas/sweeper/handler.ts',
      'clause-review sweeper: lost chunk messages, unfinalized jobs, deadlines',
      Duration.seconds(55),
    );
    this.triageFunction = make(
      'DlqTriage',
      'lambdas/dlq-triage/handler.ts',
      'clause-review DLQ triage: classify, redrive or mark dead, record, alert',
      Duration.minutes(5),
    );

    grantOperations(
      this.sweeperFunction,
      this.triageFunction,
      props,
      environment.STATUS_INDEX_NAME ?? 'byStatus',
    );

    // A failed run is not retried: the next scheduled run does the same work. It is not silent
    // either: the event goes to the failure queue, and the queue's alarm to the alerts topic.
    [this.failureQueue, this.failureAlarm] = this.failedRuns(props);
    const onFailure = new destinations.SqsDestination(this.failureQueue);
    for (const fn of [this.sweeperFunction, this.triageFunction]) {
      fn.configureAsyncInvoke({ onFailure, retryAttempts: 0, maxEventAge: Duration.hours(1) });
    }
    const target = (fn: nodejs.NodejsFunction) =>
      new targets.LambdaFunction(fn, {
        retryAttempts: 0,
        maxEventAge: Duration.hours(1),
        deadLetterQueue: this.failureQueue,
      });

    this.sweepSchedule = new events.Rule(this, 'SweepSchedule', {
      description: 'clause-review sweeper',
      schedule: events.Schedule.rate(Duration.minutes(sweepEvery)),
      targets: [target(this.sweeperFunction)],
    });
    this.triageSchedule = new events.Rule(this, 'TriageSchedule', {
      description: 'clause-review DLQ triage',
      schedule: events.Schedule.rate(Duration.minutes(triageEvery)),
      targets: [target(this.triageFunction)],
    });

    const role = this.sweeperFunction.role;
    if (role) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(props.resultsBucket)}.Arn>/${WORK_PREFIX}*]`,
        reason:
          `The sweeper reads normalised documents to rebuild lost chunk messages: object-level S3 actions need an ` +
          `object ARN pattern, and this one is confined to the '${WORK_PREFIX}' prefix of a bucket this stack owns; ` +
          'the keys (job ids) exist only at run time.',
      });
    }
  }

  /** The runtime's environment plus the sweeper's and triage's: index, quiet periods, DLQs. */
  private environmentOf(props: OperationsFunctionsProps, maxRedrives: number): Record<string, string> {
    const t = props.topology;
    const rules = sweepRules(t, (props.tuning?.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000);
    const environment: Record<string, string> = {
      ...runtimeEnvironment({ ...props, models: resolveModelIds(props.modelIds, this) }),
      STATUS_INDEX_NAME: t.table.indexes[0]?.name ?? 'byStatus',
      SWEEP_QUIET_SECONDS: keyedVariable(this, LANES, (lane) => Math.ceil(rules.quietMs[lane] / 1000)),
      SWEEP_FINALIZE_QUIET_SECONDS: String(Math.ceil(rules.finalizeQuietMs / 1000)),
      CHUNK_MAX_RECEIVE_COUNT: String(rules.maxReceiveCount),
      DLQ_MAX_REDRIVES: String(maxRedrives),
      NODE_OPTIONS: '--enable-source-maps',
    };
    environment.DLQ_URLS = keyedVariable(this, QUEUE_ROLES, (role) => props.deadLetterQueues[role].queueUrl);
    environment.DLQ_ARNS = keyedVariable(this, QUEUE_ROLES, (role) => props.deadLetterQueues[role].queueArn);
    return environment;
  }

  /** The queue failed scheduled runs go to, and its alarm on the alerts topic. */
  private failedRuns(props: OperationsFunctionsProps): [sqs.Queue, cloudwatch.Alarm] {
    const queue = new sqs.Queue(this, 'FailedRuns', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter destination of the scheduled sweeper and DLQ triage runs; ' +
        'nothing consumes it automatically, an operator reads it after its alarm.',
    });
    const alarm = new cloudwatch.Alarm(this, 'FailedRunsAlarm', {
      alarmName: `${props.topology.prefix}-scheduled-run-failed`,
      alarmDescription:
        'A scheduled sweeper or DLQ triage run failed (the function threw, or EventBridge could not invoke it). ' +
        'The failed event, with the error, is in the failure queue; the function logs say more.',
      metric: queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new actions.SnsAction(props.alertsTopic));
    return [queue, alarm];
  }
}

/** What the sweeper and DLQ triage may do, and nothing more. */
function grantOperations(
  sweeper: nodejs.NodejsFunction,
  triage: nodejs.NodejsFunction,
  props: OperationsFunctionsProps,
  statusIndexName: string,
): void {
  // Sweeper: finds unfinished jobs on the status index, re-sends chunk and finalize messages,
  // reads the stored document to rebuild a chunk message.
  sweeper.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${props.table.tableArn}/index/${statusIndexName}`],
    }),
  );
  for (const queue of [...LANES, 'finalize'] as const) props.queues[queue].grantSendMessages(sweeper);
  sweeper.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject'],
      resources: [props.resultsBucket.arnForObjects(`${WORK_PREFIX}*`)],
    }),
  );

  // Triage: reads and deletes dead letters, sends them back to their source queues (or
  // starts a message move task), enqueues finalize, publishes alerts.
  for (const role of QUEUE_ROLES) {
    const dlq = props.deadLetterQueues[role];
    dlq.grantConsumeMessages(triage);
    dlq.grant(triage, 'sqs:ChangeMessageVisibility');
    props.queues[role].grantSendMessages(triage);
  }
  triage.addToRolePolicy(
    new iam.PolicyStatement({
      // A move task reads from the DLQ and sends to the source queue as the caller.
      actions: ['sqs:StartMessageMoveTask', 'sqs:ListMessageMoveTasks', 'sqs:CancelMessageMoveTask'],
      resources: QUEUE_ROLES.map((role) => props.deadLetterQueues[role].queueArn),
    }),
  );
  // Explicit actions rather than grantPublish, whose `kms:GenerateDataKey*` wildcard cdk-nag
  // rightly flags: publishing to an SSE-KMS topic needs exactly these two on its key.
  // Triage alerts on dead letters; the sweeper on reviews past their deadline.
  const alertsKey = (props.alertsTopic as sns.Topic).masterKey;
  for (const fn of [triage, sweeper]) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [props.alertsTopic.topicArn] }),
    );
    if (alertsKey) {
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
          resources: [alertsKey.keyArn],
        }),
      );
    }
  }
}
