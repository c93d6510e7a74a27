import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ApiConfig } from '../lambdas/stack-interface.js';
import { API_ROUTES, type CallerBudgets, type QueueRole } from '../lambdas/stack-interface.js';
import { checkFileExists, checkPattern, checkProjectRoot, checkRange } from './checks.js';
import type { ResolvedModelIds } from './model-access.js';
import { handlerFunction } from './pipeline-functions.js';
import { PROJECT_ROOT } from './project-root.js';
import { queueUrlsVariable, type RuntimeTuning } from './runtime-environment.js';
import { grantStatusApiAccess } from './status-api-access.js';
import type { Topology } from './topology.js';

/** Requests a second the stage takes in the steady state unless told otherwise (`rateLimit`). */
export const DEFAULT_STAGE_RATE = 20;

/**
 * The stage's throttle for a steady rate: bursts of twice it. The local API throttles with the
 * same figures (localstack/runtime/stage-throttle.ts).
 */
export function stageThrottle(rateLimit: number = DEFAULT_STAGE_RATE) {
  return { rateLimit, burstLimit: rateLimit * 2 };
}

/** Properties of {@link StatusApi}. */
export interface StatusApiProps {
  /** Bucket names and prefixes; the result of `topology()`. */
  readonly topology: Topology;
  readonly table: dynamodb.ITable;
  readonly intakeBucket: s3.IBucket;
  readonly resultsBucket: s3.IBucket;
  /** Where resume sends a job's unfinished chunks (the lanes) and a closed review its finalize. */
  readonly queues: Readonly<Record<QueueRole, sqs.IQueue>>;
  /**
   * Runtime tuning; the API uses the default lane and cost ceiling so that what it presigns
   * is what intake would apply.
   * @default none: the runtime's defaults apply
   */
  readonly tuning?: RuntimeTuning;
  /**
   * The analysts' models, which POST /quote prices as intake does.
   * @default the primary and fallback of lambdas/core/model-catalogue.ts
   */
  readonly models?: ResolvedModelIds;
  /**
   * Lifetime of the presigned upload URL, in seconds (60-604800).
   * @default 900
   */
  readonly uploadUrlSeconds?: number;
  /**
   * Lifetime of the presigned report URLs, in seconds (60-604800).
   * @default 900
   */
  readonly reportUrlSeconds?: number;
  /**
   * Steady-state requests per second the API accepts (stage throttling), 1-10000.
   * @default 20
   */
  readonly rateLimit?: number;
  /**
   * Each caller's budget of a route: requests at once (`burst`, 1-10000) and refilled per minute
   * (`perMinute`, 0.1-60000), kept per caller in the state table; over it a caller gets 429 with
   * Retry-After while others go on. Routes left out keep their defaults.
   * @default DEFAULT_CALLER_BUDGETS (reads cheap, the approvals list, quotes and submissions dear)
   */
  readonly callerBudgets?: Partial<CallerBudgets>;
  /**
   * IAM principals (user, role or assumed-role session ARNs) who may read, cancel and download
   * every job; a role covers all its sessions. Everyone else acts only on the jobs they submitted.
   * @default none
   */
  readonly administrators?: readonly string[];
  /**
   * IAM roles whose sessions may own jobs, because a caller cannot choose their session names:
   * IAM Identity Center's permission-set roles, or roles whose trust policy fixes
   * `sts:RoleSessionName` (e.g. to `${aws:username}`). Sessions of any other role are refused
   * with 403 (`sessionRefusal`, docs/security.md); sessions of administrator roles always pass.
   * @default none
   */
  readonly sessionNamedRoles?: readonly string[];
  /**
   * The user pool people sign in through: the API may look a person up in it (ListUsers, on
   * this pool only) to name them by email in the decision trail, and read their groups
   * (AdminListGroupsForUser) to let the members of an approver group decide its escalations.
   * @default none: the trail names the caller's Cognito identity, and only administrators
   * decide escalated findings
   */
  readonly userPool?: cognito.IUserPool;
  /**
   * Directory holding package-lock.json and the handler sources.
   * @default the repository this file belongs to
   */
  readonly projectRoot?: string;
  /**
   * Handler entry file, relative to `projectRoot`.
   * @default 'lambdas/api/handler.ts'
   */
  readonly entry?: string;
  /**
   * How long function and access logs are kept.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * What happens to the log groups when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The status API: an HTTP API with IAM authorization on every route (callers sign with SigV4
 * and need `execute-api:Invoke`), one Lambda function routing every route of `API_ROUTES`
 * (POST /jobs, POST /quote, GET /jobs/{id}, …), and access logs in CloudWatch.
 *
 * The function may read job items and flip their status (cancel), presign uploads under the
 * intake prefix, find a submission's upload by listing versions under that prefix, and
 * presign report downloads under the results prefix; nothing else.
 */
export class StatusApi extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly handler: nodejs.NodejsFunction;
  /** The handler's role, which also signs the upload URLs (intake trusts its uploads' submitter). */
  readonly role: iam.Role;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: StatusApiProps) {
    super(scope, id);
    const t = props.topology;
    const urlSeconds = { min: 60, max: 604_800 };
    const uploadSeconds = checkRange(
      this,
      'StatusApi uploadUrlSeconds',
      props.uploadUrlSeconds ?? 900,
      urlSeconds,
    );
    const reportSeconds = checkRange(
      this,
      'StatusApi reportUrlSeconds',
      props.reportUrlSeconds ?? 900,
      urlSeconds,
    );
    const rate = checkRange(this, 'StatusApi rateLimit', props.rateLimit ?? DEFAULT_STAGE_RATE, {
      min: 1,
      max: 10_000,
    });
    const projectRoot = props.projectRoot ?? PROJECT_ROOT;
    const entry = join(projectRoot, props.entry ?? 'lambdas/api/handler.ts');
    checkFileExists(this, 'StatusApi entry', entry, 'name an existing handler file');
    checkProjectRoot(this, 'StatusApi', projectRoot);
    const retention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;

    const environment: Partial<Record<keyof ApiConfig, string>> = {
      TABLE_NAME: props.table.tableName,
      INTAKE_BUCKET: props.intakeBucket.bucketName,
      INTAKE_PREFIX: t.buckets.intake.prefix,
      RESULTS_BUCKET: props.resultsBucket.bucketName,
      RESULTS_PREFIX: t.buckets.results.prefix,
      QUEUE_URLS: queueUrlsVariable(props.queues),
      UPLOAD_URL_SECONDS: String(uploadSeconds),
      REPORT_URL_SECONDS: String(reportSeconds),
      ...callerBudgetEnvironment(this, props.callerBudgets),
      ...principalEnvironment(this, props),
      ...(props.userPool ? { USER_POOL_ID: props.userPool.userPoolId } : {}),
      ...(props.tuning?.defaultLane ? { DEFAULT_LANE: props.tuning.defaultLane } : {}),
      ...quoteEnvironment(props),
      ...(props.tuning?.defaultCeilingMicros !== undefined
        ? { DEFAULT_CEILING_MICROS: String(props.tuning.defaultCeilingMicros) }
        : {}),
      ...(props.tuning?.minReviewHours !== undefined
        ? { MIN_REVIEW_HOURS: String(props.tuning.minReviewHours) }
        : {}),
      ...(props.tuning?.ownersDecideOwnEscalations ? { OWNERS_DECIDE_OWN_ESCALATIONS: 'true' } : {}),
    };
    const { fn, role } = handlerFunction(this, 'Handler', {
      entry,
      projectRoot,
      description:
        'clause-review status API: submit, quote, status, cancel, report, pause, resume, findings, decisions',
      roleDescription: 'clause-review status API function',
      // POST /quote reads a document as intake does, in a worker with a 256 MB heap and 7 s of
      // CPU, stopped after 20 s of wall clock (QUOTE_DOCUMENT_LIMITS, answered 503 as busy);
      // the function ends before API Gateway's 30 s
      // integration timeout (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
      memorySize: 1024,
      timeout: Duration.seconds(29),
      environment,
      logRetention: retention,
      removalPolicy,
    });
    this.handler = fn;
    this.role = role;

    grantStatusApiAccess(role, props);

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention, removalPolicy });
    this.httpApi = new apigw.HttpApi(this, 'Api', {
      description: 'clause-review status API (IAM authorization)',
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: false,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: stageThrottle(rate),
      accessLogSettings: { destination: new apigw.LogGroupLogDestination(this.accessLogs) },
    });
    const integration = new HttpLambdaIntegration('Handler', this.handler);
    for (const route of API_ROUTES) {
      this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration,
      });
    }
  }

  /** Base URL of the API (ends in '/'). */
  get url(): string {
    return this.stage.url;
  }
}

