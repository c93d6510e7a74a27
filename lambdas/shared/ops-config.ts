import { z } from 'zod';
import { LANES, QUEUE_ROLES, type QueueRole } from '../core/lanes-and-limits.js';
import { ConfigError, loadConfig, type RuntimeConfig } from './config.js';
import { keyedJson } from './keyed-json.js';

const schema = z.object({
  /** Every DLQ's URL and ARN (for StartMessageMoveTask) by the role of its source queue, JSON. */
  DLQ_URLS: keyedJson(QUEUE_ROLES, z.string().url()),
  DLQ_ARNS: keyedJson(QUEUE_ROLES, z.string().min(1)),
  ALERTS_TOPIC_ARN: z.string().min(1),
  STATUS_INDEX_NAME: z.string().default('byStatus'),
  /** Silence after which a live chunk-stage's message is presumed lost, per lane (see sweepRules). */
  SWEEP_QUIET_SECONDS: keyedJson(LANES, z.number().int().min(1)),
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
  queueUrls: Readonly<Record<QueueRole, string>>;
  dlqUrls: Readonly<Record<QueueRole, string>>;
  dlqArns: Readonly<Record<QueueRole, string>>;
} {
  return { queueUrls: c.QUEUE_URLS, dlqUrls: c.DLQ_URLS, dlqArns: c.DLQ_ARNS };
}
