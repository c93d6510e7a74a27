/**
 * The stand-in's behaviour, independent of HTTP: plan, capacity, seeded faults, latency, the
 * analyst's answer and the books. The transport hands it a model id and a body and writes back
 * whatever it returns.
 */
import { Accounting, type AccountingSnapshot, type CallOutcome, callFingerprint } from './accounting.js';
import { type CapacityLease, CapacityModel } from './capacity.js';
import {
  Catalogue,
  type CatalogueModel,
  DEFAULT_REGION,
  effectiveLifecycle,
  type ModelLifecycle,
} from './catalogue.js';
import { DEFAULT_CATALOGUE } from './catalogue-models.js';
import {
  estimatedTokens,
  finishAnswer,
  prepareAnswer,
  renderAnswerBody,
  withCacheUse,
} from './converse-answer.js';
import {
  BEDROCK_ERROR_NAMES,
  type BedrockErrorName,
  bedrockError,
  TOKEN_THROTTLE_MESSAGE,
  type WireError,
} from './errors.js';
import {
  DEFAULT_FAULT_PLAN,
  type FaultPlan,
  type FaultPlanCore,
  type FaultPlanPatch,
  MALFORMED_KINDS,
  type MalformedKind,
  mergeFaultPlan,
  PLANNED_STOP_REASONS,
  type PlannedStopReason,
  parseFaultPlanPatch,
  resolveModelPlan,
} from './fault-plan.js';
import type { OfflineAnalystName } from './heuristic-types.js';
import { sampleLatencyMs } from './latency.js';
import { offlineAnalyst } from './offline-analysts.js';
import { type CacheUse, cacheCheckpoints, PromptCache } from './prompt-cache.js';
import { createRandom, hasRates, pick, type Random, randomUuid } from './random.js';
import { checkRequest } from './request-checks.js';

/** The client side of one call, as the transport sees it. */
export interface CallChannel {
  /** True once the client has gone away (closed its stream or connection). */
  readonly closed: boolean;
  /** Runs `listener` once when the client goes away; returns a function that unsubscribes. */
  onClose(listener: () => void): () => void;
}

/** A complete HTTP answer. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Held this long before it is written: an answer billed, and late on its way back. */
  readonly deliverAfterMs?: number;
}

/**
 * Whether an answer, billed already, is late on its way back (see LateAnswerPlan): drawn last,
 * and only when the plan has late answers, so plans without them keep their sequences.
 */
function lateDraw(plan: FaultPlanCore, random: Pick<Random, 'next'>): boolean {
  return plan.lateAnswer.probability > 0 && random.next() < plan.lateAnswer.probability;
}

/** Header on every answer, naming the offline analyst (`offline-learned` or `offline-heuristic`). */
export const STAND_IN_HEADER = { name: 'x-clause-review-stand-in', value: 'offline-heuristic' } as const;

/** Options of a {@link StandInEngine}. */
export interface StandInEngineOptions {
  seed?: number;
  plan?: FaultPlanPatch;
  /**
   * Clock in epoch milliseconds (default `Date.now`), for the tokens-per-minute window, the
   * prompt-cache TTL and lifecycle dates (a model past its `endOfLifeTime` is end of life).
   * {@link StandInEngine.advanceClock} moves it forward without waiting.
   */
  now?: () => number;
  /** The models Bedrock knows (default: catalogue.ts's {@link Catalogue}). */
  catalogue?: Catalogue;
  /** The offline analyst (default `learned`: its weights are loaded here, and a bad file throws). */
  analyst?: OfflineAnalystName;
}

/** Per-call facts the transport knows: the region of the SigV4 credential scope. */
export interface CallContext {
  region?: string;
  /** When the request arrived (`performance.now()`), from which its latency runs. @default when `converse` is called */
  arrivedAt?: number;
}

// Request and tool-use ids come from a second stream, seeded apart from the fault stream.
const ID_STREAM_SALT = 0x5bd1e995;