/**
 * Who acts on every job and which roles' sessions may own jobs, checked, as the handler reads
 * them (JSON, since IAM names may contain commas).
 */
function principalEnvironment(
  scope: Construct,
  props: StatusApiProps,
): Partial<Record<keyof ApiConfig, string>> {
  const administrators = props.administrators ?? [];
  for (const arn of administrators) {
    checkPattern(
      scope,
      'StatusApi administrators',
      arn,
      /^arn:aws[a-z-]*:(iam|sts)::\d{12}:/,
      'be IAM or STS ARNs (arn:aws:iam::<account>:…)',
    );
  }
  const sessionNamedRoles = props.sessionNamedRoles ?? [];
  for (const arn of sessionNamedRoles) {
    checkPattern(
      scope,
      'StatusApi sessionNamedRoles',
      arn,
      /^arn:aws[a-z-]*:iam::\d{12}:role\//,
      'be IAM role ARNs',
    );
  }
  const json = (value: readonly string[]) => Stack.of(scope).toJsonString(value);
  return {
    ...(administrators.length > 0 ? { ADMIN_PRINCIPALS: json(administrators) } : {}),
    ...(sessionNamedRoles.length > 0 ? { SESSION_NAMED_ROLES: json(sessionNamedRoles) } : {}),
  };
}

