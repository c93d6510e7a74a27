import { Logger } from '@aws-lambda-powertools/logger';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { resendConflicts } from '../core/state/transact.js';
import { clientConfig } from '../shared/aws-clients.js';
import { panelModelsOf } from '../shared/config.js';
import { callerOf, type IamAuthorizerContext } from './caller.js';
import { CallerLimits, limitedRouteOf } from './caller-limits.js';
import { callerBudgetsOf, loadApiConfig } from './config.js';
import {
  BadRequestError,
  isApiError,
  isBadRequestError,
  isUnprocessableDocumentError,
  PayloadTooLargeError,
  retryAfterOf,
} from './errors.js';
import { HoldsApi } from './holds-api.js';
import { JobsApi, type JobsApiDeps } from './jobs-api.js';
import { maxBodyBytes } from './limits.js';
import { LiveApi } from './live-api.js';
import { userPoolGroups, userPoolLabels } from './people.js';
import { PlaybooksApi } from './playbooks-api.js';
import { API_ROUTES, matchRoute, type RouteName, routeKey } from './routes.js';

const logger = new Logger({ serviceName: 'clause-review-api' });
let api: { jobs: JobsApi; holds: HoldsApi; live: LiveApi; playbooks: PlaybooksApi } | undefined;

function build(deps: JobsApiDeps) {
  const jobs = new JobsApi(deps);
  return {
    jobs,
    holds: new HoldsApi(jobs, deps),
    live: new LiveApi(jobs, deps),
    playbooks: new PlaybooksApi(jobs.playbooks, deps.administrators ?? []),
  };
}

/** Lets tests and the local API server inject dependencies instead of reading the environment. */
export function configureApi(deps: JobsApiDeps): void {
  api = build(deps);
}

/** The S3 client the API signs URLs with: no checksum of an empty body signed into an upload URL. */
export function presigningS3Client(config: ConstructorParameters<typeof S3Client>[0] = {}): S3Client {
  return new S3Client({ ...config, requestChecksumCalculation: 'WHEN_REQUIRED' });
}

/** Who a signed-in person is, from the stack's user pool: their name for the trail, and their groups. */
function userPool(
  idp: CognitoIdentityProviderClient,
  userPoolId: string,
): Pick<JobsApiDeps, 'people' | 'groups'> {
  const log = (message: string, error: unknown) => logger.warn(message, { error: error as Error });
  return { people: userPoolLabels(idp, userPoolId, log), groups: userPoolGroups(idp, userPoolId, { log }) };
}

function ensureApi() {
  if (!api) {
    const config = loadApiConfig();
    const { forcePathStyle, ...common } = clientConfig();
    const db = DynamoDBDocumentClient.from(resendConflicts(new DynamoDBClient(common)), {
      marshallOptions: { removeUndefinedValues: true },
    });
    api = build({
      db,
      callerLimits: new CallerLimits(db, config.TABLE_NAME, callerBudgetsOf(config)),
      s3: presigningS3Client({ ...common, ...(forcePathStyle ? { forcePathStyle } : {}) }),
      tableName: config.TABLE_NAME,
      intakeBucket: config.INTAKE_BUCKET,
      intakePrefix: config.INTAKE_PREFIX,
      resultsBucket: config.RESULTS_BUCKET,
      defaultLane: config.DEFAULT_LANE,
      defaultCeilingMicros: config.DEFAULT_CEILING_MICROS,
      minReviewHours: config.MIN_REVIEW_HOURS,
      ownersDecideOwnEscalations: config.OWNERS_DECIDE_OWN_ESCALATIONS === 'true',
      maxCeilingMicros: config.MAX_CEILING_MICROS,
      uploadUrlSeconds: config.UPLOAD_URL_SECONDS,
      reportUrlSeconds: config.REPORT_URL_SECONDS,
      administrators: config.ADMIN_PRINCIPALS,
      sessionNamedRoles: config.SESSION_NAMED_ROLES,
      sqs: new SQSClient(common),
      laneQueueUrls: config.QUEUE_URLS,
      finalizeQueueUrl: config.QUEUE_URLS.finalize,
      resultsPrefix: config.RESULTS_PREFIX,
      ...(config.USER_POOL_ID
        ? userPool(new CognitoIdentityProviderClient(common), config.USER_POOL_ID)
        : {}),
      models: panelModelsOf(config),
      maxDocumentBytes: config.MAX_DOCUMENT_BYTES,
      chunkClauses: config.CHUNK_CLAUSES,
    });
  }
  return api;
}

type ApiEvent = APIGatewayProxyEventV2 & { requestContext: { authorizer?: IamAuthorizerContext } };

const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  body: JSON.stringify(body),
});

