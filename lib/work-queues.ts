import { Duration, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { byRole } from '../lambdas/contracts.js';
import { QUEUE_ROLES, type QueueRole, type QueueSettings } from './topology.js';

/** Properties of {@link WorkQueues}. */
export interface WorkQueuesProps {
  /** Settings of every queue role; take them from `topology().queues`. */
  readonly settings: Readonly<Record<QueueRole, QueueSettings>>;
}

/** A work queue and the dead-letter queue it redrives to. */
export interface QueuePair {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;
type Range = readonly [min: number, max: number];
type LimitedSetting =
  | 'visibilityTimeoutSeconds'
  | 'retentionSeconds'
  | 'dlqRetentionSeconds'
  | 'maxReceiveCount'
  | 'receiveWaitSeconds';

/** SQS limits: 0 s-12 h visibility, 60 s-14 d retention, 1-1000 receives, 0-20 s long polling. */
const LIMITS = {
  visibilityTimeoutSeconds: [0, 43_200],
  retentionSeconds: [60, 1_209_600],
  dlqRetentionSeconds: [60, 1_209_600],
  maxReceiveCount: [1, 1_000],
  receiveWaitSeconds: [0, 20],
} as const satisfies Record<LimitedSetting, Range>;

function validate(role: QueueRole, q: QueueSettings | undefined): QueueSettings {
  if (!q) {
    throw new Error(
      `WorkQueues settings lack the '${role}' queue; every role of ${QUEUE_ROLES.join(', ')} is needed`,
    );
  }
  for (const name of [q.name, q.dlqName]) {
    if (!QUEUE_NAME.test(name)) {
      throw new Error(
        `WorkQueues '${role}' queue name must be 1-80 characters of A-Z, a-z, 0-9, '_' and '-'; got '${name}'`,
      );
    }
  }
  for (const [key, [min, max]] of Object.entries(LIMITS) as [LimitedSetting, Range][]) {
    const value = q[key];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new Error(`WorkQueues '${role}' ${key} must be an integer from ${min} to ${max}; got ${value}`);
    }
  }
  return q;
}

/**
 * Every work queue of the pipeline with its dead-letter queue: intake, realtime, batch and
 * finalize. Encrypted with SQS-managed keys and TLS-only.
 *
 * Each DLQ keeps messages 14 days and allows redrive from its own source queue only, which is
 * also what the console's "Start DLQ redrive" uses to find the way back. The source queue's
 * ARN is built from its fixed name rather than referenced, because the queue already refers
 * to its DLQ and CloudFormation forbids the cycle.
 */
export class WorkQueues extends Construct {
  /** Work queues by role. */
  readonly queues: Readonly<Record<QueueRole, sqs.Queue>>;
  /** Dead-letter queues by role. */
  readonly deadLetterQueues: Readonly<Record<QueueRole, sqs.Queue>>;

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    const pairs = byRole((role) => this.createPair(role, validate(role, props.settings[role])));
    this.queues = byRole((role) => pairs[role].queue);
    this.deadLetterQueues = byRole((role) => pairs[role].deadLetterQueue);
  }

  /** The queue and DLQ of one role. */
  pair(role: QueueRole): QueuePair {
    return { queue: this.queues[role], deadLetterQueue: this.deadLetterQueues[role] };
  }

  private createPair(role: QueueRole, q: QueueSettings): QueuePair {
    const scope = new Construct(this, role);
    const sourceQueueArn = Stack.of(this).formatArn({ service: 'sqs', resource: q.name });
    const deadLetterQueue = new sqs.Queue(scope, 'DeadLetterQueue', {
      queueName: q.dlqName,
      retentionPeriod: Duration.seconds(q.dlqRetentionSeconds),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      redriveAllowPolicy: {
        redrivePermission: sqs.RedrivePermission.BY_QUEUE,
        sourceQueues: [sqs.Queue.fromQueueArn(scope, 'Source', sourceQueueArn)],
      },
    });
    const queue = new sqs.Queue(scope, 'Queue', {
      queueName: q.name,
      visibilityTimeout: Duration.seconds(q.visibilityTimeoutSeconds),
      retentionPeriod: Duration.seconds(q.retentionSeconds),
      receiveMessageWaitTime: Duration.seconds(q.receiveWaitSeconds),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: q.maxReceiveCount },
    });
    return { queue, deadLetterQueue };
  }
}
