import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { configureApi, handler, presigningS3Client } from '../../lambdas/api/handler.js';
import type { JobsApiDeps } from '../../lambdas/api/jobs-api.js';
import { matchRoute, routeKey } from '../../lambdas/api/routes.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../aws-clients.js';
import type { ProvisionedResources } from '../provision.js';
import { verifySigV4 } from '../sigv4-verify.js';
import { LOCAL_RUN_DEFAULTS, type LocalRunSettings } from './local-env.js';

/** Options of {@link startLocalApi}. */
export interface LocalApiOptions {
  /** What the API handler works with (table, buckets, a presigning S3 client on the emulator). */
  readonly deps: JobsApiDeps;
  /** @default LOCAL_REGION */
  readonly region?: string;
  /** Access key id → secret of the callers allowed in. @default the emulator credentials (test/test) */
  readonly credentials?: Readonly<Record<string, string>>;
  /** @default 0 (a free port) */
  readonly port?: number;
  readonly log?: (line: string) => void;
}

/** A running local status API. */
export interface LocalApi {
  /** Base URL, ending in '/'. */
  readonly url: string;
  readonly region: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
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

function singleValued(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/**
 * The status API on loopback, standing in for API Gateway's HTTP API with IAM authorization:
 * it matches the routes the deployed API has, refuses unsigned or wrongly signed requests with
 * 403 (verifying SigV4 itself), and hands the rest to the same Lambda handler as an
 * APIGatewayProxyEventV2 (payload format 2.0).
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
    const body = await readBody(req);
    const matched = matchRoute(method, rawPath);
    if (!matched) return reply(res, 404, { message: 'Not Found' });
    const headers = singleValued(req);
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of url.searchParams) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    const verdict = await verifySigV4(
      { method, path: rawPath, query, headers, body },
      { region, secretOf: (id) => secrets[id] },
    );
    if (!verdict.ok) {
      log(`local API: 403 ${method} ${rawPath}: ${verdict.message}`);
      return reply(res, 403, { message: verdict.message }, { 'x-amzn-errortype': 'AccessDeniedException' });
    }
    const now = new Date();
    const text = body.toString('utf8');
    const event: APIGatewayProxyEventV2 & {
      requestContext: { authorizer: { iam: Record<string, string | null> } };
    } = {
      version: '2.0',
      routeKey: routeKey(matched.route),
      rawPath,
      rawQueryString: url.search.replace(/^\?/, ''),
      headers,
      ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
      pathParameters: matched.pathParameters,
      ...(body.length > 0 ? { body: text } : {}),
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
            accessKey: verdict.accessKeyId,
            accountId: '000000000000',
            callerId: verdict.accessKeyId,
            cognitoIdentity: null,
            principalOrgId: 'local',
            userArn: `arn:aws:iam::000000000000:user/${verdict.accessKeyId}`,
            userId: verdict.accessKeyId,
          },
        },
      },
    };
    const result = (await handler(event)) as APIGatewayProxyStructuredResultV2;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(result.headers ?? {})) out[k] = String(v);
    res.writeHead(result.statusCode ?? 200, out);
    res.end(result.body ?? '');
  };

  const server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      log(`local API: 500 ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) reply(res, 500, { message: 'Internal Server Error' });
      else res.destroy();
    });
  });
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
  readonly log?: (line: string) => void;
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
    },
    ...(options.log ? { log: options.log } : {}),
  });
  return {
    ...api,
    async close() {
      await api.close();
      presigner.destroy();
    },
  };
}
