import { randomUUID } from 'node:crypto';
import { BedrockClient } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type PanelModels, panelModelIds } from '../core/analysts/index.js';
import type { FinalizeDeps } from '../core/finalize/finalize.js';
import type { IntakeDeps } from '../core/intake/intake.js';
import { LifecycleGuard } from '../core/model-lifecycle.js';
import { ShapeGuard } from '../core/model-shape-guard.js';
import { ModelBudgets } from '../core/state/model-budgets.js';
import { ModelLimits } from '../core/state/model-limits.js';
import { resendConflicts } from '../core/state/transact.js';
import { LimiterRegistry } from '../core/worker/limiter-registry.js';
import type { WorkerDeps } from '../core/worker/process-chunk.js';
import { SharedLimits } from '../core/worker/shared-limits.js';
import { TokenBudgets } from '../core/worker/token-budget.js';
import { type AwsConnection, clientConfig } from './aws-clients.js';
import { panelModelsOf, type RuntimeConfig } from './config.js';

/** The SDK clients a process uses, created once. */
export interface RuntimeClients {
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  readonly bedrock: BedrockRuntimeClient;
  /** Bedrock's control plane: the model lifecycle guard reads models and inference profiles. */
  readonly bedrockControl: BedrockClient;
}

/**
 * How the Bedrock runtime client holds its connections. The generated client sets
 * `disableConcurrentStreams: true` on its HTTP/2 handler, which opens an isolated session for
 * every request and closes it after the answer, so each Converse call would pay a TCP and TLS
 * handshake before the model sees it (https://github.com/aws/aws-sdk-js-v3/issues/8279; the
 * pooling defect that setting worked around is fixed in @smithy/node-http-handler 4.6.0,
 * https://github.com/aws/aws-sdk-js-v3/issues/7936). Event-stream operations keep their
 * isolated sessions whatever this says; unary calls share pooled sessions, each carrying up
 * to 50 streams at once (a new session opens beyond that).
 */
export const BEDROCK_CONNECTIONS = { disableConcurrentStreams: false, maxConcurrentStreams: 50 } as const;

/**
 * Creates the process's SDK clients. Bedrock's own SDK retries are off (`maxAttempts: 1`):
 * the worker's tier-1 retry owns backoff and the fallback model, and a hidden second layer
 * of retries would multiply attempts and blur the accounting.
 */
export function createClients(
  connection: AwsConnection & {
    bedrockEndpoint?: string;
    /** Sockets per client; the SDK's 50 is too few when one process runs many invocations. */
    maxSockets?: number;
  } = {},
): RuntimeClients {
  const base = clientConfig(connection);
  const { forcePathStyle, ...config } = base;
  const common = connection.maxSockets
    ? {
        ...config,
        requestHandler: {
          httpAgent: { keepAlive: true, maxSockets: connection.maxSockets },
          httpsAgent: { keepAlive: true, maxSockets: connection.maxSockets },
        },
      }
    : config;
  const dynamodb = resendConflicts(new DynamoDBClient(common));
  return {
    db: DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } }),
    sqs: new SQSClient(common),
    s3: new S3Client({ ...common, ...(forcePathStyle ? { forcePathStyle } : {}) }),
    bedrock: new BedrockRuntimeClient({
      ...config,
      ...(connection.bedrockEndpoint ? { endpoint: connection.bedrockEndpoint } : {}),
      maxAttempts: 1,
      requestHandler: BEDROCK_CONNECTIONS,
    }),
    bedrockControl: new BedrockClient({
      ...config,
      ...(connection.bedrockEndpoint ? { endpoint: connection.bedrockEndpoint } : {}),
    }),
  };
}

/** The lifecycle guard of a process, on its control-plane client. */
export function lifecycleGuard(clients: RuntimeClients): LifecycleGuard {
  return new LifecycleGuard(clients.bedrockControl, () => clients.bedrockControl.config.region());
}

/** The check of the workers' request against each model, asked once by the stack and recorded in its table. */
export function shapeGuard(
  config: RuntimeConfig,
  clients: RuntimeClients,
  log?: (message: string, fields: Record<string, unknown>) => void,
): ShapeGuard {
  return new ShapeGuard(clients.bedrock, clients.db, config.TABLE_NAME, panelModelsOf(config), Date.now, log);
}

