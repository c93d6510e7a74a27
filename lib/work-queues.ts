import { Duration, Stack } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IConstruct } from 'constructs';
import { byRole } from '../lambdas/stack-interface.js';
import { checkPattern, checkRange, type NumberRange } from './checks.js';
import { ValidationError } from './errors.js';
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
type LimitedSetting =
  | 'visibilityTimeoutSeconds'
  | 'retentionSeconds'
  | 'dlqRetentionSeconds'
  | 'maxReceiveCount'
  | 'receiveWaitSeconds';

/** SQS limits: 0 s-12 h visibility, 60 s-14 d retention, 1-1000 receives, 0-20 s long polling. */
const LIMITS = {
  visibilityTimeoutSeconds: { min: 0, max: 43_200 },
  retentionSeconds: { min: 60, max: 1_209_600 },
  dlqRetentionSeconds: { min: 60, max: 1_209_600 },
  maxReceiveCount: { min: 1, max: 1_000 },
  receiveWaitSeconds: { min: 0, max: 20 },
} as const satisfies Record<LimitedSetting, NumberRange>;

function validate(scope: IConstruct, role: QueueRole, q: QueueSettings | undefined): QueueSettings {
  if (!q) {
    throw new ValidationError(
      'MissingQueue',
      `WorkQueues settings lack the '${role}' queue; every role of ${QUEUE_ROLES.join(', ')} is needed`,
      scope,
    );
  }
  for (const name of [q.name, q.dlqName]) {
    checkPattern(
      scope,
      `WorkQueues '${role}' queue name`,
      name,
      QUEUE_NAME,
      "be 1-80 characters of A-Z, a-z, 0-9, '_' and '-'",
    );
  }
  for (const [key, range] of Object.entries(LIMITS) as [LimitedSetting, NumberRange][]) {
    checkRange(scope, `WorkQueues '${role}' ${key}`, q[key], range);
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
    const pairs = byRole((role) => this.createPair(role, validate(this, role, props.settings[role])));
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
