/**
 * The content security policy of the Word add-in's pages (the task pane and its sign-in page),
 * hosted beside the reviewer app and, locally, served by `local up`. It differs from the app's
 * where Office needs it to, and nowhere else:
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

/**
 * The add-in pages' policy: `connect` the hosts they call (the API, Cognito, the document
 * buckets), `https` false only on loopback, where nothing is upgraded.
 */
export function addinContentSecurityPolicy(connect: readonly string[], options: { https: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${OFFICE_SCRIPT_SOURCES.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${OFFICE_FRAME_ANCESTORS.join(' ')}`,
    ...(options.https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}
