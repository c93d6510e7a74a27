import { z } from 'zod';
import type { QueueRole } from '../core/contracts.js';
import { ConfigError, loadConfig, type RuntimeConfig } from './config.js';

const schema = z.object({
  INTAKE_QUEUE_URL: z.string().url(),
  INTAKE_DLQ_URL: z.string().url(),
  REALTIME_DLQ_URL: z.string().url(),
  BATCH_DLQ_URL: z.string().url(),
  FINALIZE_DLQ_URL: z.string().url(),
  /** DLQ ARNs, for StartMessageMoveTask. */
  INTAKE_DLQ_ARN: z.string().min(1),
  REALTIME_DLQ_ARN: z.string().min(1),
  BATCH_DLQ_ARN: z.string().min(1),
  FINALIZE_DLQ_ARN: z.string().min(1),
  ALERTS_TOPIC_ARN: z.string().min(1),
  STATUS_INDEX_NAME: z.string().default('byStatus'),
  /** Silence after which a live chunk-stage's message is presumed lost, per lane (see sweepRules). */
  SWEEP_QUIET_SECONDS_REALTIME: z.coerce.number().int().min(1),
  SWEEP_QUIET_SECONDS_BATCH: z.coerce.number().int().min(1),
  SWEEP_FINALIZE_QUIET_SECONDS: z.coerce.number().int().min(1),
  CHUNK_MAX_RECEIVE_COUNT: z.coerce.number().int().min(1).default(3),
  /** Redrives of one chunk out of its DLQ before triage gives up and marks it dead. */
  DLQ_MAX_REDRIVES: z.coerce.number().int().min(0).max(20).default(2),
});

/** Configuration of the sweeper and DLQ triage: the runtime's plus queue and timing facts. */
export type OperationsConfig = RuntimeConfig & z.output<typeof schema>;

/** Reads the operations configuration; throws ConfigError naming every bad variable. */
export function loadOperationsConfig(
  env: Record<string, string | undefined> = process.env,
): OperationsConfig {
  const base = loadConfig(env);
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid clause-review operations configuration: ${problems.join('; ')}`);
  }
  return { ...base, ...parsed.data };
}

/** The DLQs and source queues by role, from an operations configuration. */
export function queuesOf(c: OperationsConfig): {
  queueUrls: Record<QueueRole, string>;
  dlqUrls: Record<QueueRole, string>;
  dlqArns: Record<QueueRole, string>;
} {
  return {
    queueUrls: {
      intake: c.INTAKE_QUEUE_URL,
      realtime: c.REALTIME_QUEUE_URL,
      batch: c.BATCH_QUEUE_URL,
      finalize: c.FINALIZE_QUEUE_URL,
    },
    dlqUrls: {
      intake: c.INTAKE_DLQ_URL,
      realtime: c.REALTIME_DLQ_URL,
      batch: c.BATCH_DLQ_URL,
      finalize: c.FINALIZE_DLQ_URL,
    },
    dlqArns: {
      intake: c.INTAKE_DLQ_ARN,
      realtime: c.REALTIME_DLQ_ARN,
      batch: c.BATCH_DLQ_ARN,
      finalize: c.FINALIZE_DLQ_ARN,
    },
  };
}
