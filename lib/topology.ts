/**
 * The resource topology of clause-review: the one place that says which queues, table,
 * buckets and topics exist and how they are tuned. The CDK constructs and the local
 * provisioner both read it, so a deployed stack and a local emulator cannot drift apart.
 *
 * This module is plain data and pure functions: it imports nothing from aws-cdk-lib or
 * the AWS SDK, so runtime code, the CLI and tests can load it cheaply. Its range checks go
 * through number-range.ts, the wording `checkRange` (checks.ts) gives every construct prop.
 */

import type { IConstruct } from 'constructs';
import {
  LANE_COMPUTE,
  LANES,
  type Lane,
  OWNER_INDEX,
  QUEUE_ROLES,
  type QueueRole,
} from '../lambdas/stack-interface.js';
import { ValidationError } from './errors.js';
import { describeRange, type NumberRange, rangeViolation } from './number-range.js';

export { LANES, type Lane, QUEUE_ROLES, type QueueRole };

/** How often the deployed sweeper runs (its EventBridge schedule), in minutes, unless tuned. */
export const SWEEP_EVERY_MINUTES = 1;

/** Settings of one work queue and its dead-letter queue. */
export interface QueueSettings {
  readonly role: QueueRole;
  /** Queue name (the DLQ adds `-dlq`). */
  readonly name: string;
  readonly dlqName: string;
  /**
   * Visibility timeout. For a Lambda consumer it is at least six times the function's
   * timeout, as AWS advises for SQS event sources, so a message is not handed to a second
   * invocation while the first can still be running.
   */
  readonly visibilityTimeoutSeconds: number;
  /** Timeout of the consumer (Lambda function timeout, or a Fargate worker's chunk budget). */
  readonly consumerTimeoutSeconds: number;
  /** Receives before SQS moves a message to the DLQ (tier-2 retry budget). */
  readonly maxReceiveCount: number;
  readonly retentionSeconds: number;
  readonly dlqRetentionSeconds: number;
  /** Long polling wait for pollers. */
  readonly receiveWaitSeconds: number;
  /** Messages a Lambda event source hands to one invocation. */
  readonly batchSize: number;
  /** Upper bound of concurrent Lambda invocations for this queue (event source maximum concurrency). */
  readonly maxConcurrency: number;
  /**
   * Age of the queue's oldest message above which an alarm goes off: longer than a healthy
   * message ever waits here, tier-2 backoffs and a busy backlog included.
   */
  readonly oldestMessageAlarmSeconds: number;
}

/** Key layout of the single state table. */
export interface TableSettings {
  readonly name: string;
  readonly partitionKey: 'pk';
  readonly sortKey: 'sk';
  /** Epoch-seconds attribute DynamoDB TTL deletes items by. */
  readonly ttlAttribute: 'expiresAt';
  readonly indexes: readonly GlobalIndexSettings[];
}

/** A global secondary index of the state table. */
export interface GlobalIndexSettings {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** What the index is for, kept next to it so readers need not guess. */
  readonly purpose: string;
}

/** Buckets and the key prefixes inside them. */
export interface BucketSettings {
  readonly intake: { readonly name: string; readonly prefix: string; readonly versioned: true };
  readonly results: { readonly name: string; readonly prefix: string };
}

/** S3 event notification from the intake bucket to the intake queue. */
export interface IntakeNotificationSettings {
  readonly events: readonly string[];
  readonly prefix: string;
}

/** The whole topology. */
export interface Topology {
  /** Prefix of every resource name; unique per deployment (and per test run locally). */
  readonly prefix: string;
  readonly queues: Readonly<Record<QueueRole, QueueSettings>>;
  readonly table: TableSettings;
  readonly buckets: BucketSettings;
  readonly intakeNotification: IntakeNotificationSettings;
  readonly alertsTopicName: string;
  /** Tier-2 visibility backoff after tier-1 exhaustion, by receive count (1st, 2nd, 3rd and later). */
  readonly redeliveryBackoffSeconds: readonly number[];
}

