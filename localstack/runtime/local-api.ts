import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type CallerBudgets, CallerLimits } from '../../lambdas/api/caller-limits.js';
import { isApiError, PayloadTooLargeError } from '../../lambdas/api/errors.js';
import { configureApi, handler, presigningS3Client } from '../../lambdas/api/handler.js';
import type { JobsApiDeps } from '../../lambdas/api/jobs-api.js';
import { checkRequestSize, maxBodyBytes } from '../../lambdas/api/limits.js';
import { userPoolGroups, userPoolLabels } from '../../lambdas/api/people.js';
import { matchRoute } from '../../lambdas/api/routes.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { stageThrottle } from '../../lib/status-api.js';
import { LOCAL_REGION } from '../aws-clients.js';
import type { ProvisionedResources } from '../provision.js';
import type { LocalSignIn } from '../sign-in.js';
import { checkSigV4Headers, verifySigV4 } from '../sigv4-verify.js';
import { cognitoCallerLookup, type TemporaryCallerLookup } from './cognito-callers.js';
import { localCallerArn, proxyEvent, sessionRefusal, temporaryCaller } from './gateway-event.js';
import {
  applyCors,
  NODE_MAX_HEADER_SIZE,
  queryOf,
  readBody,
  refuseMalformed,
  reply,
  replyEarly,
  singleValued,
} from './http-wire.js';
import { LOCAL_RUN_DEFAULTS, type LocalRunSettings } from './local-env.js';
import { StageThrottle, type StageThrottleSettings, THROTTLED } from './stage-throttle.js';

export { localCallerArn } from './gateway-event.js';

