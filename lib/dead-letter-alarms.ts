import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { checkRange } from './checks.js';
import { QUEUE_ROLES, type QueueRole, type QueueSettings } from './topology.js';

/** Properties of {@link DeadLetterAlarms}. */
export interface DeadLetterAlarmsProps {
  /** The dead-letter queues by role. */
  readonly deadLetterQueues: Readonly<Record<QueueRole, sqs.IQueue>>;
  /** Queue settings by role (the alarm is named after the DLQ); take them from `topology().queues`. */
  readonly settings: Readonly<Record<QueueRole, QueueSettings>>;
  /** Where the alarms notify. */
  readonly topic: sns.ITopic;
  /**
   * Messages in a DLQ that raise its alarm.
   * @default 1
   */
  readonly threshold?: number;
  /**
   * Period over which the most messages visible is compared with the threshold (1-60 minutes).
   * @default Duration.minutes(1)
   */
  readonly period?: Duration;
  /**
   * End of each alarm's name, after the DLQ name.
   * @default 'not-empty'
   */
  readonly alarmNameSuffix?: string;
}

/**
 * One alarm per dead-letter queue, raised as soon as a message lands there and notifying the
 * alerts topic. DLQ triage alerts too; this is the backstop that still fires when triage
 * itself is down, so a dead letter is never silent.
 */
export class DeadLetterAlarms extends Construct {
  readonly alarms: Readonly<Record<QueueRole, cloudwatch.Alarm>>;

  constructor(scope: Construct, id: string, props: DeadLetterAlarmsProps) {
    super(scope, id);
    const threshold = checkRange(this, 'DeadLetterAlarms threshold', props.threshold ?? 1, { min: 1 });
    const period = props.period ?? Duration.minutes(1);
    checkRange(this, 'DeadLetterAlarms period', period.toMinutes({ integral: false }), {
      min: 1,
      max: 60,
      unit: 'minutes',
    });
    const suffix = props.alarmNameSuffix ?? 'not-empty';
    const action = new actions.SnsAction(props.topic);
    const entries = QUEUE_ROLES.map((role) => {
      const settings = props.settings[role];
      const alarm = new cloudwatch.Alarm(this, role, {
        alarmName: `${settings.dlqName}-${suffix}`,
        alarmDescription:
          `Messages reached the ${role} dead-letter queue ${settings.dlqName}. DLQ triage classifies ` +
          'them, redrives the retryable ones and marks the rest dead with the reason.',
        metric: props.deadLetterQueues[role].metricApproximateNumberOfMessagesVisible({
          period,
          statistic: 'Maximum',
        }),
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      return [role, alarm] as const;
    });
    this.alarms = Object.fromEntries(entries) as Record<QueueRole, cloudwatch.Alarm>;
  }
}
