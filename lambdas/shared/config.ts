import { z } from 'zod';
import { checkPanelModels, type PanelModels } from '../core/analysts/index.js';
import { MAX_REVIEW_HOURS } from '../core/intake/job-options.js';
import { LANE_COMPUTE } from '../core/intake/lane-cost.js';
import {
  DEFAULT_CEILING_MICROS,
  DEFAULT_CHUNK_CLAUSES,
  DEFAULT_MAX_CEILING_MICROS,
  LANES,
  QUEUE_ROLES,
} from '../core/lanes-and-limits.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../core/model-catalogue.js';
import { DEFAULT_MIN_REVIEW_HOURS } from '../core/state/job.js';
import { keyedJson } from './keyed-json.js';

const csvSeconds = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'a comma-separated list of whole seconds, e.g. 30,120,300')
  .transform((s) => s.split(',').map(Number));

const analystModelsSchema = z.record(
  z.string(),
  z.strictObject({ primary: z.string().min(1).optional(), fallback: z.string().min(1).optional() }),
);

const modelBudgetsSchema = z.record(
  z.string().min(1),
  z
    .strictObject({
      tokensPerMinute: z.number().int().positive().optional(),
      requestsPerMinute: z.number().int().positive().optional(),
    })
    .refine((b) => b.tokensPerMinute !== undefined || b.requestsPerMinute !== undefined, {
      message: 'a budget names tokensPerMinute, requestsPerMinute or both',
    }),
);

/** Parses a JSON variable with `schema`, or reports why it does not fit. */
function jsonVariable<T>(schema: z.ZodType<T>, what: string) {
  return (s: string, ctx: z.RefinementCtx): T => {
    let value: unknown;
    try {
      value = JSON.parse(s);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `not a JSON object of ${what}: ${(error as Error).message}` });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) {
      ctx.addIssue({
        code: 'custom',
        message: `${issue.path.join('.') || '(the whole value)'}: ${issue.message}`,
      });
    }
    return z.NEVER;
  };
}

