/**
 * Public surface of the Amazon Bedrock Runtime stand-in: a loopback server that speaks the real
 * Converse wire protocol (HTTP/1.1 and h2c), injects seeded faults and bills like Bedrock.
 */
export {
  type AccountingSnapshot,
  type CallOutcome,
  callFingerprint,
  canonicalJson,
  duplicateBilledCalls,
  type MalformedAccountingKind,
  type UsageCounter,
} from './accounting.js';
export { type CapacityLease, CapacityModel, TOKEN_WINDOW_MS } from './capacity.js';
export {
  BEDROCK_ERROR_NAMES,
  BEDROCK_ERRORS,
  type BedrockErrorName,
  type BedrockErrorSpec,
  errorTypeHeader,
} from './errors.js';
export {
  type CapacityPlan,
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
  parseFaultPlanPatch,
  resolveModelPlan,
} from './fault-plan.js';
export { type AnalystAnswer, type AnalystRequest, analyze, STAND_IN_LABEL } from './heuristic-analyst.js';
export { type LatencySpec, sampleLatencyMs } from './latency.js';
export { createRandom, type Random } from './random.js';
export { type BedrockStandIn, type BedrockStandInOptions, startBedrockStandIn } from './server.js';
export {
  type CallChannel,
  STAND_IN_HEADER,
  StandInEngine,
  type StandInEngineOptions,
  type WireResponse,
} from './stand-in-engine.js';