const TOOL_USE_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Plan, books and randomness of one stand-in.
 *
 * Reproducibility: every Converse call takes exactly one draw from the seeded main stream and
 * runs on a generator forked from it, so the faults of the n-th call depend only on the seed
 * and n, not on what earlier calls drew. Request and tool-use ids come from a second stream so
 * they never shift the fault sequence.
 */
export class StandInEngine {
  private plan: FaultPlan;
  private readonly planByModel = new Map<string, FaultPlanCore>();
  private seed: number;
  private random: Random;
  private ids: Random;
  private readonly books = new Accounting();
  private readonly capacity = new Map<string, CapacityModel>();
  private readonly waiters = new Set<() => void>();
  private readonly baseNow: (() => number) | undefined;
  private clockOffsetMs = 0;
  private readonly now: () => number;
  /** The catalogue this engine serves (read by the control plane). */
  readonly catalogue: Catalogue;
  private readonly promptCache: PromptCache;
  /** The offline analyst that answers. */
  readonly analyst: OfflineAnalystName;

  constructor(options: StandInEngineOptions = {}) {
    this.analyst = offlineAnalyst(options.analyst).name;
    this.seed = options.seed ?? 1;
    this.random = createRandom(this.seed);
    this.ids = createRandom(this.seed ^ ID_STREAM_SALT);
    this.baseNow = options.now;
    this.now = () => (this.baseNow ?? Date.now)() + this.clockOffsetMs;
    this.catalogue = options.catalogue ?? new Catalogue(DEFAULT_CATALOGUE);
    this.promptCache = new PromptCache(this.now);
    this.plan = mergeFaultPlan(DEFAULT_FAULT_PLAN, parseFaultPlanPatch(options.plan ?? {}));
  }

  /** The engine's clock (epoch milliseconds, advanced by {@link advanceClock}). */
  nowMs(): number {
    return this.now();
  }

  /**
   * Moves the clock forward, e.g. past a prompt-cache TTL, a tokens-per-minute window or a
   * model's end-of-life date. Returns the new time.
   */
  advanceClock(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advanceClock needs a finite, non-negative ms');
    this.clockOffsetMs += ms;
    return this.now();
  }

  /** A model's lifecycle now, with the plan's override applied. */
  lifecycleOf(model: CatalogueModel): ModelLifecycle {
    return effectiveLifecycle(model, this.plan.catalogue.lifecycle[model.modelId], this.now());
  }

  /** A copy of the current plan. */
  getPlan(): FaultPlan {
    return structuredClone(this.plan);
  }

  /**
   * Merges a patch into the plan (or, with `replace`, into the default plan) and returns the
   * result. Throws `FaultPlanError` on an inconsistent result, leaving the plan unchanged.
   */
  setPlan(patch: FaultPlanPatch, options: { replace?: boolean } = {}): FaultPlan {
    // Validated here too: in-process callers may build plans from untyped data.
    this.plan = mergeFaultPlan(options.replace ? DEFAULT_FAULT_PLAN : this.plan, parseFaultPlanPatch(patch));
    this.planByModel.clear();
    return this.getPlan();
  }

  /** A snapshot of the books. */
  accounting(): AccountingSnapshot {
    return this.books.snapshot();
  }

  /** Empties the books only. */
  resetAccounting(): void {
    this.books.reset();
  }

  /** Empties the books, forgets capacity state and restarts the random streams (from `seed` if given). */
  reset(seed?: number): number {
    if (seed !== undefined) this.seed = seed;
    this.books.reset();
    for (const model of this.capacity.values()) model.reset();
    this.promptCache.clear();
    this.random = createRandom(this.seed);
    this.ids = createRandom(this.seed ^ ID_STREAM_SALT);
    return this.seed;
  }

  /** Releases every call waiting on latency or a hang, so shutdown is not held up. */
  close(): void {
    for (const cancel of [...this.waiters]) cancel();
  }

