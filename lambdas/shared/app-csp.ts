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
 * The Word add-in's task pane (under `addin/` on the app's origin) reaches the same places and
 * has the same policy, except where Office needs otherwise:
 * - `frame-ancestors`: Word on the web shows the task pane in a frame of its own pages, and every
 *   page in the chain of frames above the pane must be named
 *   (https://www.w3.org/TR/CSP3/#directive-frame-ancestors). Microsoft documents no canonical
 *   list (https://github.com/OfficeDev/office-js/issues/1005); the chain is Office for the web's
 *   own frame (`*.officeapps.live.com`, or `word.cloud.microsoft`) under the page that opened the
 *   document: a tenant's SharePoint or OneDrive for work (`<tenant>.sharepoint.com`,
 *   `<tenant>-my.sharepoint.com`), or personal OneDrive (`onedrive.live.com`)
 *   (https://github.com/OfficeDev/office-js/issues/3342,
 *   https://github.com/OfficeDev/office-js-docs-pr/issues/4911). Only the tenants the stack
 *   names are let in: any tenant can put a page of its own on `*.sharepoint.com`, and such a page
 *   could frame the pane under a person's session. Desktop Word shows the pane in a web view of its
 *   own, not a frame.
 * - `script-src`: office.js from Microsoft's CDN, which Office requires, and the scripts it loads
 *   from there (and, in older hosts, the Microsoft Ajax library), each pinned to its path.
 * - `style-src 'unsafe-inline'`: office.js's host scripts set inline styles
 *   (https://github.com/OfficeDev/office-js/issues/1687); scripts stay without it.
 *
 * The add-in's sign-in page opens in Office's dialog, a window of its own and never a frame
 * (host.ts asks for `displayInIframe: false`), so it has the pane's scripts and styles and the
 * app's `frame-ancestors 'none'`.
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
 * The hosts of Office for the web that may frame the task pane, whatever the tenant: Microsoft's
 * own, where no tenant puts pages of its choosing.
 */
export const OFFICE_WEB_HOSTS = [
  // Office for the web's frames (Word's editor and viewer).
  'https://*.officeapps.live.com',
  // Word on the web's newer host.
  'https://word.cloud.microsoft',
  // Documents in personal OneDrive.
  'https://onedrive.live.com',
] as const;

/** A SharePoint tenant's name, as it leads its hosts (`contoso` of contoso.sharepoint.com). */
export const OFFICE_TENANT = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * Every host that may frame the task pane: {@link OFFICE_WEB_HOSTS}, and for each tenant named
 * its SharePoint and its OneDrive for work.
 *
 * @example
 * officeFrameAncestors(['contoso']); // [...OFFICE_WEB_HOSTS, 'https://contoso.sharepoint.com', 'https://contoso-my.sharepoint.com']
 */
export function officeFrameAncestors(tenants: readonly string[] = []): string[] {
  for (const tenant of tenants) {
    if (!OFFICE_TENANT.test(tenant))
      throw new RangeError(
        `'${tenant}' is not a SharePoint tenant name like contoso (lower-case letters, digits, '-')`,
      );
  }
  return [
    ...OFFICE_WEB_HOSTS,
    ...tenants.flatMap((t) => [`https://${t}.sharepoint.com`, `https://${t}-my.sharepoint.com`]),
  ];
}

/**
 * Where office.js and the scripts it loads come from, each pinned to its path: the hosted
 * office.js and what it loads beside it, and the Microsoft Ajax library older hosts load.
 */
export const OFFICE_SCRIPT_SOURCES = [
  'https://appsforoffice.microsoft.com/lib/1/hosted/',
  'https://ajax.aspnetcdn.com/ajax/3.5/MicrosoftAjax.js',
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
 * The Word add-in's task pane policy: the app's connections, framed by Office for the web and the
 * named tenants' SharePoint only ({@link officeFrameAncestors}), with office.js's scripts and
 * inline styles.
 */
export function addinContentSecurityPolicy(
  connections: AppConnections,
  officeTenants: readonly string[] = [],
): string {
  return contentSecurityPolicy(connections, {
    scripts: OFFICE_SCRIPT_SOURCES,
    styles: ["'unsafe-inline'"],
    frameAncestors: officeFrameAncestors(officeTenants),
  });
}

/**
 * The add-in's sign-in page policy: the pane's scripts and styles, and nothing may frame it
 * (Office opens it in a window of its own).
 */
export function addinSignInContentSecurityPolicy(connections: AppConnections): string {
  return contentSecurityPolicy(connections, {
    scripts: OFFICE_SCRIPT_SOURCES,
    styles: ["'unsafe-inline'"],
    frameAncestors: [],
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
