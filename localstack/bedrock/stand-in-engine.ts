/**
 * The stand-in's behaviour, independent of HTTP: plan, capacity, seeded faults, latency, the
 * analyst's answer and the books. The transport hands it a model id and a body and writes back
 * whatever it returns.
 */
import { Accounting, type AccountingSnapshot, type CallOutcome, callFingerprint } from './accounting.js';
import { type CapacityLease, CapacityModel } from './capacity.js';
import { estimatedTokens, finishAnswer, prepareAnswer, renderAnswerBody } from './converse-answer.js';
import { parseConverseRequest } from './converse-request.js';
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
  parseFaultPlanPatch,
  resolveModelPlan,
} from './fault-plan.js';
import { sampleLatencyMs } from './latency.js';
import { createRandom, type Random, randomUuid } from './random.js';

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
}

/** Header on every answer, so logs and callers can tell the stand-in from Bedrock. */
export const STAND_IN_HEADER = { name: 'x-clause-review-stand-in', value: 'offline-heuristic' } as const;

/** Options of a {@link StandInEngine}. */
export interface StandInEngineOptions {
  seed?: number;
  plan?: FaultPlanPatch;
  /** Clock for the tokens-per-minute window (milliseconds). */
  now?: () => number;
}

// Request and tool-use ids come from a second stream, seeded apart from the fault stream.
const ID_STREAM_SALT = 0x5bd1e995;

const TOOL_USE_ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Picks an outcome from one uniform draw over cumulative probabilities, in a fixed order. */
function pick<K extends string>(
  order: readonly K[],
  rates: Partial<Record<K, number>>,
  u: number,
): K | undefined {
  let cumulative = 0;
  for (const key of order) {
    const rate = rates[key];
    if (!rate) continue;
    cumulative += rate;
    if (u < cumulative) return key;
  }
  return undefined;
}

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
  private readonly now: (() => number) | undefined;

  constructor(options: StandInEngineOptions = {}) {
    this.seed = options.seed ?? 1;
    this.random = createRandom(this.seed);
    this.ids = createRandom(this.seed ^ ID_STREAM_SALT);
    this.now = options.now;
    this.plan = mergeFaultPlan(DEFAULT_FAULT_PLAN, parseFaultPlanPatch(options.plan ?? {}));
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
        [STAND_IN_HEADER.name]: STAND_IN_HEADER.value,
      },
      body: JSON.stringify({ message: error.message }),
    };
  }

  /**
   * Handles one Converse call. `rawModelId` is the path segment as sent (percent-encoded).
   * Resolves to the answer, or to undefined when the call must go unanswered (a hang, or a
   * client that left).
   *
   * Order: validation -> capacity (throttle) -> injected error -> hang -> latency -> answer.
   */
  async converse(rawModelId: string, body: string, channel: CallChannel): Promise<WireResponse | undefined> {
    const started = performance.now();
    const random = this.random.fork();
    const requestId = this.requestId();
    let modelId = rawModelId;
    let decodable = true;
    try {
      modelId = decodeURIComponent(rawModelId);
    } catch {
      // Keep the raw id: it is still the best name for the books.
      decodable = false;
    }
    const fail = (name: BedrockErrorName, message?: string): WireResponse => {
      this.books.record({ modelId, outcome: name });
      return this.errorResponse(bedrockError(name, message), requestId);
    };
    if (modelId.length === 0 || !decodable) {
      return fail('ValidationException', 'The provided model identifier is invalid.');
    }
    const parsed = parseConverseRequest(body);
    if (!parsed.ok) return fail('ValidationException', parsed.message);
    const request = parsed.request;
    const plan = this.planFor(modelId);

    // Draw every per-call decision up front, in a fixed order, so the draws never depend on
    // which branch a call takes.
    const errorDraw = random.next();
    const hangDraw = random.next();
    const kind: MalformedKind | undefined = pick(MALFORMED_KINDS, plan.malformed, random.next());
    const prepared = prepareAnswer(
      request,
      this.toolUseId(),
      kind === 'schemaViolation' || kind === 'badQuote',
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
    if (hangDraw < plan.hang.probability) {
      if (plan.hang.ms === undefined) {
        // Counted when decided: the call will never be answered.
        this.books.record({ modelId, outcome: 'hang' });
        await this.wait(undefined, channel);
        lease.settle(0);
        return undefined;
      }
      if (!(await this.wait(plan.hang.ms, channel))) return unanswered('clientClosed');
    }
    const latencyMs = sampleLatencyMs(plan.latency, random);
    if (latencyMs > 0 && !(await this.wait(latencyMs, channel))) return unanswered('clientClosed');

    const answer = finishAnswer(prepared, kind, random);
    if (channel.closed) return unanswered('clientClosed');
    lease.settle(answer.inputTokens + answer.outputTokens);
    this.books.record({
      modelId,
      outcome: 'success',
      inputTokens: answer.inputTokens,
      outputTokens: answer.outputTokens,
      fingerprint: callFingerprint(
        { modelId, messages: request.messages, system: request.system, toolConfig: request.toolConfig },
        { canonicalToolConfig: prepared.canonicalToolConfig },
      ),
      malformed: answer.malformed,
    });
    return {
      status: 200,
      headers: {
        'content-type': 'application/json',
        'x-amzn-RequestId': requestId,
        [STAND_IN_HEADER.name]: STAND_IN_HEADER.value,
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
      model = new CapacityModel(this.now);
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
