/**
 * The environment every handler and batch worker reads (lambdas/shared/config.ts), built from
 * the deployed resources and the topology, so the variable names cannot drift from the runtime's.
 */

import { Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { IConstruct } from 'constructs';
import {
  DEFAULT_CEILING_MICROS,
  DEFAULT_MAX_CEILING_MICROS,
  isLane,
  keyed,
  LANE_CHOICES,
  LANES,
  QUEUE_ROLES,
  type RuntimeConfig,
} from '../lambdas/stack-interface.js';
import { checkRange, type NumberRange } from './checks.js';
import { ValidationError } from './errors.js';
import type { ResolvedModelIds } from './model-access.js';
import { checkModelBudgets, type ModelBudgets } from './model-budgets.js';
import { defaultDailySpendPerOwner, defaultMaxJobsPerOwner, type OwnerCapBasis } from './owner-cap.js';
import type { Lane, QueueRole, Topology } from './topology.js';

/** A variable the runtime configuration reads. */
export type RuntimeVariable = keyof RuntimeConfig;

/** Environment variables for the runtime, keyed by the names the runtime reads. */
export type RuntimeEnvironment = Partial<Record<RuntimeVariable, string>>;

/**
 * Runtime tuning. Anything left out keeps the runtime's own default (lambdas/shared/config.ts),
 * so the deployed value and the local one agree unless set here on purpose.
 */
export interface RuntimeTuning {
  /** Clauses grouped into one chunk (one SQS message), 1-200. @default the runtime's (8) */
  readonly chunkClauses?: number;
  /** Largest document accepted at intake, in bytes. @default the runtime's (10 MiB) */
  readonly maxDocumentBytes?: number;
  /** Cost ceiling of a job whose upload names none, in micro-dollars. @default the runtime's ($20) */
  readonly defaultCeilingMicros?: number;
  /**
   * Most jobs of one owner running at once, 0-10000 (0: no cap); intake records a job over it as
   * `queued` until one of the owner's jobs stops. @default derived from the stack's capacity
   * (`defaultMaxJobsPerOwner`: the most chunks one lane works on at once, within what the primary
   * model's requests-per-minute budget answers in a minute)
   */
  readonly maxJobsPerOwner?: number;
  /**
   * The shortest review window an upload may ask for, in hours, 0-720. @default the runtime's (1:
   * `DEFAULT_MIN_REVIEW_HOURS`)
   */
  readonly minReviewHours?: number;
  /**
   * Whether a job's owner (an administrator included) may decide the escalations its playbook
   * raised on it. @default false: only another member of the approver group, or another administrator
   */
  readonly ownersDecideOwnEscalations?: boolean;
  /**
   * The most a job's ceiling may be, in micro-dollars (0.01-100000 dollars): a submission or
   * upload asking for more is refused, naming it. @default the runtime's ($1,000,
   * DEFAULT_MAX_CEILING_MICROS)
   */
  readonly maxCeilingMicros?: number;
  /**
   * Micro-dollars one owner's jobs started on a (UTC) day may spend together, 0 for no cap; a
   * job whose start would pass it waits as `queued`, one that never could is rejected.
   * @default derived from the primary model's budget (`defaultDailySpendPerOwner`: an hour of
   * its tokens-per-minute budget, or of AWS's default quota)
   */
  readonly dailySpendPerOwnerMicros?: number;
  /** Lane of a job whose upload names none. @default the runtime's ('realtime') */
  readonly defaultLane?: Lane;
  /** Model calls in flight at once inside one worker, 1-256. @default the runtime's (16) */
  readonly callConcurrency?: number;
  /** Lease of a chunk claim, 5-3600 s. @default the runtime's (120) */
  readonly leaseSeconds?: number;
  /** Seconds until an unfinished job ends incomplete, at least 60. @default the runtime's (6 h) */
  readonly jobDeadlineSeconds?: number;
  /** Timeout of one Bedrock call in milliseconds, from 100 to below the chunk worker's timeout. @default the runtime's (60 s) */
  readonly modelTimeoutMs?: number;
  /**
   * Per-model tokens- and requests-per-minute budgets every worker shares, by the id Converse is
   * called with: set them from the account's Bedrock quotas for each model (docs/capacity.md).
   * @default none: every model unlimited, concurrency adapting to throttles alone
   */
  readonly modelBudgets?: ModelBudgets;
}

/**
 * Checks tuning against the runtime's own limits and against the topology: a model call must
 * be able to finish inside one chunk worker invocation, and a claim lease must be renewable
 * (the heartbeat runs at a third of it) well before the worker's timeout. Errors are scoped to
 * `scope`, the construct the tuning was given to.
 */
export function validateTuning(scope: IConstruct, tuning: RuntimeTuning, t: Topology): void {
  const workerTimeout = Math.min(...LANES.map((lane) => t.queues[lane].consumerTimeoutSeconds));
  const check = (name: keyof RuntimeTuning, value: number | undefined, range: NumberRange): void => {
    if (value !== undefined) checkRange(scope, `tuning.${name}`, value, range);
  };
  check('chunkClauses', tuning.chunkClauses, { min: 1, max: 200 });
  // Past 2^53 an integer no longer survives the trip through an environment variable.
  const safe = Number.MAX_SAFE_INTEGER;
  check('maxDocumentBytes', tuning.maxDocumentBytes, { min: 1, max: safe });
  check('defaultCeilingMicros', tuning.defaultCeilingMicros, { min: 0, max: safe });
  check('maxCeilingMicros', tuning.maxCeilingMicros, { min: 10_000, max: 100_000_000_000 });
  check('dailySpendPerOwnerMicros', tuning.dailySpendPerOwnerMicros, { min: 0, max: safe });
  const ceiling = tuning.defaultCeilingMicros ?? DEFAULT_CEILING_MICROS;
  const most = tuning.maxCeilingMicros ?? DEFAULT_MAX_CEILING_MICROS;
  if (ceiling > most) {
    throw new ValidationError(
      'BadValue',
      `tuning.defaultCeilingMicros must be at most tuning.maxCeilingMicros (${most}); got ${ceiling}`,
      scope,
    );
  }
  check('callConcurrency', tuning.callConcurrency, { min: 1, max: 256 });
  check('maxJobsPerOwner', tuning.maxJobsPerOwner, { min: 0, max: 10_000 });
  check('minReviewHours', tuning.minReviewHours, { min: 0, max: 720 });
  check('leaseSeconds', tuning.leaseSeconds, { min: 5, max: 3600 });
  check('jobDeadlineSeconds', tuning.jobDeadlineSeconds, { min: 60, max: safe });
  check('modelTimeoutMs', tuning.modelTimeoutMs, { min: 100, max: workerTimeout * 1000 - 1 });
  checkModelBudgets(scope, tuning.modelBudgets ?? {}, (id) => `tuning.modelBudgets['${id}']`);
  if (tuning.defaultLane !== undefined && !isLane(tuning.defaultLane)) {
    throw new ValidationError(
      'BadValue',
      `tuning.defaultLane must be ${LANE_CHOICES}; got '${tuning.defaultLane}'`,
      scope,
    );
  }
}

/** What the stack hands every construct that runs pipeline code. */
export interface PipelineResourcesProps {
  /** Queue names and tuning; the result of `topology()`. */
  readonly topology: Topology;
  readonly table: dynamodb.ITable;
  readonly intakeBucket: s3.IBucket;
  readonly resultsBucket: s3.IBucket;
  /** The work queues by role. */
  readonly queues: Readonly<Record<QueueRole, sqs.IQueue>>;
  readonly alertsTopic: sns.ITopic;
  /**
   * Runtime tuning passed through the environment.
   * @default none: the runtime's defaults apply
   */
  readonly tuning?: RuntimeTuning;
}

/** The resources the runtime environment names. */
export interface RuntimeResources {
  readonly topology: Topology;
  readonly table: dynamodb.ITable;
  readonly intakeBucket: s3.IBucket;
  readonly resultsBucket: s3.IBucket;
  readonly queues: Readonly<Record<QueueRole, sqs.IQueue>>;
  readonly alertsTopic: sns.ITopic;
  readonly models: ResolvedModelIds;
  readonly tuning?: RuntimeTuning;
}

/** The primary model's requests-per-minute budget, as an {@link OwnerCapBasis} field. */
function primaryRequestsPerMinute(
  tuning: RuntimeTuning,
  primary: string,
): Pick<OwnerCapBasis, 'requestsPerMinute'> {
  const rpm = tuning.modelBudgets?.[primary]?.requestsPerMinute;
  return rpm !== undefined ? { requestsPerMinute: rpm } : {};
}

/** The environment of every handler and batch worker, as Lambda and ECS take it. */
export function runtimeEnvironment(r: RuntimeResources): Record<string, string> {
  const tuning = r.tuning ?? {};
  const optional: RuntimeEnvironment = {
    CHUNK_CLAUSES: tuning.chunkClauses?.toString(),
    MAX_DOCUMENT_BYTES: tuning.maxDocumentBytes?.toString(),
    DEFAULT_CEILING_MICROS: tuning.defaultCeilingMicros?.toString(),
    DEFAULT_LANE: tuning.defaultLane,
    MIN_REVIEW_HOURS: tuning.minReviewHours?.toString(),
    MAX_JOBS_PER_OWNER: String(
      tuning.maxJobsPerOwner ??
        defaultMaxJobsPerOwner(r.topology, {
          ...(tuning.chunkClauses !== undefined ? { chunkClauses: tuning.chunkClauses } : {}),
          ...primaryRequestsPerMinute(tuning, r.models.primary),
        }),
    ),
    MAX_CEILING_MICROS: tuning.maxCeilingMicros?.toString(),
    DAILY_SPEND_PER_OWNER_MICROS: String(
      tuning.dailySpendPerOwnerMicros ??
        defaultDailySpendPerOwner(r.models.primary, tuning.modelBudgets?.[r.models.primary]?.tokensPerMinute),
    ),
    CALL_CONCURRENCY: tuning.callConcurrency?.toString(),
    LEASE_SECONDS: tuning.leaseSeconds?.toString(),
    JOB_DEADLINE_SECONDS: tuning.jobDeadlineSeconds?.toString(),
    MODEL_TIMEOUT_MS: tuning.modelTimeoutMs?.toString(),
    MODEL_BUDGETS: tuning.modelBudgets ? JSON.stringify(tuning.modelBudgets) : undefined,
  };
  const env: RuntimeEnvironment = {
    TABLE_NAME: r.table.tableName,
    INTAKE_BUCKET: r.intakeBucket.bucketName,
    RESULTS_BUCKET: r.resultsBucket.bucketName,
    RESULTS_PREFIX: r.topology.buckets.results.prefix,
    QUEUE_URLS: queueUrlsVariable(r.queues),
    ALERTS_TOPIC_ARN: r.alertsTopic.topicArn,
    MODEL_ID: r.models.primary,
    FALLBACK_MODEL_ID: r.models.fallback,
    ...(Object.keys(r.models.perAnalyst).length > 0
      ? { ANALYST_MODELS: JSON.stringify(r.models.perAnalyst) }
      : {}),
    REDELIVERY_BACKOFF_SECONDS: r.topology.redeliveryBackoffSeconds.join(','),
    INTAKE_MAX_RECEIVE_COUNT: String(r.topology.queues.intake.maxReceiveCount),
    ...optional,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * One JSON variable (`QUEUE_URLS`, `DLQ_URLS`, …) holding a value per key of `keys`: the
 * runtime checks it against the same list (lambdas/shared/keyed-json.ts).
 */
export function keyedVariable<K extends string>(
  scope: IConstruct,
  keys: readonly K[],
  value: (key: K) => string | number,
): string {
  return Stack.of(scope).toJsonString(keyed(keys, value));
}

/** `QUEUE_URLS`: every work queue's URL by role. */
export function queueUrlsVariable(queues: Readonly<Record<QueueRole, sqs.IQueue>>): string {
  return keyedVariable(queues.intake, QUEUE_ROLES, (role) => queues[role].queueUrl);
}
