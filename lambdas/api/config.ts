import { z } from 'zod';
import { checkPanelModels } from '../core/analysts/index.js';
import { MAX_REVIEW_HOURS } from '../core/intake/job-options.js';
import { DEFAULT_CEILING_MICROS, LANES, QUEUE_ROLES } from '../core/lanes-and-limits.js';
import { DEFAULT_MIN_REVIEW_HOURS } from '../core/state/job.js';
import { panelModelsOf, QUOTE_CONFIG_SHAPE } from '../shared/config.js';
import { keyedJson } from '../shared/keyed-json.js';
import {
  type CallerBudgets,
  DEFAULT_CALLER_BUDGETS,
  LIMITED_ROUTES,
  type LimitedRoute,
} from './caller-limits.js';

/** Budgets by route: each at once 1-10000, and refilled 0.1-60000 a minute. */
const callerBudgetsSchema = z.partialRecord(
  z.enum(LIMITED_ROUTES as [LimitedRoute, ...LimitedRoute[]]),
  z.strictObject({
    burst: z.number().int().min(1).max(10_000),
    perMinute: z.number().min(0.1).max(60_000),
  }),
);

const schema = z.object({
  /** What POST /quote reads as intake does: the models it prices, the document limit, the chunk size. */
  ...QUOTE_CONFIG_SHAPE,
  TABLE_NAME: z.string().min(1),
  INTAKE_BUCKET: z.string().min(1),
  INTAKE_PREFIX: z.string().default('incoming/'),
  RESULTS_BUCKET: z.string().min(1),
  RESULTS_PREFIX: z.string().default('reports/'),
  /** Where resume sends a job's unfinished chunks, and a closed review its finalize. */
  QUEUE_URLS: keyedJson(QUEUE_ROLES, z.string().url()),
  /** Lane and ceiling a submission gets when it names none: the same defaults intake applies. */
  DEFAULT_LANE: z.enum(LANES).default(LANES[0]),
  DEFAULT_CEILING_MICROS: z.coerce.number().int().min(0).default(DEFAULT_CEILING_MICROS),
  /** The shortest review a submission may ask for, in hours (the stack's `minReviewHours`). */
  MIN_REVIEW_HOURS: z.coerce.number().min(0).max(MAX_REVIEW_HOURS).default(DEFAULT_MIN_REVIEW_HOURS),
  /** `true` lets a job's owner (an administrator included) decide the escalations on it. */
  OWNERS_DECIDE_OWN_ESCALATIONS: z.enum(['true', 'false']).default('false'),
  /** Lifetime of the presigned upload URL. */
  UPLOAD_URL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(900),
  /** Lifetime of the presigned report URLs. */
  REPORT_URL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(900),
  /**
   * Each caller's budgets of the routes whose budgets differ from DEFAULT_CALLER_BUDGETS, JSON:
   * `{"quote": {"burst": 10, "perMinute": 12}}` (requests at once, and refilled per minute).
   */
  CALLER_BUDGETS: z
    .string()
    .default('{}')
    .transform((s, ctx) => {
      const parsed = callerBudgetsSchema.safeParse(safeJson(s));
      if (parsed.success) return parsed.data as Partial<CallerBudgets>;
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || s}: ${issue.message}` });
      }
      return z.NEVER;
    }),
  /**
   * Principals who may act on every job, as a JSON array of IAM ARNs (users, roles, sessions).
   * JSON rather than a comma list, because IAM names may contain commas.
   */
  /**
   * The user pool people sign in through: the decision trail names a person by their email
   * from it (ListUsers). Unset, the trail names the Cognito identity.
   */
  USER_POOL_ID: z
    .string()
    .regex(/^[\w-]+_[0-9a-zA-Z]+$/, 'a user pool id (us-east-1_AbC123)')
    .optional(),
  ADMIN_PRINCIPALS: arnList(),
  /**
   * Roles whose sessions may own jobs, because their session names are not the caller's choice
   * (IAM Identity Center's, or a trust policy fixing `sts:RoleSessionName`), as a JSON array of
   * role ARNs; sessions of other roles are refused (docs/security.md).
   */
  SESSION_NAMED_ROLES: arnList(),
});

/** A JSON array of ARNs (JSON rather than a comma list, because IAM names may contain commas). */
function arnList() {
  return z
    .string()
    .default('[]')
    .transform((s, ctx) => {
      const parsed = z.array(z.string().startsWith('arn:')).safeParse(safeJson(s));
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: `not a JSON array of ARNs: ${s}` });
      return z.NEVER;
    });
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Configuration of the status API handler. */
export type ApiConfig = z.output<typeof schema>;

/** The per-caller budgets a configuration sets: the defaults, with its own in their place. */
export function callerBudgetsOf(config: ApiConfig): CallerBudgets {
  return { ...DEFAULT_CALLER_BUDGETS, ...config.CALLER_BUDGETS };
}

/** Names of the environment variables the API handler reads. */
export const API_CONFIG_VARIABLES = Object.keys(schema.shape) as (keyof typeof schema.shape)[];

/** Raised when the environment lacks a variable or holds a bad value; the message names each one. */
export class ApiConfigError extends Error {
  override readonly name = 'ApiConfigError';
}

/** Reads and checks the API configuration. @throws ApiConfigError naming every bad variable. */
export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ApiConfigError(`invalid clause-review API configuration: ${problems.join('; ')}`);
  }
  try {
    checkPanelModels(panelModelsOf(parsed.data));
  } catch (error) {
    throw new ApiConfigError(`invalid clause-review API configuration: models: ${(error as Error).message}`);
  }
  return parsed.data;
}
