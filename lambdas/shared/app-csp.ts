/**
 * What the reviewer app's browser may reach, written once for the hosted app
 * (lib/reviewer-app-hosting.ts) and `local up` (localstack/runtime/local-app.ts, local-api.ts):
 * its content security policy, which CloudFront and the loopback server both serve, and the
 * status API's CORS rule for its origin. The app runs its own scripts, styles and
 * images only, and talks only to its own origin, the stack's status API, the Cognito endpoints
 * it signs in through and the document buckets its presigned URLs point at; nothing frames it,
 * and it loads no plugin and posts no form elsewhere
 * (https://www.w3.org/TR/CSP3/#directive-connect-src).
 */

/** Where the app may send requests, besides its own origin. */
export interface AppConnections {
  /** The status API's origin (`https://<api id>.execute-api.<region>.amazonaws.com`), never a wildcard. */
  readonly api: string;
  /** The Cognito endpoints sign-in calls: the user pool's and the identity pool's (the emulator locally). */
  readonly cognito: readonly string[];
  /** The document buckets' origins, which presigned uploads and report downloads go to. */
  readonly buckets: readonly string[];
  /**
   * Whether the app is served over HTTPS only, so browsers upgrade any `http:` request. Off on
   * loopback, where everything is plain HTTP. @default true
   */
  readonly https?: boolean;
}

/** Cognito's public endpoints in a region: the user pool API and the identity pool API. */
export function cognitoEndpoints(region: string, urlSuffix = 'amazonaws.com'): string[] {
  return [`https://cognito-idp.${region}.${urlSuffix}`, `https://cognito-identity.${region}.${urlSuffix}`];
}

/**
 * The policy's header value.
 *
 * @example
 * appContentSecurityPolicy({ api: 'https://a1b2.execute-api.eu-west-1.amazonaws.com', cognito: cognitoEndpoints('eu-west-1'), buckets: [] });
 * // "default-src 'self'; …; connect-src 'self' https://a1b2.execute-api.eu-west-1.amazonaws.com https://cognito-idp.eu-west-1.amazonaws.com …"
 */
export function appContentSecurityPolicy(connections: AppConnections): string {
  const connect = [...new Set([connections.api, ...connections.cognito, ...connections.buckets])];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(connections.https === false ? [] : ['upgrade-insecure-requests']),
  ].join('; ');
}

/**
 * The status API's CORS rule for the app's origin, the same on API Gateway and locally: the
 * methods of its routes, the headers SigV4 signing adds, and how long a browser may keep a
 * preflight's answer (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html).
 */
export const APP_API_CORS = {
  allowMethods: ['GET', 'POST'],
  allowHeaders: [
    'authorization',
    'content-type',
    'x-amz-date',
    'x-amz-security-token',
    'x-amz-content-sha256',
  ],
  maxAgeSeconds: 3600,
} as const;