  /** A fresh request id (UUID, as `x-amzn-RequestId`). */
  requestId(): string {
    return randomUuid(this.ids);
  }

  /** Error answer in Bedrock's wire format. */
  errorResponse(error: WireError, requestId: string = this.requestId()): WireResponse {
    return {
      status: error.status,
      headers: {
        'content-type': 'application/json',
        'x-amzn-RequestId': requestId,
        'x-amzn-ErrorType': error.errorType,
        [STAND_IN_HEADER.name]: `offline-${this.analyst}`,
      },
      body: JSON.stringify({ message: error.message }),
    };
  }

  /**
   * Handles one Converse call. `rawModelId` is the path segment as sent (percent-encoded).
   * Resolves to the answer, or to undefined when the call must go unanswered (a hang, or a
   * client that left).
   *
   * Order: model id (catalogue) -> body validation -> model rules (catalogue) -> capacity
   * (throttle) -> injected error -> hang -> latency -> answer. Catalogue refusals are
   * recorded under their error name and never billed, as Bedrock bills none of them.
   */
  async converse(
    rawModelId: string,
    body: string,
    channel: CallChannel,
    context: CallContext = {},
  ): Promise<WireResponse | undefined> {
    const started = context.arrivedAt ?? performance.now();
    const random = this.random.fork();
    const requestId = this.requestId();
    const checked = checkRequest(rawModelId, body, {
      region: context.region ?? DEFAULT_REGION,
      catalogue: this.catalogue,
      plan: this.plan.catalogue,
      lifecycleOf: (model: CatalogueModel) => this.lifecycleOf(model),
    });
    const { modelId } = checked;
    const fail = (name: BedrockErrorName, message?: string): WireResponse => {
      this.books.record({ modelId, outcome: name });
      return this.errorResponse(bedrockError(name, message), requestId);
    };
    if (!checked.ok) return fail(checked.refusal.name, checked.refusal.message);
    const { request, resolved, cachePoints } = checked;
    const plan = this.planFor(modelId);

    // Draw every per-call decision up front, in a fixed order, so the draws never depend on
    // which branch a call takes.
    const errorDraw = random.next();
    const hangDraw = random.next();
    const kind: MalformedKind | undefined = pick(MALFORMED_KINDS, plan.malformed, random.next());
    // Drawn only when the plan forces stop reasons, so plans without them keep their sequences.
    const forced: PlannedStopReason | undefined = hasRates(plan.stopReasons)
      ? pick(PLANNED_STOP_REASONS, plan.stopReasons, random.next())
      : undefined;
    const charsPerToken = resolved?.model.charsPerToken;
    const prepared = prepareAnswer(
      request,
      this.toolUseId(),
      kind === 'schemaViolation' || kind === 'badQuote',
      this.analyst,
      charsPerToken,
    );
    const admission = this.capacityFor(modelId).tryAdmit(plan.capacity, estimatedTokens(prepared));
    if (!admission.admitted) {
      return fail(
        'ThrottlingException',
        admission.reason === 'tokensPerMinute' ? TOKEN_THROTTLE_MESSAGE : undefined,
      );
    }
    const lease: CapacityLease = admission.lease;
    const unanswered = (outcome: CallOutcome): undefined => {
      lease.settle(0);
      this.books.record({ modelId, outcome });
      return undefined;
    };

    const injected = pick(BEDROCK_ERROR_NAMES, plan.errorRates, errorDraw);
    if (injected) {
      lease.settle(0);
      return fail(injected);
    }
    let latencyFrom = started;
    if (hangDraw < plan.hang.probability) {
      if (plan.hang.ms === undefined) {
        // Counted when decided: the call will never be answered.
        this.books.record({ modelId, outcome: 'hang' });
        await this.wait(undefined, channel);
        lease.settle(0);
        return undefined;
      }
      if (!(await this.wait(plan.hang.ms, channel))) return unanswered('clientClosed');
      latencyFrom = performance.now();
    }
    // The drawn latency is the model's time from the request's arrival (or a hang's end) to its
    // answer, as Bedrock reports it in `metrics.latencyMs` (docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseMetrics.html):
    // reading the request and working the answer out are inside it; only what an answered call
    // changes (the prompt cache, the books) waits for its end.
    const latencyMs = sampleLatencyMs(plan.latency, random);
    const finished = finishAnswer(prepared, forced ? undefined : kind, random, forced);
    const checkpoints =
      cachePoints && resolved?.model.promptCaching
        ? cacheCheckpoints(request, resolved.model.modelId, resolved.model.promptCaching, charsPerToken)
        : undefined;
    const fingerprint = callFingerprint(
      { modelId, messages: request.messages, system: request.system, toolConfig: request.toolConfig },
      { canonicalToolConfig: prepared.canonicalToolConfig },
    );
    const left = latencyMs - (performance.now() - latencyFrom);
    if (latencyMs > 0 && left > 0 && !(await this.wait(left, channel))) return unanswered('clientClosed');
    if (channel.closed) return unanswered('clientClosed');
    // The cache is consulted only for an answered call: a refused or unanswered one writes nothing.
    const cache: CacheUse | undefined = checkpoints
      ? this.promptCache.use(checkpoints)
      : cachePoints
        ? { cacheReadInputTokens: 0, cacheWriteInputTokens: 0 }
        : undefined;
    const answer = withCacheUse(finished, cache);
    // The quota keeps input, cache writes and output × burndown (docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html).
    const burndown = resolved?.model.outputBurndown ?? 1;
    lease.settle(answer.inputTokens + (cache?.cacheWriteInputTokens ?? 0) + answer.outputTokens * burndown);
    this.books.recordAnswer(modelId, answer, cache, fingerprint);
    const response = this.answerResponse(requestId, answer, started);
    return lateDraw(plan, random) ? { ...response, deliverAfterMs: plan.lateAnswer.ms } : response;
  }

