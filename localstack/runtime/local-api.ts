import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type CallerBudgets, CallerLimits } from '../../lambdas/api/caller-limits.js';
import { isApiError, PayloadTooLargeError } from '../../lambdas/api/errors.js';
import { configureApi, handler, presigningS3Client } from '../../lambdas/api/handler.js';
import type { JobsApiDeps } from '../../lambdas/api/jobs-api.js';
import { checkRequestSize, MAX_HEADER_BYTES, maxBodyBytes } from '../../lambdas/api/limits.js';
import { userPoolGroups, userPoolLabels } from '../../lambdas/api/people.js';
import { matchRoute, routeKey } from '../../lambdas/api/routes.js';
import { APP_API_CORS } from '../../lambdas/shared/app-csp.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../aws-clients.js';
import type { ProvisionedResources } from '../provision.js';
import type { LocalSignIn } from '../sign-in.js';
import { checkSigV4Headers, verifySigV4 } from '../sigv4-verify.js';
import { cognitoCallerLookup, type TemporaryCaller, type TemporaryCallerLookup } from './cognito-callers.js';
import { LOCAL_RUN_DEFAULTS, type LocalRunSettings } from './local-env.js';

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
  readonly log?: (line: string) => void;
}

/**
 * CORS as API Gateway's HTTP API does it once configured (the stack's rule, APP_API_CORS): it answers a preflight OPTIONS
 * itself, without authorization or a route, and adds the CORS headers to every answer to an
 * allowed origin
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html).
 * Returns true when the request was a preflight and has been answered.
 */
function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  allowOrigin: ((origin: string) => boolean) | undefined,
): boolean {
  const origin = req.headers.origin;
  const allowed = origin !== undefined && allowOrigin?.(origin) === true;
  if (allowed) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
  }
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
  res.writeHead(
    204,
    allowed
      ? {
          'access-control-allow-methods': APP_API_CORS.allowMethods.join(','),
          'access-control-allow-headers': APP_API_CORS.allowHeaders.join(','),
          'access-control-max-age': String(APP_API_CORS.maxAgeSeconds),
        }
      : {},
  );
  res.end();
  drain(req);
  return true;
}

/** A running local status API. */
export interface LocalApi {
  /** Base URL, ending in '/'. */
  readonly url: string;
  readonly region: string;
  close(): Promise<void>;
}

/** Bytes of an unwanted body drained after an early answer before the connection is dropped. */
const MAX_DRAIN_BYTES = 32 * 1024 * 1024;

/**
 * Node's own header limit, far above the API's so that the API's rule decides; a request past
 * this one is answered by the server's `clientError` handler, with the same 431.
 */
const NODE_MAX_HEADER_SIZE = 256 * 1024;

/** The body, up to `limit` bytes; undefined when it runs past (a body sent without a length). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.off('data', onData);
        resolve(undefined);
      } else chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Reads and discards what the caller still sends after an early answer, so the answer is not
 * lost to a connection reset; a caller that keeps sending past a bound is cut off.
 */
function drain(req: IncomingMessage): void {
  let drained = 0;
  req.on('data', (c: Buffer) => {
    drained += c.length;
    if (drained > MAX_DRAIN_BYTES) req.destroy();
  });
  req.resume();
}

function reply(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Answers before the body was read: the connection closes, and what is still coming is drained. */
function replyEarly(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers = {},
): void {
  reply(res, status, body, { connection: 'close', ...headers });
  drain(req);
}

/** The caller an access key stands for: an IAM user named after the key. */
export function localCallerArn(accessKeyId: string): string {
  return `arn:aws:iam::000000000000:user/${accessKeyId}`;
}

function singleValued(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/** A URL's query parameters, a repeated one as a list (as SigV4 canonicalises them). */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return query;
}

/**
 * The event API Gateway's HTTP API hands a Lambda integration for a verified request
 * (payload format 2.0), with the IAM authorizer's caller: the access key that signed it.
 */
function proxyEvent(r: {
  req: IncomingMessage;
  method: string;
  url: URL;
  rawPath: string;
  headers: Record<string, string>;
  matched: NonNullable<ReturnType<typeof matchRoute>>;
  body: Buffer;
  accessKeyId: string;
  temporary: TemporaryCaller | undefined;
}): APIGatewayProxyEventV2 & { requestContext: { authorizer: { iam: Record<string, unknown> } } } {
  const { req, method, url, rawPath, headers, matched, body, accessKeyId, temporary } = r;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: routeKey(matched.route),
    rawPath,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    pathParameters: matched.pathParameters,
    ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: routeKey(matched.route),
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      authorizer: {
        iam: {
          accessKey: accessKeyId,
          accountId: '000000000000',
          callerId: temporary?.userId ?? accessKeyId,
          cognitoIdentity: temporary
            ? {
                amr: [...temporary.amr],
                identityId: temporary.identityId,
                identityPoolId: temporary.identityPoolId,
              }
            : null,
          principalOrgId: 'local',
          userArn: temporary?.arn ?? localCallerArn(accessKeyId),
          userId: temporary?.userId ?? accessKeyId,
        },
      },
    },
  };
}

