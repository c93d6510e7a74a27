/**
 * The routes of the status API: one list the CDK construct creates API Gateway routes from,
 * the handler dispatches on, and the local API server matches requests against, so the three
 * cannot disagree.
 */

/** What a route does; the handler maps each to one operation of the core. */
export type RouteName =
  | 'submit'
  | 'quote'
  | 'status'
  | 'cancel'
  | 'report'
  | 'pause'
  | 'resume'
  | 'findings'
  | 'decide'
  | 'decide-redlines'
  | 'list'
  | 'playbooks'
  | 'playbook'
  | 'put-playbook';

/** One route: an HTTP method and an API Gateway path template. */
export interface ApiRoute {
  readonly name: RouteName;
  readonly method: 'GET' | 'POST';
  /** API Gateway path template; `{id}` is a path parameter. */
  readonly path: string;
}

/** Every route of the status API. */
export const API_ROUTES: readonly ApiRoute[] = [
  { name: 'submit', method: 'POST', path: '/jobs' },
  { name: 'quote', method: 'POST', path: '/quote' },
  { name: 'status', method: 'GET', path: '/jobs/{id}' },
  { name: 'cancel', method: 'POST', path: '/jobs/{id}/cancel' },
  { name: 'report', method: 'GET', path: '/jobs/{id}/report' },
  { name: 'pause', method: 'POST', path: '/jobs/{id}/pause' },
  { name: 'resume', method: 'POST', path: '/jobs/{id}/resume' },
  { name: 'findings', method: 'GET', path: '/jobs/{id}/findings' },
  { name: 'decide', method: 'POST', path: '/jobs/{id}/decisions' },
  { name: 'decide-redlines', method: 'POST', path: '/jobs/{id}/redlines' },
  { name: 'list', method: 'GET', path: '/jobs' },
  { name: 'playbooks', method: 'GET', path: '/playbooks' },
  { name: 'playbook', method: 'GET', path: '/playbooks/{id}' },
  { name: 'put-playbook', method: 'POST', path: '/playbooks' },
];

/** API Gateway's route key of a route, as `event.routeKey` carries it: `GET /jobs/{id}`. */
export const routeKey = (route: ApiRoute) => `${route.method} ${route.path}`;

/**
 * The route a method and raw path match, with its path parameters (URL-decoded), as API
 * Gateway would resolve them; undefined when none matches.
 *
 * @example
 * matchRoute('GET', '/jobs/j-1/report'); // { route: report, pathParameters: { id: 'j-1' } }
 */
export function matchRoute(
  method: string,
  rawPath: string,
): { route: ApiRoute; pathParameters: Record<string, string> } | undefined {
  const parts = rawPath.replace(/\/+$/, '').split('/');
  for (const route of API_ROUTES) {
    if (route.method !== method.toUpperCase()) continue;
    const template = route.path.split('/');
    if (template.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (const [i, segment] of template.entries()) {
      const actual = parts[i] ?? '';
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (param) {
        if (actual === '') ok = false;
        else params[param] = safeDecode(actual);
      } else if (segment !== actual) ok = false;
      if (!ok) break;
    }
    if (ok) return { route, pathParameters: params };
  }
  return undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