/** Each caller's budgets of the routes given, checked, as the handler reads them (the rest keep the defaults). */
function callerBudgetEnvironment(
  scope: Construct,
  given: Partial<CallerBudgets> | undefined,
): Partial<Record<keyof ApiConfig, string>> {
  for (const [route, budget] of Object.entries(given ?? {})) {
    checkRange(scope, `StatusApi callerBudgets.${route}.burst`, budget.burst, { min: 1, max: 10_000 });
    checkRange(scope, `StatusApi callerBudgets.${route}.perMinute`, budget.perMinute, {
      min: 0.1,
      max: 60_000,
      integer: false,
    });
  }
  return given && Object.keys(given).length > 0 ? { CALLER_BUDGETS: JSON.stringify(given) } : {};
}

/** What POST /quote reads as intake does: the models it prices, the document limit, the chunk size, the most a ceiling may be. */
function quoteEnvironment(props: StatusApiProps): Partial<Record<keyof ApiConfig, string>> {
  const models = props.models;
  const tuning = props.tuning;
  return {
    ...(models ? { MODEL_ID: models.primary, FALLBACK_MODEL_ID: models.fallback } : {}),
    ...(models && Object.keys(models.perAnalyst).length > 0
      ? { ANALYST_MODELS: JSON.stringify(models.perAnalyst) }
      : {}),
    ...(tuning?.maxDocumentBytes !== undefined
      ? { MAX_DOCUMENT_BYTES: String(tuning.maxDocumentBytes) }
      : {}),
    ...(tuning?.chunkClauses !== undefined ? { CHUNK_CLAUSES: String(tuning.chunkClauses) } : {}),
    ...(tuning?.maxCeilingMicros !== undefined
      ? { MAX_CEILING_MICROS: String(tuning.maxCeilingMicros) }
      : {}),
  };
}