/** Worker dependencies from the runtime configuration. */
export function workerDeps(
  config: RuntimeConfig,
  clients: RuntimeClients,
  extra: Partial<WorkerDeps> = {},
): WorkerDeps {
  const workerId = `${process.env.AWS_LAMBDA_LOG_STREAM_NAME ?? process.env.HOSTNAME ?? 'worker'}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const models = panelModelsOf(config);
  const limiters = extra.limiters ?? processLimiters(config, clients, workerId, models, extra);
  return {
    db: clients.db,
    sqs: clients.sqs,
    bedrock: clients.bedrock,
    tableName: config.TABLE_NAME,
    finalizeQueueUrl: config.QUEUE_URLS.finalize,
    workerId,
    leaseMs: config.LEASE_SECONDS * 1000,
    callConcurrency: config.CALL_CONCURRENCY,
    modelTimeoutMs: config.MODEL_TIMEOUT_MS,
    redeliveryBackoffSeconds: config.REDELIVERY_BACKOFF_SECONDS,
    models,
    limiters,
    // Per-minute budgets per model, leased from the state table by every process; none unless configured.
    ...(Object.keys(config.MODEL_BUDGETS).length > 0
      ? {
          budgets: new TokenBudgets(config.MODEL_BUDGETS, {
            store: new ModelBudgets(clients.db, config.TABLE_NAME),
            ...(extra.log ? { log: extra.log } : {}),
          }),
        }
      : {}),
    ...extra,
  };
}

/**
 * The process's limiters: one per model for the whole process, so what it learns outlives a
 * chunk, and one limit per model for every process, so what the fleet learned holds for a new
 * one. The primary model's limiter joins the shared limit at once, so that its first report
 * (a limiter grants nothing before it) goes out as the process starts, not in front of its
 * first call.
 */
function processLimiters(
  config: RuntimeConfig,
  clients: RuntimeClients,
  workerId: string,
  models: PanelModels,
  extra: Partial<WorkerDeps>,
): LimiterRegistry {
  const limiters = new LimiterRegistry({
    initial: config.LIMITER_INITIAL,
    max: config.LIMITER_MAX,
    windowMs: config.LIMITER_WINDOW_MS,
    p99TargetMs: config.MODEL_TIMEOUT_MS / 2,
    ...(extra.metrics ? { onWindow: (window) => extra.metrics?.limiter(window) } : {}),
    sharing: new SharedLimits({
      limits: new ModelLimits(clients.db, config.TABLE_NAME),
      workerId,
      initial: config.LIMITER_INITIAL,
      min: 1,
      max: config.LIMITER_MAX,
      staleMs: 3 * config.LIMITER_WINDOW_MS,
      ...(extra.log ? { log: extra.log } : {}),
    }),
  });
  limiters.for(models.primary);
  return limiters;
}

/** Intake dependencies from the runtime configuration. */
export function intakeDeps(
  config: RuntimeConfig,
  clients: RuntimeClients,
  extra: Partial<IntakeDeps> = {},
): IntakeDeps {
  return {
    db: clients.db,
    s3: clients.s3,
    sqs: clients.sqs,
    tableName: config.TABLE_NAME,
    resultsBucket: config.RESULTS_BUCKET,
    laneQueueUrls: config.QUEUE_URLS,
    intakeQueueUrl: config.QUEUE_URLS.intake,
    chunkClauses: config.CHUNK_CLAUSES,
    maxDocumentBytes: config.MAX_DOCUMENT_BYTES,
    parseRetry: {
      maxReceiveCount: config.INTAKE_MAX_RECEIVE_COUNT,
      backoffSeconds: config.REDELIVERY_BACKOFF_SECONDS,
    },
    defaultCeilingMicros: config.DEFAULT_CEILING_MICROS,
    defaultLane: config.DEFAULT_LANE,
    minReviewHours: config.MIN_REVIEW_HOURS,
    jobDeadlineSeconds: config.JOB_DEADLINE_SECONDS,
    ...(config.MAX_JOBS_PER_OWNER > 0 ? { maxJobsPerOwner: config.MAX_JOBS_PER_OWNER } : {}),
    ...(config.DAILY_SPEND_PER_OWNER_MICROS > 0
      ? { dailySpendPerOwnerMicros: config.DAILY_SPEND_PER_OWNER_MICROS }
      : {}),
    maxCeilingMicros: config.MAX_CEILING_MICROS,
    models: panelModelsOf(config),
    ...(config.API_ROLE_ID ? { apiRoleId: config.API_ROLE_ID } : {}),
    ...(config.PLACEHOLDER_PRINCIPAL_ID ? { placeholderPrincipalId: config.PLACEHOLDER_PRINCIPAL_ID } : {}),
    ...extra,
  };
}

/** Finalize dependencies from the runtime configuration. */
export function finalizeDeps(
  config: RuntimeConfig,
  clients: RuntimeClients,
  extra: Partial<FinalizeDeps> = {},
): FinalizeDeps {
  return {
    db: clients.db,
    s3: clients.s3,
    tableName: config.TABLE_NAME,
    resultsBucket: config.RESULTS_BUCKET,
    resultsPrefix: config.RESULTS_PREFIX,
    // A job that ends gives back its owner's slot, and finalize starts the owner's next queued job.
    starter: { sqs: clients.sqs, laneQueueUrls: config.QUEUE_URLS },
    ...extra,
  };
}

/**
 * Logs what the lifecycle guard finds about the configured models: an error for a model
 * Bedrock no longer serves, a warning for a legacy one. Never throws: a worker keeps working
 * (and its calls say the rest) when the control plane cannot be asked.
 */
export async function reportModelLifecycle(
  guard: Pick<LifecycleGuard, 'check'>,
  models: PanelModels,
  log: {
    error(m: string, f: Record<string, unknown>): void;
    warn(m: string, f: Record<string, unknown>): void;
  },
): Promise<void> {
  try {
    for (const v of await guard.check(panelModelIds(models))) {
      if (v.level === 'error') log.error('model-lifecycle', { ...v });
      else if (v.level === 'warning') log.warn('model-lifecycle', { ...v });
    }
  } catch (error) {
    log.warn('model-lifecycle-unchecked', { error: (error as Error).message });
  }
}
