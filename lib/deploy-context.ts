/**
 * Everything a deployer sets, read from CDK context (`npx cdk deploy -c alertEmails=… -c …`) and
 * checked before any construct is built, with a message that names the flag and what was given.
 *
 * | flag | value | default |
 * |---|---|---|
 * | `prefix` | resource name prefix, also the stack name | `clause-review` |
 * | `alertEmails` | comma-separated email addresses subscribed to the alerts topic | none |
 * | `administrators` | comma-separated IAM or STS ARNs that may act on every job | none |
 * | `sessionNamedRoles` | comma-separated IAM role ARNs whose sessions may own jobs (their names are not the caller's choice: IAM Identity Center's, or fixed by the trust policy) | none |
 * | `models` | JSON `{"primary":…,"fallback":…,"perAnalyst":{…}}` | lambdas/core/model-catalogue.ts |
 * | `retentionDays` | days before S3 expires contracts, work files and reports, 1-3650 | 90 |
 * | `removalPolicy` | `retain` or `destroy`: what deleting the stack does to its data | `retain` |
 * | `officeTenants` | comma-separated Microsoft 365 tenant names whose SharePoint may frame the Word add-in | none |
 * | `defaultCeiling` | ceiling in USD of a job whose upload names none, 0.01-100000 | 20 (`DEFAULT_CEILING_MICROS`) |
 * | `maxCeiling` | the most a job's ceiling may be in USD, 0.01-100000; more is refused | 1000 (`DEFAULT_MAX_CEILING_MICROS`) |
 * | `dailySpendPerOwner` | USD one owner's jobs started on a (UTC) day may spend together (0: no cap); more wait as `queued` | an hour of the primary model's token budget (`defaultDailySpendPerOwner`) |
 * | `maxJobsPerOwner` | most jobs of one owner running at once, 0-10000 (0: no cap); more wait as `queued` | the stack's capacity (`defaultMaxJobsPerOwner`: 10 with the default lanes) |
 * | `minReviewHours` | the shortest review window an upload may ask for, in hours, 0-720 | 1 (`DEFAULT_MIN_REVIEW_HOURS`) |
 * | `ownersDecideOwnEscalations` | `true` lets a job's owner (an administrator included) decide the escalations on it | `false` |
 * | `modelBudgets` | JSON `{"<model id>":{"tokensPerMinute":…,"requestsPerMinute":…}}`: the account's Bedrock quotas every worker shares | none (`MODEL_BUDGETS`) |
 * | `<lane>Concurrency` | `realtimeConcurrency` (Lambda, 2-1000), `batchConcurrency` (Fargate tasks, 1-100) | topology |
 *
 * CDK context values arrive as strings from `-c` and as JSON values from cdk.json; both are
 * accepted. See https://docs.aws.amazon.com/cdk/v2/guide/context.html.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { LANE_CONSUMERS, LANES, type Lane, OFFICE_TENANT } from '../lambdas/stack-interface.js';
import { EMAIL_ADDRESS } from './checks.js';
import type { ClauseReviewStackProps } from './clause-review-stack.js';
import { type ContextReader, checkEach, DeployContextError, integerFlag, listFlag } from './deploy-flags.js';
import { type MoneyFlags, moneyFlags } from './deploy-money-flags.js';
import { isValidationError } from './errors.js';
import { type ModelIds, resolveModelIds } from './model-access.js';
import { checkModelBudgets, type ModelBudgets } from './model-budgets.js';
import { describeRange, type NumberRange, rangeViolation } from './number-range.js';
import { isTopologyError, topology } from './topology.js';

export { type ContextReader, DeployContextError, isDeployContextError } from './deploy-flags.js';

/** The stack settings a deployer chose; anything left out keeps the stack's default. */
export interface DeployContext extends MoneyFlags {
  readonly prefix: string;
  readonly alertEmails?: readonly string[];
  readonly administrators?: readonly string[];
  readonly sessionNamedRoles?: readonly string[];
  readonly modelIds?: ModelIds;
  readonly retentionDays?: number;
  readonly removalPolicy?: RemovalPolicy;
  /** Microsoft 365 tenants whose SharePoint may frame the Word add-in's task pane. */
  readonly officeTenants?: readonly string[];
  /** Most jobs of one owner running at once (admission control). */
  readonly maxJobsPerOwner?: number;
  /** The shortest review window an upload may ask for, in hours. */
  readonly minReviewHours?: number;
  /** Whether a job's owner may decide the escalations on it. */
  readonly ownersDecideOwnEscalations?: boolean;
  /** Per-model tokens- and requests-per-minute budgets, by the id Converse is called with. */
  readonly modelBudgets?: ModelBudgets;
  readonly laneConcurrency?: Readonly<Partial<Record<Lane, number>>>;
}