  /** The 200 of an answered call, with its latency as Bedrock reports it. */
  private answerResponse(
    requestId: string,
    answer: ReturnType<typeof withCacheUse>,
    started: number,
  ): WireResponse {
    return {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'x-amzn-RequestId': requestId,
        [STAND_IN_HEADER.name]: `offline-${this.analyst}`,
      },
      body: renderAnswerBody(answer, Math.round(performance.now() - started)),
    };
  }

  private toolUseId(): string {
    let id = 'tooluse_';
    for (let i = 0; i < 22; i++) id += TOOL_USE_ID_ALPHABET[this.ids.int(64)];
    return id;
  }

  private planFor(modelId: string): FaultPlanCore {
    let plan = this.planByModel.get(modelId);
    if (!plan) {
      plan = resolveModelPlan(this.plan, modelId);
      this.planByModel.set(modelId, plan);
    }
    return plan;
  }

  private capacityFor(modelId: string): CapacityModel {
    let model = this.capacity.get(modelId);
    if (!model) {
      // Capacity keeps its own default (performance.now) unless a clock was given; the offset applies either way.
      const base = this.baseNow ?? (() => performance.now());
      model = new CapacityModel(() => base() + this.clockOffsetMs);
      this.capacity.set(modelId, model);
    }
    return model;
  }

  /** Resolves true after `ms` (never, if undefined), or false as soon as the client leaves or the engine closes. */
  private wait(ms: number | undefined, channel: CallChannel): Promise<boolean> {
    if (channel.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (elapsed: boolean): void => {
        if (timer) clearTimeout(timer);
        unsubscribe();
        this.waiters.delete(cancel);
        resolve(elapsed);
      };
      const cancel = (): void => done(false);
      const unsubscribe = channel.onClose(cancel);
      this.waiters.add(cancel);
      if (ms !== undefined) timer = setTimeout(() => done(true), ms);
    });
  }
}
