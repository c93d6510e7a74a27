import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { matchRoute, routeKey } from '../../lambdas/api/routes.js';

/** One request as API Gateway (HTTP API, payload 2.0, IAM authorizer) hands it to the API function. */
export interface ApiRequest {
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  query?: string;
  body?: string;
  /** requestContext.authorizer; see {@link iamCaller}. Absent for an unsigned request. */
  authorizer?: unknown;
  /** requestContext.timeEpoch. */
  timeEpoch?: number;
}

/** The authorizer context of a request signed by the IAM principal `arn`. */
export const iamCaller = (arn: string) => ({ iam: { userArn: arn, userId: arn.split('/').at(-1) } });

/** The event API Gateway builds for `request`, routed as the stack's routes route it. */
export function apiEvent(request: ApiRequest): APIGatewayProxyEventV2 {
  const { method, path, query = '', body, authorizer, timeEpoch = Date.now() } = request;
  const matched = matchRoute(method, path);
  return {
    version: '2.0',
    routeKey: matched ? routeKey(matched.route) : '$default',
    rawPath: path,
    rawQueryString: query,
    headers: {},
    ...(query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(query)) } : {}),
    pathParameters: matched?.pathParameters ?? {},
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'r',
      routeKey: matched ? routeKey(matched.route) : '$default',
      stage: '$default',
      time: '',
      timeEpoch,
      ...(authorizer === undefined ? {} : { authorizer }),
    },
  } as APIGatewayProxyEventV2;
}

/** What `handler` answers `request`: its status, headers and parsed JSON body. */
export async function askApi<Body = Record<string, unknown>>(
  handler: (event: APIGatewayProxyEventV2) => Promise<unknown>,
  request: ApiRequest,
) {
  const r = (await handler(apiEvent(request))) as APIGatewayProxyStructuredResultV2;
  const raw = r.body ?? '';
  return {
    status: r.statusCode ?? 0,
    headers: r.headers ?? {},
    raw,
    body: (raw ? JSON.parse(raw) : {}) as Body,
  };
}