/** The context flag of a lane's concurrency: `realtimeConcurrency`, `batchConcurrency`. */
export const laneConcurrencyFlag = (lane: Lane): string => `${lane}Concurrency`;

/**
 * The range of a lane's concurrency: a Lambda event source's maximum concurrency is 2-1000
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html); a poller lane's
 * Fargate tasks are kept to 1-100 (BatchLaneService's maxTasks).
 */
export const LANE_CONCURRENCY_RANGE = {
  lambda: { min: 2, max: 1000 },
  poller: { min: 1, max: 100 },
} as const satisfies Record<string, NumberRange>;

/** Every flag this module reads, in the order docs/deploy.md's flag table lists them. */
export const DEPLOY_CONTEXT_FLAGS: readonly string[] = [
  'prefix',
  'alertEmails',
  'administrators',
  'sessionNamedRoles',
  'models',
  'retentionDays',
  'removalPolicy',
  'officeTenants',
  'defaultCeiling',
  'maxCeiling',
  'dailySpendPerOwner',
  'maxJobsPerOwner',
  'minReviewHours',
  'ownersDecideOwnEscalations',
  'modelBudgets',
  ...LANES.map(laneConcurrencyFlag),
];

/** IAM or STS principal ARNs, in any partition (the status API compares callers against them). */
const PRINCIPAL_ARN = /^arn:aws[a-z-]*:(iam|sts)::\d{12}:[^\s,]+$/;
/** IAM role ARNs, any path. */
const ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[^\s,]+$/;
const REMOVAL_POLICIES: Readonly<Record<string, RemovalPolicy>> = {
  retain: RemovalPolicy.RETAIN,
  destroy: RemovalPolicy.DESTROY,
};
/** Largest cap on one owner's running jobs (the runtime's MAX_JOBS_PER_OWNER takes as much). */
const MAX_JOBS_PER_OWNER = 10_000;

/**
 * Reads and checks every flag; throws {@link DeployContextError} naming the first bad one,
 * scoped to `scope`, the construct whose context `read` reads (the app).
 */
export function readDeployContext(read: ContextReader, scope?: IConstruct): DeployContext {
  const prefix = read('prefix');
  const emails = listFlag(read, 'alertEmails', scope);

  const models = read('models');
  const retention = read('retentionDays');
  const removal = read('removalPolicy');
  const tenants = listFlag(read, 'officeTenants', scope);
  const maxJobs = read('maxJobsPerOwner');
  const budgets = read('modelBudgets');
  const lanes = laneConcurrency(read, scope);
  const email = 'an email address like ops@example.com';
  return {
    prefix: prefix === undefined ? 'clause-review' : parsePrefix(prefix, scope),
    ...(emails ? { alertEmails: checkEach('alertEmails', emails, EMAIL_ADDRESS, email, scope) } : {}),
    ...principalFlags(read, scope),
    ...(models !== undefined ? { modelIds: parseModels(models, scope) } : {}),
    ...(retention !== undefined
      ? { retentionDays: integerFlag('retentionDays', retention, { min: 1, max: 3650 }, scope) }
      : {}),
    ...(removal !== undefined ? { removalPolicy: parseRemovalPolicy(removal, scope) } : {}),
    ...(tenants
      ? {
          officeTenants: checkEach(
            'officeTenants',
            tenants,
            OFFICE_TENANT,
            'a SharePoint tenant name like contoso (contoso.sharepoint.com)',
            scope,
          ),
        }
      : {}),
    ...moneyFlags(read, scope),
    ...(maxJobs !== undefined
      ? {
          maxJobsPerOwner: integerFlag(
            'maxJobsPerOwner',
            maxJobs,
            { min: 0, max: MAX_JOBS_PER_OWNER },
            scope,
          ),
        }
      : {}),
    ...(budgets !== undefined ? { modelBudgets: parseModelBudgets(budgets, scope) } : {}),
    ...reviewFlags(read, scope),
    ...(Object.keys(lanes).length > 0 ? { laneConcurrency: lanes } : {}),
  };
}

