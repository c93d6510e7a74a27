/**
 * What the reviewer app's browser may reach, written once for the hosted app
 * (lib/reviewer-app-hosting.ts) and `local up` (localstack/runtime/local-app.ts, local-api.ts):
 * its content security policy, which CloudFront and the loopback server both serve, and the
 * status API's CORS rule for its origin. The app runs its own scripts, styles and
 * images only, and talks only to its own origin, the stack's status API, the Cognito endpoints
 * it signs in through and the document buckets its presigned URLs point at; nothing frames it,
 * and it loads no plugin and posts no form elsewhere
 * (https://www.w3.org/TR/CSP3/#directive-connect-src).
 *
 * The Word add-in's pages (the task pane and its sign-in dialog, under `addin/` on the app's
 * origin) reach the same places and have the same policy, except where Office needs otherwise:
 * - `frame-ancestors`: Office on the web shows the task pane in a frame of its own pages, so
 *   those hosts (and only those) may frame it; the app itself stays `'none'`. Microsoft documents
 *   no canonical list (https://github.com/OfficeDev/office-js/issues/1005); these are the hosts
 *   Word on the web runs under, every one of which is in the chain of frames above the pane
 *   (https://github.com/OfficeDev/office-js/issues/3342,
 *   https://github.com/OfficeDev/office-js-docs-pr/issues/4911). Desktop Word shows the pane in
 *   a web view of its own, not a frame.
 * - `script-src`: office.js comes from Microsoft's CDN, which Office requires, and it loads
 *   its host's scripts from there (and, in older hosts, the Microsoft Ajax library).
 * - `style-src 'unsafe-inline'`: office.js's host scripts set inline styles
 *   (https://github.com/OfficeDev/office-js/issues/1687); scripts stay without it.
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

/** The Office hosts that may frame the add-in's pages. */
export const OFFICE_FRAME_ANCESTORS = [
  // Word on the web's own frame.
  'https://*.officeapps.live.com',
  // Documents in SharePoint and OneDrive for work or school.
  'https://*.sharepoint.com',
  // Documents in personal OneDrive.
  'https://onedrive.live.com',
  'https://*.onedrive.live.com',
  // Microsoft 365's own pages (office.com, and the newer *.cloud.microsoft hosts such as word.cloud.microsoft).
  'https://*.office.com',
  'https://*.cloud.microsoft',
] as const;

/** Where office.js and the scripts it loads come from. */
export const OFFICE_SCRIPT_SOURCES = [
  'https://appsforoffice.microsoft.com',
  'https://ajax.aspnetcdn.com',
] as const;

/** The sources a page's policy names beyond its own origin: what differs between the app and the add-in. */
interface PageSources {
  readonly scripts: readonly string[];
  readonly styles: readonly string[];
  readonly frameAncestors: readonly string[];
}

function contentSecurityPolicy(connections: AppConnections, page: PageSources): string {
  const connect = [...new Set([connections.api, ...connections.cognito, ...connections.buckets])];
  return [
    "default-src 'self'",
    ["script-src 'self'", ...page.scripts].join(' '),
    ["style-src 'self'", ...page.styles].join(' '),
    "img-src 'self' data:",
    `connect-src 'self' ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${page.frameAncestors.length > 0 ? page.frameAncestors.join(' ') : "'none'"}`,
    ...(connections.https === false ? [] : ['upgrade-insecure-requests']),
  ].join('; ');
}

/**
 * The app's policy: the header value.
 *
 * @example
 * appContentSecurityPolicy({ api: 'https://a1b2.execute-api.eu-west-1.amazonaws.com', cognito: cognitoEndpoints('eu-west-1'), buckets: [] });
 * // "default-src 'self'; …; connect-src 'self' https://a1b2.execute-api.eu-west-1.amazonaws.com https://cognito-idp.eu-west-1.amazonaws.com …"
 */
export function appContentSecurityPolicy(connections: AppConnections): string {
  return contentSecurityPolicy(connections, { scripts: [], styles: [], frameAncestors: [] });
}

/**
 * The Word add-in pages' policy: the app's connections, framed by Office's hosts only, with
 * office.js's scripts and inline styles.
 */
export function addinContentSecurityPolicy(connections: AppConnections): string {
  return contentSecurityPolicy(connections, {
    scripts: OFFICE_SCRIPT_SOURCES,
    styles: ["'unsafe-inline'"],
    frameAncestors: OFFICE_FRAME_ANCESTORS,
  });
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