const schema = z.object({
  TABLE_NAME: z.string().min(1),
  INTAKE_BUCKET: z.string().min(1),
  RESULTS_BUCKET: z.string().min(1),
  RESULTS_PREFIX: z.string().default('reports/'),
  /** Every queue's URL by role, JSON: `{"intake": "https://…", "realtime": …, "finalize": …}`. */
  QUEUE_URLS: keyedJson(QUEUE_ROLES, z.string().url()),
  ALERTS_TOPIC_ARN: z.string().optional(),
  /** Clauses grouped into one chunk (one SQS message). */
  CHUNK_CLAUSES: z.coerce.number().int().min(1).max(200).default(DEFAULT_CHUNK_CLAUSES),
  /** Model calls the adaptive limiter allows at first, per model and process. */
  LIMITER_INITIAL: z.coerce.number().int().min(1).default(10),
  /** Most model calls the adaptive limiter ever allows at once, per model and process. */
  LIMITER_MAX: z.coerce.number().int().min(1).default(200),
  /** Length of the limiter's evaluation window. */
  LIMITER_WINDOW_MS: z.coerce.number().int().min(100).default(5000),
  /** Largest document accepted at intake. */
  MAX_DOCUMENT_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  /** Cost ceiling of a job when its upload names none, in micro-dollars ($20: the README sample is quoted at about $6). */
  DEFAULT_CEILING_MICROS: z.coerce.number().int().min(0).default(DEFAULT_CEILING_MICROS),
  DEFAULT_LANE: z.enum(LANES).default(LANES[0]),
  /** The shortest review an upload may ask for, in hours (the stack's `minReviewHours`). */
  MIN_REVIEW_HOURS: z.coerce.number().min(0).max(MAX_REVIEW_HOURS).default(DEFAULT_MIN_REVIEW_HOURS),
  /** The most a job's ceiling may be, in micro-dollars: an upload or submission asking for more is refused. */
  MAX_CEILING_MICROS: z.coerce
    .number()
    .int()
    .min(10_000)
    .max(100_000_000_000)
    .default(DEFAULT_MAX_CEILING_MICROS),
  /**
   * Most jobs of one owner running at once; intake records a job over it as `queued` until one
   * of the owner's jobs stops. 0: no cap.
   */
  MAX_JOBS_PER_OWNER: z.coerce.number().int().min(0).max(10_000).default(0),
  /**
   * Micro-dollars one owner's jobs started on a (UTC) day may spend together: a job whose start
   * would pass it waits as `queued`, one that never could is rejected. 0: no cap (the stack
   * always sets one, `defaultDailySpendPerOwner`).
   */
  DAILY_SPEND_PER_OWNER_MICROS: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  /** Every analyst's primary model: an inference profile or foundation-model id with a price. */
  MODEL_ID: z.string().default(PRIMARY_MODEL_ID),
  /** Every analyst's model after repeated throttling of the primary (a separate quota). */
  FALLBACK_MODEL_ID: z.string().default(FALLBACK_MODEL_ID),
  /** Per-analyst overrides, JSON: `{"ip-counsel": {"primary": "…", "fallback": "…"}}`. */
  ANALYST_MODELS: z
    .string()
    .default('{}')
    .transform((s, ctx) => {
      try {
        return analystModelsSchema.parse(JSON.parse(s));
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `not a JSON object of analyst id to {primary?, fallback?}: ${(error as Error).message}`,
        });
        return z.NEVER;
      }
    }),
  /**
   * Per-model budgets shared by every worker, JSON: `{"us.anthropic.claude-haiku-5-5":
   * {"tokensPerMinute": 5000000, "requestsPerMinute": 10000}}` (the account's Bedrock quotas for
   * the model); a model not named is unlimited.
   */
  MODEL_BUDGETS: z
    .string()
    .default('{}')
    .transform(jsonVariable(modelBudgetsSchema, 'model id to {tokensPerMinute?, requestsPerMinute?}')),
  /** Model calls in flight at once inside one worker. */
  CALL_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(LANE_COMPUTE.callsPerChunk),
  /** Tier-2 visibility backoff by receive count (and intake's, for a parse a busy machine cut short). */
  REDELIVERY_BACKOFF_SECONDS: csvSeconds.default([30, 120, 300]),
  /**
   * The intake queue's maxReceiveCount: intake tries a parse a busy machine cut short again on
   * each receive before it, and on this one rejects the job as `parse-timeout-under-load`.
   */
  INTAKE_MAX_RECEIVE_COUNT: z.coerce.number().int().min(1).default(3),
  /** Length of a chunk claim's lease; the heartbeat renews it at a third of this. */
  LEASE_SECONDS: z.coerce.number().int().min(5).max(3600).default(120),
  /** A job not finished by then ends incomplete (the sweeper enforces it). */
  JOB_DEADLINE_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(6 * 3600),
  /**
   * Unique id (`AROA…`) of the role the status API presigns uploads with; intake believes the
   * submitter an upload names in its metadata only when this role made the upload.
   */
  API_ROLE_ID: z.string().min(1).optional(),
  /**
   * A principal id an emulator writes into every S3 event whoever uploaded (LocalStack's
   * `AIDAJDPLRKLG7UEXAMPLE`): it names nobody, so an event carrying it is read as one without
   * a principal. Never set on AWS.
   */
  PLACEHOLDER_PRINCIPAL_ID: z.string().min(1).optional(),
  /** Per-call timeout of a Bedrock request. */
  MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
});

/**
 * The variables a quote reads as intake does (the models it prices, the document limit, the
 * chunk size, the most a ceiling may be), for the status API's own configuration to take the
 * same checks.
 */
export const QUOTE_CONFIG_SHAPE = schema.pick({
  MODEL_ID: true,
  FALLBACK_MODEL_ID: true,
  ANALYST_MODELS: true,
  MAX_DOCUMENT_BYTES: true,
  CHUNK_CLAUSES: true,
  MAX_CEILING_MICROS: true,
}).shape;

/** The runtime configuration every handler and worker reads once at start. */
export type RuntimeConfig = z.output<typeof schema>;

/** Names of the environment variables the runtime reads. */
export const CONFIG_VARIABLES = Object.keys(schema.shape) as (keyof typeof schema.shape)[];

/** Raised when the environment lacks a variable or holds a bad value; the message names each one. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Reads and checks the runtime configuration from an environment.
 *
 * @throws ConfigError naming every missing or invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): RuntimeConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid clause-review configuration: ${problems.join('; ')}`);
  }
  try {
    checkPanelModels(panelModelsOf(parsed.data));
  } catch (error) {
    throw new ConfigError(`invalid clause-review configuration: models: ${(error as Error).message}`);
  }
  return parsed.data;
}

/** The panel's models as the configuration sets them. */
export function panelModelsOf(
  config: Pick<RuntimeConfig, 'MODEL_ID' | 'FALLBACK_MODEL_ID' | 'ANALYST_MODELS'>,
): PanelModels {
  return { primary: config.MODEL_ID, fallback: config.FALLBACK_MODEL_ID, perAnalyst: config.ANALYST_MODELS };
}