/** The review's flags: its shortest window, and whether owners decide their own escalations. */
function reviewFlags(
  read: ContextReader,
  scope: IConstruct | undefined,
): Pick<DeployContext, 'minReviewHours' | 'ownersDecideOwnEscalations'> {
  const hours = read('minReviewHours');
  const owners = read('ownersDecideOwnEscalations');
  let minReviewHours: number | undefined;
  if (hours !== undefined) {
    const text = String(hours).trim();
    const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (rangeViolation('minReviewHours', value, { min: 0, max: 720, integer: false, unit: 'hours' }))
      throw new DeployContextError(
        'minReviewHours',
        hours,
        `must be ${describeRange({ min: 0, max: 720, integer: false, unit: 'hours' })}; got '${text}'`,
        { scope },
      );
    minReviewHours = value;
  }
  let ownersDecide: boolean | undefined;
  if (owners !== undefined) {
    const text = String(owners).trim().toLowerCase();
    if (text !== 'true' && text !== 'false')
      throw new DeployContextError(
        'ownersDecideOwnEscalations',
        owners,
        `must be true or false; got '${text}'`,
        {
          scope,
        },
      );
    ownersDecide = text === 'true';
  }
  return {
    ...(minReviewHours !== undefined ? { minReviewHours } : {}),
    ...(ownersDecide !== undefined ? { ownersDecideOwnEscalations: ownersDecide } : {}),
  };
}

/** A prefix the topology accepts (resource names, bucket names and the stack name derive from it). */
function parsePrefix(value: unknown, scope: IConstruct | undefined): string {
  const prefix = String(value);
  try {
    topology({ prefix });
  } catch (error) {
    if (!isTopologyError(error)) throw error;
    throw new DeployContextError('prefix', value, error.message, { cause: error, scope });
  }
  return prefix;
}

function parseRemovalPolicy(value: unknown, scope: IConstruct | undefined): RemovalPolicy {
  const policy = REMOVAL_POLICIES[String(value).trim().toLowerCase()];
  if (policy === undefined) {
    throw new DeployContextError(
      'removalPolicy',
      value,
      `must be 'retain' or 'destroy'; got '${String(value)}'`,
      { scope },
    );
  }
  return policy;
}

function parseModels(value: unknown, scope: IConstruct | undefined): ModelIds {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw new DeployContextError(
        'models',
        value,
        `must be JSON like '{"primary":"us.anthropic.claude-haiku-5-5"}'; got '${value}'`,
        { cause: error, scope },
      );
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new DeployContextError('models', value, `must be a JSON object; got ${JSON.stringify(parsed)}`, {
      scope,
    });
  }
  const record = parsed as Record<string, unknown>;
  const unknownKeys = Object.keys(record).filter((k) => !['primary', 'fallback', 'perAnalyst'].includes(k));
  if (unknownKeys.length > 0) {
    throw new DeployContextError(
      'models',
      value,
      `takes primary, fallback and perAnalyst only; got ${unknownKeys.map((k) => `'${k}'`).join(', ')}`,
      { scope },
    );
  }
  for (const key of ['primary', 'fallback'] as const) {
    if (record[key] !== undefined && typeof record[key] !== 'string') {
      throw new DeployContextError(
        'models',
        value,
        `${key} must be a model id string; got ${JSON.stringify(record[key])}`,
        { scope },
      );
    }
  }
  const perAnalyst = record.perAnalyst;
  if (
    perAnalyst !== undefined &&
    (typeof perAnalyst !== 'object' || perAnalyst === null || Array.isArray(perAnalyst))
  ) {
    throw new DeployContextError(
      'models',
      value,
      `perAnalyst must be an object by analyst id; got ${JSON.stringify(perAnalyst)}`,
      { scope },
    );
  }
  try {
    resolveModelIds(record as ModelIds, scope);
  } catch (error) {
    // An unpriced model or an unknown analyst: the message names it and the priced ids.
    throw new DeployContextError('models', value, (error as Error).message, { cause: error, scope });
  }
  return record as ModelIds;
}