/** The temporary key a request is signed with, when it is not one of the static keys. */
async function temporaryCaller(
  headers: Record<string, string>,
  secrets: Readonly<Record<string, string>>,
  lookup: TemporaryCallerLookup | undefined,
): Promise<{ key: string; caller: TemporaryCaller } | undefined> {
  const key = /Credential=([^/,\s]+)\//.exec(headers.authorization ?? '')?.[1];
  if (!key || !lookup || secrets[key] !== undefined) return undefined;
  const caller = await lookup(key);
  return caller ? { key, caller } : undefined;
}

/**
 * Why API Gateway would refuse a request signed with a temporary key: without its session
 * token, or after the key expired (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_use-resources.html).
 */
function sessionRefusal(
  caller: TemporaryCaller,
  headers: Record<string, string>,
): { message: string; type: string } | undefined {
  const type = 'UnrecognizedClientException';
  if (headers['x-amz-security-token'] !== caller.sessionToken)
    return { message: 'The security token included in the request is invalid.', type };
  if (Date.now() >= caller.expiresAt)
    return { message: 'The security token included in the request is expired', type };
  return undefined;
}

/**
 * Answers a request Node's parser refused, as API Gateway does: 431 for a request line and
 * headers over its limit, 400 for anything else it cannot read.
 */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    tooLarge
      ? {
          error: 'HeadersTooLargeError',
          message: `the request line and headers are over ${MAX_HEADER_BYTES} bytes`,
        }
      : { message: 'Bad Request' },
  );
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The status API on loopback, standing in for API Gateway's HTTP API with IAM authorization:
 * it refuses a request line and headers over 10240 bytes with 431 and a declared body over the
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
  configureApi(options.deps);

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const rawPath = (req.url ?? '/').split('?')[0] ?? '/';
    const headers = singleValued(req);
    if (applyCors(req, res, options.allowOrigin)) return;
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
    const query = queryOf(url);
    const temporary = await temporaryCaller(headers, secrets, options.temporaryCallers);
    const verifier = {
      region,
      secretOf: (id: string) =>
        secrets[id] ?? (temporary?.key === id ? temporary.caller.secretAccessKey : undefined),
    };
    const early = checkSigV4Headers({ method, path: rawPath, query, headers }, verifier);
    const refusal = early.ok
      ? temporary && sessionRefusal(temporary.caller, headers)
      : { message: early.message, type: 'AccessDeniedException' };
    if (refusal) {
      log(`local API: 403 ${method} ${rawPath}: ${refusal.message}`);
      return replyEarly(req, res, 403, { message: refusal.message }, { 'x-amzn-errortype': refusal.type });
    }
    const body = await readBody(req, bodyLimit);
    if (!body) {
      const error = new PayloadTooLargeError(bodyLimit + 1, bodyLimit);
      return replyEarly(req, res, 413, {
        error: error.name,
        message: `the request body is over ${bodyLimit} bytes, the most the API reads`,
      });
    }
    const verdict = await verifySigV4({ method, path: rawPath, query, headers, body }, verifier);
    if (!verdict.ok) {
      log(`local API: 403 ${method} ${rawPath}: ${verdict.message}`);
      return reply(res, 403, { message: verdict.message }, { 'x-amzn-errortype': 'AccessDeniedException' });
    }
    const event = proxyEvent({
      req,
      method,
      url,
      rawPath,
      headers,
      matched,
      body,
      accessKeyId: verdict.accessKeyId,
      temporary: temporary?.key === verdict.accessKeyId ? temporary.caller : undefined,
    });
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
      defaultCostLimit: settings.defaultCostCeilingMicros,
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