function route(event: ApiEvent): { name: RouteName; id: string | undefined } | undefined {
  const known = API_ROUTES.find((r) => routeKey(r) === event.routeKey);
  if (known) return { name: known.name, id: event.pathParameters?.id };
  // A `$default` route (or a proxy) leaves the routing to us.
  const matched = matchRoute(event.requestContext.http.method, event.rawPath);
  return matched ? { name: matched.route.name, id: matched.pathParameters.id } : undefined;
}

function body(event: ApiEvent, route: RouteName): unknown {
  const bytes = event.body
    ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8')
    : Buffer.alloc(0);
  const limit = maxBodyBytes(route);
  if (bytes.length > limit) throw new PayloadTooLargeError(bytes.length, limit);
  const raw = bytes.toString('utf8');
  if (raw.trim() === '') throw new BadRequestError('the request body must be a JSON object; got nothing');
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new BadRequestError(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * The status API behind API Gateway (HTTP API, IAM authorization, payload format 2.0):
 * POST /jobs, POST /quote, GET /jobs/{id}, POST /jobs/{id}/cancel, GET /jobs/{id}/report, and the holds:
 * POST /jobs/{id}/pause, POST /jobs/{id}/resume, GET /jobs/{id}/findings, POST /jobs/{id}/decisions,
 * POST /jobs/{id}/redlines;
 * the reads as a job goes: GET /jobs/{id}/findings?after= and GET /jobs; and the playbooks:
 * GET /playbooks, GET /playbooks/{name}[@version], POST /playbooks (administrators only).
 * API Gateway has refused unsigned and wrongly signed requests before this runs. A job is
 * shown only to the principal that submitted it and to the administrators the stack names
 * (`mayActOn`), and to the members of a playbook's approver group while its review waits for
 * them; anyone else gets the 404 of a missing job.
 */
export async function handler(event: ApiEvent): Promise<APIGatewayProxyStructuredResultV2> {
  const r = route(event);
  if (!r) {
    return json(404, {
      error: 'RouteNotFound',
      message: `no route ${event.requestContext.http.method} ${event.rawPath}; routes: ${API_ROUTES.map(routeKey).join(', ')}`,
    });
  }
  const caller = callerOf(event.requestContext.authorizer);
  try {
    const { jobs, holds, live, playbooks } = ensureApi();
    jobs.admit(caller);
    const id = r.id ?? '';
    // The raw query too: `?after=` (empty, to start) must count as given whether or not the
    // parsed parameters keep an empty value.
    // https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html
    const query = {
      ...Object.fromEntries(new URLSearchParams(event.rawQueryString ?? '')),
      ...event.queryStringParameters,
    };
    await jobs.limit(caller, limitedRouteOf(r.name, query));
    switch (r.name) {
      case 'submit':
        return json(201, await jobs.submit(body(event, r.name), caller));
      case 'quote':
        return json(200, await jobs.quote(body(event, r.name)));
      case 'status':
        return json(200, await jobs.status(id, caller));
      case 'cancel':
        return json(200, await jobs.cancel(id, caller));
      case 'report':
        return json(200, await jobs.report(id, caller));
      case 'pause':
        return json(200, await holds.pause(id, caller));
      case 'resume':
        return json(200, await holds.resume(id, caller));
      case 'findings':
        // `after=` (empty to start) asks for the clauses as their chunks consolidate.
        if (query.after !== undefined) return json(200, await live.findings(id, query.after, caller));
        return json(200, await holds.findings(id, caller));
      case 'decide':
        return json(200, await holds.decide(id, body(event, r.name), caller));
      case 'decide-redlines':
        return json(200, await holds.decideRedlines(id, body(event, r.name), caller));
      case 'list':
        return json(200, await live.list(query, caller));
      case 'playbooks':
        return json(200, await playbooks.list(caller));
      case 'playbook':
        return json(200, await playbooks.show(id, caller));
      case 'put-playbook': {
        const { status, view } = await playbooks.put(body(event, r.name), caller);
        return json(status, view);
      }
    }
  } catch (error) {
    if (isApiError(error)) {
      logger.info('refused', { route: r.name, status: error.statusCode, reason: error.message });
      const retryAfter = retryAfterOf(error);
      return json(
        error.statusCode,
        {
          error: error.name,
          message: error.message,
          ...(isBadRequestError(error) && error.issues.length > 0 ? { issues: error.issues } : {}),
          ...(isUnprocessableDocumentError(error) ? { reason: error.reason } : {}),
        },
        // https://www.rfc-editor.org/rfc/rfc9110#field.retry-after
        retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
      );
    }
    logger.error('failed', { route: r.name, error: error as Error });
    return json(500, { error: 'InternalError', message: 'the request failed; see the API function logs' });
  }
}