/** Options that shape a topology. */
export interface TopologyOptions {
  /**
   * Resource name prefix: lower-case letters, digits and hyphens, 3–24 characters, starting
   * with a letter (bucket names derive from it, and S3 allows 63 characters in all).
   * @default 'clause-review'
   */
  readonly prefix?: string;
  /**
   * Suffix that makes bucket names globally unique (S3 bucket names are global), such as
   * `${account}-${region}` when deployed. Locally none is needed.
   * @default '' (none)
   */
  readonly bucketSuffix?: string;
  /** @default 3 */
  readonly chunkMaxReceiveCount?: number;
  /** @default [30, 120, 300] */
  readonly redeliveryBackoffSeconds?: readonly number[];
  /**
   * Concurrency of a lane's consumer, over the lane's own `maxConcurrency`: concurrent Lambda
   * invocations of a Lambda-drained lane, tasks of a poller lane.
   * @default each lane's setting below
   */
  readonly laneConcurrency?: Readonly<Partial<Record<Lane, number>>>;
}

/**
 * Raised when topology options are out of range; the message names the allowed range and the
 * value given. Unscoped when `topology()` is called on its own; the stack rethrows it scoped to
 * itself, with the first as the cause.
 */
export class TopologyError extends ValidationError {
  override readonly name = 'TopologyError';

  constructor(message: string, options?: { scope?: IConstruct; cause?: unknown }) {
    super('BadTopology', message, options?.scope, options);
  }
}

/** True for a {@link TopologyError}. */
export function isTopologyError(error: unknown): error is TopologyError {
  return error instanceof TopologyError;
}

/** Throws a {@link TopologyError} when `value` of `option` is outside `range`. */
function checkOption(option: string, value: number, range: NumberRange): number {
  const problem = rangeViolation(option, value, range);
  if (problem !== undefined) throw new TopologyError(problem);
  return value;
}

/** Redelivery delays SQS can apply: a message's visibility timeout is at most 12 h. */
const BACKOFF_RANGE: NumberRange = { min: 0, max: 43_200, why: "SQS's 12 h limit" };

const DAY = 86_400;
const PREFIX_PATTERN = /^[a-z][a-z0-9-]{2,23}$/;

function queue(
  prefix: string,
  role: QueueRole,
  tuning: Omit<QueueSettings, 'role' | 'name' | 'dlqName' | 'retentionSeconds' | 'dlqRetentionSeconds'>,
): QueueSettings {
  return {
    role,
    name: `${prefix}-${role}`,
    dlqName: `${prefix}-${role}-dlq`,
    // Work queues keep a message four days (the SQS default); DLQs keep the maximum, 14 days,
    // so an operator back from a long weekend still finds every dead letter to triage.
    retentionSeconds: 4 * DAY,
    dlqRetentionSeconds: 14 * DAY,
    ...tuning,
  };
}

/**
 * Builds the topology for a prefix.
 *
 * @example
 * const t = topology({ prefix: 'cr-test-1a2b' });
 * t.queues.realtime.name; // 'cr-test-1a2b-realtime'
 */