/**
 * `{"<model id>":{"tokensPerMinute":N,"requestsPerMinute":N}}`, as JSON text (from `-c`) or an
 * object (from cdk.json), checked by the one rule of model budgets (model-budgets.ts).
 */
function parseModelBudgets(value: unknown, scope: IConstruct | undefined): ModelBudgets {
  const example = `'{"us.anthropic.claude-haiku-5-5":{"tokensPerMinute":2000000,"requestsPerMinute":500}}'`;
  const refuse = (message: string, cause?: unknown) =>
    new DeployContextError('modelBudgets', value, message, { scope, ...(cause ? { cause } : {}) });
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      throw refuse(`must be JSON like ${example}; got '${value}'`, error);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw refuse(`must be a JSON object by model id, like ${example}; got ${JSON.stringify(parsed)}`);
  }
  try {
    return checkModelBudgets(scope, parsed as Record<string, unknown>, (id) => `'${id}'`);
  } catch (error) {
    if (!isValidationError(error)) throw error;
    throw refuse(error.message, error);
  }
}

function laneConcurrency(read: ContextReader, scope: IConstruct | undefined): Partial<Record<Lane, number>> {
  const out: Partial<Record<Lane, number>> = {};
  for (const lane of LANES) {
    const flag = laneConcurrencyFlag(lane);
    const value = read(flag);
    if (value === undefined) continue;
    out[lane] = integerFlag(flag, value, LANE_CONCURRENCY_RANGE[LANE_CONSUMERS[lane]], scope);
  }
  return out;
}

/** `administrators` and `sessionNamedRoles`: who acts on every job, and whose role sessions own jobs. */
function principalFlags(
  read: ContextReader,
  scope: IConstruct | undefined,
): Pick<DeployContext, 'administrators' | 'sessionNamedRoles'> {
  const administrators = listFlag(read, 'administrators', scope);
  const sessionRoles = listFlag(read, 'sessionNamedRoles', scope);
  const principal = 'an IAM or STS ARN like arn:aws:iam::123456789012:role/Admin';
  const role = 'an IAM role ARN like arn:aws:iam::123456789012:role/Reviewers';
  return {
    ...(administrators
      ? { administrators: checkEach('administrators', administrators, PRINCIPAL_ARN, principal, scope) }
      : {}),
    ...(sessionRoles
      ? { sessionNamedRoles: checkEach('sessionNamedRoles', sessionRoles, ROLE_ARN, role, scope) }
      : {}),
  };
}

/** The stack props a deploy context sets; the stack's own defaults fill in the rest. */
export function stackPropsOf(ctx: DeployContext): ClauseReviewStackProps {
  return {
    prefix: ctx.prefix,
    ...(ctx.alertEmails ? { alertEmails: ctx.alertEmails } : {}),
    ...(ctx.administrators ? { administrators: ctx.administrators } : {}),
    ...(ctx.sessionNamedRoles ? { sessionNamedRoles: ctx.sessionNamedRoles } : {}),
    ...(ctx.modelIds ? { modelIds: ctx.modelIds } : {}),
    ...(ctx.retentionDays !== undefined ? { retentionDays: ctx.retentionDays } : {}),
    ...(ctx.removalPolicy !== undefined ? { removalPolicy: ctx.removalPolicy } : {}),
    ...(ctx.officeTenants ? { officeTenants: ctx.officeTenants } : {}),
    ...tuningOf(ctx),
    ...(ctx.laneConcurrency ? { laneConcurrency: ctx.laneConcurrency } : {}),
  };
}

/** The runtime tuning a deploy context sets, when it sets any. */
function tuningOf(ctx: DeployContext): Pick<ClauseReviewStackProps, 'tuning'> {
  const tuning = Object.fromEntries(
    Object.entries({
      defaultCeilingMicros: ctx.defaultCeilingMicros,
      maxCeilingMicros: ctx.maxCeilingMicros,
      dailySpendPerOwnerMicros: ctx.dailySpendPerOwnerMicros,
      maxJobsPerOwner: ctx.maxJobsPerOwner,
      modelBudgets: ctx.modelBudgets,
      minReviewHours: ctx.minReviewHours,
      ownersDecideOwnEscalations: ctx.ownersDecideOwnEscalations,
    }).filter(([, v]) => v !== undefined),
  );
  return Object.keys(tuning).length > 0 ? { tuning } : {};
}
