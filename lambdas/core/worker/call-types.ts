/**
 * What a model call is given and what it ends as: the process's shared dependencies, the chunk's
 * shared state, one call's inputs, and its result. The call itself is call.ts.
 */
import type { BedrockRuntimeClient, ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { AnalystDefinition } from '../analysts/index.js';
import type { Clause, Lane } from '../clause.js';
import type { DocumentContext } from '../documents/document-context.js';
import type { PipelineMetrics } from '../metrics/index.js';
import type { ModelPrice } from '../model-catalogue.js';
import type { CallFailureKind, CallLedger, CallRef, LedgerEntry } from '../state/call-ledger.js';
import type { UnstartedReason } from '../state/claims.js';
import type { BackoffPolicy } from './backoff.js';
import type { ChunkBudget } from './chunk-budget.js';
import type { ChunkStop } from './chunk-stop.js';
import type { FairKey } from './fair-queue.js';
import type { JobGate } from './job-gate.js';
import type { LimiterRegistry } from './limiter-registry.js';
import type { TokenBudgets } from './token-budget.js';

/** What every call of a process shares. */
export interface CallDeps {
  readonly bedrock: BedrockRuntimeClient;
  /** The contract's shared context (title, parties, definitions), the prompt's cacheable prefix. */
  readonly context?: DocumentContext;
  readonly ledger: CallLedger;
  /** Adaptive concurrency per model, shared by every chunk of the process. */
  readonly limiters?: LimiterRegistry;
  /** Tokens- and requests-per-minute budgets per model, shared with every process. @default none */
  readonly budgets?: TokenBudgets;
  readonly backoff: BackoffPolicy;
  readonly prices: Readonly<Record<string, ModelPrice>>;
  readonly modelTimeoutMs: number;
  readonly random: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  /** Called once per model request that is sent. */
  readonly onCallStart?: (call: CallRef, modelId: string) => void;
  /** Told about every request and every call's outcome. @default none */
  readonly metrics?: PipelineMetrics;
}

/** What a chunk's calls share: its budget, status gate and intents, and its stop signal. */
export interface ChunkCalls {
  readonly owner: string;
  readonly lane: Lane;
  /** The job's owner and id, whose fair share of a model's permits the calls wait for. */
  readonly tenant: FairKey;
  readonly budget: ChunkBudget;
  readonly gate: JobGate;
  /** False once the lease is too close to its end for a call to start under it. */
  readonly leaseHeld: () => boolean;
  /** Resolves once the intent of the call at this position is written. */
  readonly intentOf: (index: number) => Promise<void>;
  /** The run's one stop signal: no further call starts once it is aborted, with its reason. */
  readonly stop: ChunkStop;
}

/** The inputs of one call, bundled. */
export interface CallContext {
  readonly call: CallRef;
  /** Position among the chunk's calls to make (for its intent). */
  readonly index: number;
  readonly clause: Clause;
  readonly analyst: AnalystDefinition;
  /** The first attempt's request, when the caller built it already ({@link firstInput}). */
  readonly input?: ConverseCommandInput;
  readonly prior: LedgerEntry | undefined;
  readonly chunk: ChunkCalls;
  readonly deps: CallDeps;
}

/** How a call ended, and the model of its last attempt. */
export type CallResult = { readonly modelId: string; readonly retries: number } & (
  | { readonly kind: 'done'; readonly result: string }
  | { readonly kind: 'failed'; readonly failureKind: CallFailureKind }
  | { readonly kind: 'exhausted'; readonly error: string }
  | { readonly kind: 'unstarted'; readonly reason: UnstartedReason | 'paused' }
  | { readonly kind: 'lease-lost' }
);
