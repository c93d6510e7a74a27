/**
 * What API Gateway's HTTP API hands the function for a verified request: the payload format 2.0
 * event with the IAM authorizer's caller, and the callers behind temporary keys a Cognito
 * identity pool handed out.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type matchRoute, routeKey } from '../../lambdas/api/routes.js';
import type { TemporaryCaller, TemporaryCallerLookup } from './cognito-callers.js';

/** The caller an access key stands for: an IAM user named after the key. */
export function localCallerArn(accessKeyId: string): string {
  return `arn:aws:iam::000000000000:user/${accessKeyId}`;
}

/**
 * The event API Gateway's HTTP API hands a Lambda integration for a verified request
 * (payload format 2.0), with the IAM authorizer's caller: the access key that signed it.
 */
export function proxyEvent(r: {
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
export async function temporaryCaller(
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
export function sessionRefusal(
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
