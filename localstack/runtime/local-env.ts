import {
  DEFAULT_CEILING_MICROS,
  DEFAULT_MAX_CEILING_MICROS,
  type Lane,
} from '../../lambdas/core/lanes-and-limits.js';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { defaultDailySpendPerOwner, defaultMaxJobsPerOwner } from '../../lib/owner-cap.js';
import { topology } from '../../lib/topology.js';
import { LOCAL_REGION } from '../aws-clients.js';
import type { ProvisionedResources } from '../provision.js';

/** Settings of a local run that are not part of the topology. */
export interface LocalRunSettings {
  readonly chunkClauses: number;
  readonly callConcurrency: number;
  readonly leaseSeconds: number;
  readonly redeliveryBackoffSeconds: readonly number[];
  readonly modelTimeoutMs: number;
  readonly defaultCeilingMicros: number;
  readonly defaultLane: Lane;
  readonly maxDocumentBytes: number;
  /** Most jobs of one owner running at once; 0: no cap (`MAX_JOBS_PER_OWNER`). @default the stack's */
  readonly maxJobsPerOwner: number;
  /**
   * Micro-dollars one owner's jobs started on a (UTC) day may spend; 0: no cap
   * (`DAILY_SPEND_PER_OWNER_MICROS`). @default the stack's, for the default primary model
   */
  readonly dailySpendPerOwnerMicros: number;
  /** The most a job's ceiling may be, micro-dollars (`MAX_CEILING_MICROS`). @default the stack's */
  readonly maxCeilingMicros: number;
  /**
   * The adaptive limiter's starting point per model. The realtime lane's invocations share
   * one process here (in Lambda each has its own), so it starts where they would together.
   */
  readonly limiterInitial: number;
  /** The most the adaptive limiter allows per model (`LIMITER_MAX`). @default the runtime's */
  readonly limiterMax?: number;
  /** Per-model per-minute budgets, as `MODEL_BUDGETS` holds them (JSON). @default none: unlimited */
  readonly modelBudgets?: string;
  /** The shortest review an upload may ask for, in hours (`MIN_REVIEW_HOURS`). @default the stack's, 1 */
  readonly minReviewHours?: number;
}

/** Defaults for local runs: short leases and backoffs so that recovery is seen in seconds. */
export const LOCAL_RUN_DEFAULTS: LocalRunSettings = {
  chunkClauses: 8,
  callConcurrency: 16,
  leaseSeconds: 20,
  redeliveryBackoffSeconds: [1, 2, 4],
  modelTimeoutMs: 15_000,
  defaultCeilingMicros: DEFAULT_CEILING_MICROS,
  defaultLane: 'realtime',
  maxDocumentBytes: 10 * 1024 * 1024,
  // The cap a deployed stack gets by default, from the same topology.
  maxJobsPerOwner: defaultMaxJobsPerOwner(topology()),
  dailySpendPerOwnerMicros: defaultDailySpendPerOwner(PRIMARY_MODEL_ID),
  maxCeilingMicros: DEFAULT_MAX_CEILING_MICROS,
  limiterInitial: 64,
  // A local run keeps the models within the budgets its own environment names, as a deployed stack does.
  ...(process.env.MODEL_BUDGETS ? { modelBudgets: process.env.MODEL_BUDGETS } : {}),
};

/**
 * The environment a deployed function would get, pointed at the emulator and the Bedrock
 * stand-in. Worker child processes run with it, and `loadConfig` reads it unchanged.
 */
export function localEnvironment(
  awsEndpoint: string,
  bedrockEndpoint: string,
  resources: ProvisionedResources,
  settings: LocalRunSettings,
): Record<string, string> {
  return {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL: awsEndpoint,
    // The SDK's service-specific endpoint variable wins over AWS_ENDPOINT_URL.
    AWS_ENDPOINT_URL_BEDROCK_RUNTIME: bedrockEndpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: resources.tableName,
    INTAKE_BUCKET: resources.intakeBucket,
    RESULTS_BUCKET: resources.resultsBucket,
    RESULTS_PREFIX: resources.resultsPrefix,
    QUEUE_URLS: JSON.stringify(resources.queueUrls),
    ALERTS_TOPIC_ARN: resources.alertsTopicArn,
    // LocalStack writes this one principal into every S3 event, whoever uploaded
    // (localstack/services/s3/notifications.py: "TODO: use the real one?"); moto writes none.
    PLACEHOLDER_PRINCIPAL_ID: 'AIDAJDPLRKLG7UEXAMPLE',
    CHUNK_CLAUSES: String(settings.chunkClauses),
    CALL_CONCURRENCY: String(settings.callConcurrency),
    LEASE_SECONDS: String(settings.leaseSeconds),
    REDELIVERY_BACKOFF_SECONDS: settings.redeliveryBackoffSeconds.join(','),
    MODEL_TIMEOUT_MS: String(settings.modelTimeoutMs),
    DEFAULT_CEILING_MICROS: String(settings.defaultCeilingMicros),
    DEFAULT_LANE: settings.defaultLane,
    MAX_DOCUMENT_BYTES: String(settings.maxDocumentBytes),
    MAX_JOBS_PER_OWNER: String(settings.maxJobsPerOwner),
    DAILY_SPEND_PER_OWNER_MICROS: String(settings.dailySpendPerOwnerMicros),
    MAX_CEILING_MICROS: String(settings.maxCeilingMicros),
    LIMITER_INITIAL: String(settings.limiterInitial),
    ...(settings.limiterMax !== undefined ? { LIMITER_MAX: String(settings.limiterMax) } : {}),
    LIMITER_WINDOW_MS: '2000',
    // Nobody reads metrics on the emulator, and moto's GetMetricData ignores namespaces, so
    // local batch workers would mix their figures into tests that check PutMetricData.
    METRICS_FLUSH_SECONDS: '0',
    ...(settings.modelBudgets ? { MODEL_BUDGETS: settings.modelBudgets } : {}),
    ...(settings.minReviewHours !== undefined ? { MIN_REVIEW_HOURS: String(settings.minReviewHours) } : {}),
  };
}