/** Options of {@link startLocalApi}. */
export interface LocalApiOptions {
  /** What the API handler works with (table, buckets, a presigning S3 client on the emulator). */
  readonly deps: JobsApiDeps;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** Access key id → secret of the callers allowed in. @default the emulator credentials (test/test) */
  readonly credentials?: Readonly<Record<string, string>>;
  /**
   * Who is behind a temporary key (one a Cognito identity pool handed out), for keys not in
   * `credentials`; such a request must carry the key's session token and be signed before it
   * expires. @default none: only `credentials` are let in
   */
  readonly temporaryCallers?: TemporaryCallerLookup;
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Browser origins allowed to call the API (the reviewer app's), as the API's CORS rule names them. @default none */
  readonly allowOrigin?: (origin: string) => boolean;
  /**
   * The stage's throttle: requests a second and the burst, over every caller, as API Gateway's
   * stage throttles them (stage-throttle.ts). @default the deployed stage's (`stageThrottle()`:
   * 20 a second, bursts of 40)
   */
  readonly throttle?: StageThrottleSettings;
  /** The clock the stage's throttle refills by. @default Date.now */
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

/** A running local status API. */
export interface LocalApi {
  /** Base URL, ending in '/'. */
  readonly url: string;
  readonly region: string;
  close(): Promise<void>;
}

/** A request on its way in, once its route and sizes have passed. */
interface Arriving {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly rawPath: string;
  readonly query: Record<string, string | string[]>;
  readonly headers: Record<string, string>;
  readonly bodyLimit: number;
}

/**
 * API Gateway's IAM authorization of a request: the signature's header part (and a temporary
 * key's session token and expiry) before a byte of the body is read, then the body under its
 * limit and the whole signature. Answers the refusal itself and returns undefined; else the
 * caller and the body.
 */
async function authorize(
  a: Arriving,
  keys: {
    readonly region: string;
    readonly secrets: Readonly<Record<string, string>>;
    readonly lookup?: TemporaryCallerLookup;
    readonly log: (line: string) => void;
  },
) {
  const { req, res, method, rawPath, query, headers, bodyLimit } = a;
  const temporary = await temporaryCaller(headers, keys.secrets, keys.lookup);
  const verifier = {
    region: keys.region,
    secretOf: (id: string) =>
      keys.secrets[id] ?? (temporary?.key === id ? temporary.caller.secretAccessKey : undefined),
  };
  const early = checkSigV4Headers({ method, path: rawPath, query, headers }, verifier);
  const refusal = early.ok
    ? temporary && sessionRefusal(temporary.caller, headers)
    : { message: early.message, type: 'AccessDeniedException' };
  if (refusal) {
    keys.log(`local API: 403 ${method} ${rawPath}: ${refusal.message}`);
    replyEarly(req, res, 403, { message: refusal.message }, { 'x-amzn-errortype': refusal.type });
    return undefined;
  }
  const body = await readBody(req, bodyLimit);
  if (!body) {
    const error = new PayloadTooLargeError(bodyLimit + 1, bodyLimit);
    replyEarly(req, res, 413, {
      error: error.name,
      message: `the request body is over ${bodyLimit} bytes, the most the API reads`,
    });
    return undefined;
  }
  const verdict = await verifySigV4({ method, path: rawPath, query, headers, body }, verifier);
  if (!verdict.ok) {
    keys.log(`local API: 403 ${method} ${rawPath}: ${verdict.message}`);
    reply(res, 403, { message: verdict.message }, { 'x-amzn-errortype': 'AccessDeniedException' });
    return undefined;
  }
  return {
    body,
    accessKeyId: verdict.accessKeyId,
    temporary: temporary?.key === verdict.accessKeyId ? temporary.caller : undefined,
  };
}

/**
 * The status API on loopback, standing in for API Gateway's HTTP API with IAM authorization:
 * it throttles every caller together as the stage does (429, `{"message":"Too Many Requests"}`),
 * refuses a request line and headers over 10240 bytes with 431 and a declared body over the
 * API's limit with 413 before reading it, matches the routes the deployed API has, refuses
 * unsigned or wrongly signed requests with 403 (verifying SigV4 itself), and hands the rest to
 * the same Lambda handler as an APIGatewayProxyEventV2 (payload format 2.0). Each access key
 * is a caller of its own (`localCallerArn`), so jobs belong to the key that submitted them.
 */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const region = options.region ?? LOCAL_REGION;
  const secrets = options.credentials ?? {
    [EMULATOR_CREDENTIALS.accessKeyId]: EMULATOR_CREDENTIALS.secretAccessKey,
  };
  const log = options.log ?? (() => {});
  const stage = new StageThrottle(options.throttle ?? stageThrottle(), options.now);
  configureApi(options.deps);

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
    const headers = singleValued(req);
    if (applyCors(req, res, options.allowOrigin)) return;
    if (!stage.take()) {
      log(`local API: 429 ${method} ${rawPath}: the stage's throttle`);
      return replyEarly(req, res, THROTTLED.status, THROTTLED.body);
    }
    // Sizes first, from the request line and the length header alone, then the route and the
    // signature's header part: nothing of the body is read for a request that will be refused.
    // The route is matched from the request line alone, so the body limit can be its own.
    const matched = matchRoute(method, rawPath);
    const bodyLimit = maxBodyBytes(matched?.route.name);
    try {
      checkRequestSize({
        requestLine: `${method} ${req.url ?? '/'} HTTP/${req.httpVersion}`,
        headerValues: Object.values(headers),
        ...(headers['content-length'] !== undefined ? { contentLength: headers['content-length'] } : {}),
        maxBodyBytes: bodyLimit,
      });
    } catch (error) {
      if (!isApiError(error)) throw error;
      log(`local API: ${error.statusCode} ${method} ${rawPath}: ${error.message}`);
      return replyEarly(req, res, error.statusCode, { error: error.name, message: error.message });
    }
    if (!matched) return replyEarly(req, res, 404, { message: 'Not Found' });
    const signed = await authorize(
      { req, res, method, rawPath, query: queryOf(url), headers, bodyLimit },
      { region, secrets, log, ...(options.temporaryCallers ? { lookup: options.temporaryCallers } : {}) },
    );
    if (!signed) return;
    const event = proxyEvent({ req, method, url, rawPath, headers, matched, ...signed });
    const result = (await handler(event)) as APIGatewayProxyStructuredResultV2;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) out[k] = String(v);
    res.writeHead(result.statusCode ?? 200, out);
    res.end(result.body ?? '');
  };

  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_SIZE }, (req, res) => {
    serve(req, res).catch((error: unknown) => {
      log(`local API: 500 ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) reply(res, 500, { message: 'Internal Server Error' });
      else res.destroy();
    });
  });
  server.on('clientError', refuseMalformed);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    region,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** What {@link startPipelineApi} serves. */
export interface PipelineApiOptions {
  /** The emulator's endpoint, where presigned URLs point. */
  readonly awsEndpoint: string;
  readonly db: DynamoDBDocumentClient;
  readonly resources: ProvisionedResources;
  /** @default LOCAL_RUN_DEFAULTS */
  readonly settings?: LocalRunSettings;
  /** Access key id → secret of the callers allowed in. @default the emulator credentials (test/test) */
  readonly credentials?: Readonly<Record<string, string>>;
  /** Browser origins allowed to call the API. @default none */
  readonly allowOrigin?: (origin: string) => boolean;
  /** Each caller's budget of the routes given, the rest as the deployed API's. @default DEFAULT_CALLER_BUDGETS */
  readonly callerBudgets?: Partial<CallerBudgets>;
  /**
   * Principals who may act on every job (`localCallerArn` of a key).
   * @default the emulator key's caller: on a local stack the person at the keyboard owns the
   * account, and uploads made straight to the intake bucket (`aws s3 cp`) carry no principal
   * of theirs, so without it nobody could read those jobs.
   */
  readonly administrators?: readonly string[];
  /**
   * The local sign-in: people signed in through its identity pool are let in with the keys it
   * hands them (each their own caller), and its administrators role is an administrator.
   * @default none
   */
  readonly signIn?: LocalSignIn;
  /** The stage's throttle. @default the deployed stage's (`stageThrottle()`) */
  readonly throttle?: StageThrottleSettings;
  /**
   * Lets a job's owner decide the escalations its playbook raised, as `-c
   * ownersDecideOwnEscalations=true` does a deployed stack's: a team of one. @default false
   */
  readonly ownersDecideOwnEscalations?: boolean;
  readonly log?: (line: string) => void;
}

/** As the deployed API: the trail names a person by their email, and their groups let them decide escalations. */
function userPoolDeps(idp: CognitoIdentityProviderClient, userPoolId: string, log?: (line: string) => void) {
  const warn = (m: string, e: unknown) => log?.(`${m}: ${e}`);
  return {
    people: userPoolLabels(idp, userPoolId, warn),
    groups: userPoolGroups(idp, userPoolId, { log: warn }),
  };
}

/**
 * The status API over a provisioned local stack: its table and buckets, the local run's
 * default lane and ceiling, and a presigning S3 client on the emulator, closed with the API.
 */
export async function startPipelineApi(options: PipelineApiOptions): Promise<LocalApi> {
  const { resources } = options;
  const settings = options.settings ?? LOCAL_RUN_DEFAULTS;
  const presigner = presigningS3Client({
    endpoint: options.awsEndpoint,
    region: LOCAL_REGION,
    credentials: EMULATOR_CREDENTIALS,
    forcePathStyle: true,
  });
  const aws = { endpoint: options.awsEndpoint, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS };
  const sqs = new SQSClient(aws);
  // As the deployed API: the decision trail names a person by their email in the user pool.
  const idp = options.signIn ? new CognitoIdentityProviderClient(aws) : undefined;
  const api = await startLocalApi({
    deps: {
      db: options.db,
      s3: presigner,
      tableName: resources.tableName,
      intakeBucket: resources.intakeBucket,
      intakePrefix: resources.intakePrefix,
      resultsBucket: resources.resultsBucket,
      defaultLane: settings.defaultLane,
      defaultCeilingMicros: settings.defaultCeilingMicros,
      maxCeilingMicros: settings.maxCeilingMicros,
      ...(settings.minReviewHours !== undefined ? { minReviewHours: settings.minReviewHours } : {}),
      ...(options.ownersDecideOwnEscalations ? { ownersDecideOwnEscalations: true } : {}),
      uploadUrlSeconds: 900,
      reportUrlSeconds: 900,
      administrators: [
        ...(options.administrators ?? [localCallerArn(EMULATOR_CREDENTIALS.accessKeyId)]),
        ...(options.signIn ? [options.signIn.administratorRoleArn] : []),
      ],
      sqs,
      laneQueueUrls: resources.queueUrls,
      finalizeQueueUrl: resources.queueUrls.finalize,
      resultsPrefix: resources.resultsPrefix,
      callerLimits: new CallerLimits(options.db, resources.tableName, options.callerBudgets),
      ...(idp && options.signIn ? userPoolDeps(idp, options.signIn.userPoolId, options.log) : {}),
      // What local intake reads with (its models are the model table's defaults, as here).
      maxDocumentBytes: settings.maxDocumentBytes,
      chunkClauses: settings.chunkClauses,
    },
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.signIn ? { temporaryCallers: cognitoCallerLookup(options.awsEndpoint) } : {}),
    ...(options.allowOrigin ? { allowOrigin: options.allowOrigin } : {}),
    ...(options.throttle ? { throttle: options.throttle } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  return {
    ...api,
    async close() {
      await api.close();
      presigner.destroy();
      sqs.destroy();
      idp?.destroy();
    },
  };
}
