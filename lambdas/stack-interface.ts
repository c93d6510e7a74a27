/**
 * What the infrastructure (`lib/`) and the runtime must agree on, in one place: lanes and queue
 * roles, the status API's routes and environment, the runtime's environment, metric names, the
 * model table and panel, and the sweeper's timing rules. `lib/` imports from `lambdas/` only
 * through this module (test/unit/rules/import-boundaries.test.ts fails otherwise), so what the stack
 * builds and what the handlers read cannot drift, and the runtime never imports `lib/`.
 */

export { type CallerBudgets, DEFAULT_CALLER_BUDGETS } from './api/caller-limits.js';
export type { ApiConfig } from './api/config.js';
export { API_ROUTES, type ApiRoute, routeKey } from './api/routes.js';
export { ANALYSTS, checkPanelModels, type ModelChoice, panelModelIds } from './core/analysts/index.js';
export { BATCH_IDLE_MINUTES, LANE_COMPUTE } from './core/intake/lane-cost.js';
export {
  byLane,
  byRole,
  DEFAULT_CEILING_MICROS,
  DEFAULT_CHUNK_CLAUSES,
  DEFAULT_MAX_CEILING_MICROS,
  isLane,
  keyed,
  LANE_CHOICES,
  LANE_CONSUMERS,
  LANES,
  type Lane,
  lanesConsumedBy,
  QUEUE_ROLES,
  type QueueRole,
} from './core/lanes-and-limits.js';
export { DIMENSION, METRIC, METRICS_NAMESPACE, type MetricName } from './core/metrics/index.js';
export { FALLBACK_MODEL_ID, MODEL_PRICES, modelSpec, PRIMARY_MODEL_ID } from './core/model-catalogue.js';
export { ADMINISTRATORS_GROUP, shippedApproverGroups } from './core/playbooks/index.js';
export {
  CALLER_RATE_PREFIX,
  OWNER_INDEX,
  OWNER_SLOTS_PREFIX,
  PLAYBOOK_KEY_PREFIX,
  STATUS_INDEX,
} from './core/state/keys.js';
export { type SweepRules, type SweepTopology, sweepRules } from './core/sweeper/rules.js';
export {
  APP_API_CORS,
  type AppConnections,
  addinContentSecurityPolicy,
  addinSignInContentSecurityPolicy,
  appContentSecurityPolicy,
  cognitoEndpoints,
  OFFICE_TENANT,
  OFFICE_WEB_HOSTS,
  officeFrameAncestors,
} from './shared/app-csp.js';
export type { RuntimeConfig } from './shared/config.js';