export function topology(options: TopologyOptions = {}): Topology {
  const prefix = options.prefix ?? 'clause-review';
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new TopologyError(
      `prefix must be 3-24 characters of a-z, 0-9 and '-', starting with a letter; got '${prefix}'`,
    );
  }
  const chunkReceives = checkOption('chunkMaxReceiveCount', options.chunkMaxReceiveCount ?? 3, {
    min: 1,
    max: 1000,
  });
  const backoff = options.redeliveryBackoffSeconds ?? [30, 120, 300];
  if (backoff.length === 0) {
    throw new TopologyError(
      `redeliveryBackoffSeconds must name at least one delay, each ${describeRange(BACKOFF_RANGE)}; got []`,
    );
  }
  for (const [i, seconds] of backoff.entries()) {
    checkOption(`redeliveryBackoffSeconds[${i}]`, seconds, BACKOFF_RANGE);
  }
  const suffix = options.bucketSuffix ? `-${options.bucketSuffix}` : '';
  const concurrency = laneConcurrencyOf(options);
  return {
    prefix,
    queues: {
      intake: queue(prefix, 'intake', {
        consumerTimeoutSeconds: 60,
        visibilityTimeoutSeconds: 360,
        maxReceiveCount: 3,
        receiveWaitSeconds: 20,
        batchSize: 5,
        maxConcurrency: 5,
        // Intake takes seconds per upload; a quarter of an hour means it is stuck or failing.
        oldestMessageAlarmSeconds: 900,
      }),
      realtime: queue(prefix, 'realtime', {
        consumerTimeoutSeconds: 300,
        visibilityTimeoutSeconds: 1800,
        maxReceiveCount: chunkReceives,
        receiveWaitSeconds: 20,
        batchSize: 1,
        maxConcurrency: concurrency.realtime ?? 20,
        // Three receives with their 30 s / 2 min / 5 min backoffs and 5 min runs stay under 30 min.
        oldestMessageAlarmSeconds: 1800,
      }),
      // The batch lane is drained by long-running Fargate pollers that heartbeat the
      // visibility of what they hold, so its timeout only has to cover one heartbeat gap.
      batch: queue(prefix, 'batch', {
        consumerTimeoutSeconds: 300,
        visibilityTimeoutSeconds: 300,
        maxReceiveCount: chunkReceives,
        receiveWaitSeconds: 20,
        batchSize: 1,
        maxConcurrency: concurrency.batch ?? LANE_COMPUTE.batch.maxTasks,
        // Bulk work queues by design; two hours means the lane is not draining.
        oldestMessageAlarmSeconds: 7200,
      }),
      finalize: queue(prefix, 'finalize', {
        consumerTimeoutSeconds: 120,
        visibilityTimeoutSeconds: 720,
        maxReceiveCount: 5,
        receiveWaitSeconds: 20,
        batchSize: 1,
        maxConcurrency: 2,
        oldestMessageAlarmSeconds: 900,
      }),
    },
    table: {
      name: `${prefix}-state`,
      partitionKey: 'pk',
      sortKey: 'sk',
      ttlAttribute: 'expiresAt',
      indexes: [
        {
          name: 'byStatus',
          partitionKey: 'gsi1pk',
          sortKey: 'gsi1sk',
          purpose:
            'jobs by status (STATUS#<status> / <updatedAt>#<jobId>), for the sweeper and `status` listings',
        },
        {
          name: OWNER_INDEX,
          partitionKey: 'gsi2pk',
          sortKey: 'gsi2sk',
          purpose:
            "jobs by owner (OWNER#<owner> / <createdAt>#<jobId>), for `GET /jobs`: a caller's own jobs, newest first, without a Scan",
        },
      ],
    },
    buckets: {
      intake: { name: `${prefix}-intake${suffix}`, prefix: 'incoming/', versioned: true },
      results: { name: `${prefix}-results${suffix}`, prefix: 'reports/' },
    },
    intakeNotification: { events: ['s3:ObjectCreated:*'], prefix: 'incoming/' },
    alertsTopicName: `${prefix}-alerts`,
    redeliveryBackoffSeconds: backoff,
  };
}

/** The lane concurrency options, each a positive integer (the consumers check their own limits). */
function laneConcurrencyOf(options: TopologyOptions): Partial<Record<Lane, number>> {
  const given = options.laneConcurrency ?? {};
  for (const [lane, n] of Object.entries(given)) {
    if (!(LANES as readonly string[]).includes(lane)) {
      throw new TopologyError(`laneConcurrency names lanes (${LANES.join(', ')}); got '${lane}'`);
    }
    if (n !== undefined) checkOption(`laneConcurrency.${lane}`, n, { min: 1 });
  }
  return given;
}

/** The queue a lane's chunk messages go to. */
export function laneQueue(t: Topology, lane: Lane): QueueSettings {
  return t.queues[lane];
}

/**
 * The redrive-allow policy of a DLQ: only its own source queue may send to it, which is
 * also what the console's "Start DLQ redrive" needs to find the way back.
 */
export function redriveAllowPolicy(sourceQueueArn: string): {
  redrivePermission: 'byQueue';
  sourceQueueArns: string[];
} {
  return { redrivePermission: 'byQueue', sourceQueueArns: [sourceQueueArn] };
}
