/**
 * Public surface of the Amazon Bedrock Runtime stand-in: a loopback server that speaks the real
 * Converse wire protocol (HTTP/1.1 and h2c), injects seeded faults and bills like Bedrock.
 */
export {
  type AccountingSnapshot,
  type CacheCounter,
  type CallOutcome,
  callFingerprint,
  canonicalJson,
  duplicateBilledCalls,
  type MalformedAccountingKind,
  repeatedAnswers,
  type UsageCounter,
} from './accounting.js';
export { type CapacityLease, CapacityModel, TOKEN_WINDOW_MS } from './capacity.js';
export {
  type CacheField,
  Catalogue,
  type CatalogueModel,
  DEFAULT_REGION,
  effectiveLifecycle,
  foundationModelArn,
  type InferenceType,
  inferenceProfileArn,
  type LifecycleOverride,
  type LifecycleStatus,
  type ModelLifecycle,
  type ProfileGeography,
  type PromptCachingSpec,
  profileIdOf,
  type ResolvedModel,
  STAND_IN_ACCOUNT,
} from './catalogue.js';
export { DEFAULT_CATALOGUE } from './catalogue-models.js';
export { type CatalogueView, controlPlane, regionOfAuthorization } from './control-plane.js';
export {
  CONTENT_FILTERED_TEXT,
  DEFAULT_MAX_TOKENS,
  GUARDRAIL_BLOCKED_TEXT,
  REFUSAL_TEXT,
  type StopReason,
} from './converse-answer.js';
export {
  BEDROCK_ERROR_NAMES,
  BEDROCK_ERRORS,
  type BedrockErrorName,
  type BedrockErrorSpec,
  errorTypeHeader,
  MODEL_MESSAGES,
} from './errors.js';
export {
  type CapacityPlan,
  type CataloguePlan,
  DEFAULT_FAULT_PLAN,
  type FaultPlan,
  type FaultPlanCore,
  type FaultPlanCorePatch,
  FaultPlanError,
  type FaultPlanPatch,
  type HangPlan,
  isFaultPlanError,
  MALFORMED_KINDS,
  type MalformedKind,
  type MalformedPlan,
  mergeFaultPlan,
  PLANNED_STOP_REASONS,
  type PlannedStopReason,
  parseFaultPlanPatch,
  resolveModelPlan,
  type StopReasonPlan,
} from './fault-plan.js';
export { analyze } from './heuristic-analyst.js';
export { type AnalystAnswer, type AnalystRequest, STAND_IN_LABEL } from './heuristic-types.js';
export { type LatencySpec, sampleLatencyMs } from './latency.js';
export {
  CACHE_TTL_MS,
  type CacheCheckpoint,
  type CacheUse,
  cacheCheckpoints,
  PromptCache,
} from './prompt-cache.js';
export { createRandom, type Random } from './random.js';
export { type BedrockStandIn, type BedrockStandInOptions, startBedrockStandIn } from './server.js';
export {
  type CallChannel,
  type CallContext,
  STAND_IN_HEADER,
  StandInEngine,
  type StandInEngineOptions,
  type WireResponse,
} from './stand-in-engine.js';
