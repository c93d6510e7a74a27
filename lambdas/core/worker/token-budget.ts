/**
 * Per-model tokens-per-minute and requests-per-minute budgets, shared by every process that
 * calls the model. Bedrock limits each model by tokens and requests per minute per account and
 * Region (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html), not by
 * concurrency: at the start of a request it reserves every input token plus `maxTokens`, and
 * when the call ends corrects the reservation to input, cache writes and output at the model's
 * burndown rate (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html).
 * A call over the quota is answered ThrottlingException.
 *
 * A budget does the same before the request goes out: a call waits until its estimate (its
 * worst-case input plus `maxTokens`, the figure its cost reservation uses) and one request fit,
 * and once answered its reservation is corrected to the quota tokens it was billed; a call that
 * turns out dearer than its estimate leaves a debt the next calls wait out, so overage queues
 * rather than fails. The fleet's budget is cut into slots (10 s by default), each holding its
 * share of the minute's quota; processes lease slices of the current slot from one item in the
 * state table (ModelBudgets) and spend them locally, so a lease serves many calls and DynamoDB
 * sees about one request per slice, not per call. Within a slot the fleet may lease only up to
 * a straight line from the slot's start to its end, `leadMs` ahead of it, so the quota is spent
 * evenly rather than at each slot's start, as a sliding-window quota needs.
 */
import type { BudgetAmount, BudgetCaps, LeaseOutcome } from '../state/model-budgets.js';

/** A model's budget per minute; an absent field is unlimited. */
export interface ModelBudgetLimits {
  readonly tokensPerMinute?: number;
  readonly requestsPerMinute?: number;
}

/** Where a budget leases its slices (ModelBudgets on the state table). */
export interface BudgetStore {
  lease(
    modelId: string,
    slotStart: number,
    slotEnd: number,
    want: BudgetAmount,
    caps: BudgetCaps,
  ): Promise<LeaseOutcome>;
}

/** Settings shared by every model's budget. */
export interface TokenBudgetSettings {
  readonly store: BudgetStore;
  /** Length of a slot. @default 10_000 */
  readonly slotMs?: number;
  /** A lease asks for at least this much of the fleet's rate (ms of the minute's quota). @default 1_000 */
  readonly sliceMs?: number;
  /** How far ahead of the slot's straight line the fleet may lease. @default 2_000 */
  readonly leadMs?: number;
  /** Epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

/** One call's share of the budget. Settle or refund it once; later calls are ignored. */
export interface BudgetTicket {
  /** The tokens reserved for the call. */
  readonly tokens: number;
  /** The call was answered: its reservation becomes the quota tokens it was billed. */
  settle(quotaTokens: number): void;
  /** The request was not counted (refused, throttled, never sent): all of it comes back. */
  refund(): void;
}

/** Raised to a waiting call whose signal was aborted. */
export class BudgetWaitAbortedError extends Error {
  override readonly name = 'BudgetWaitAbortedError';
  constructor(
    readonly modelId: string,
    options?: ErrorOptions,
  ) {
    super(`the wait for model '${modelId}' budget was aborted`, options);
  }
}

/** Type guard for {@link BudgetWaitAbortedError}. */
export function isBudgetWaitAbortedError(error: unknown): error is BudgetWaitAbortedError {
  return error instanceof BudgetWaitAbortedError;
}

interface Waiter {
  readonly tokens: number;
  readonly resolve: (ticket: BudgetTicket) => void;
  readonly reject: (error: Error) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

const MINUTE_MS = 60_000;
/** Wait before leasing again after the store failed. */
const STORE_RETRY_MS = 500;

function fitsUnder(amount: BudgetAmount, leased: BudgetAmount, caps: BudgetCaps): boolean {
  return (
    (caps.tokens === undefined || leased.tokens + amount.tokens <= caps.tokens) &&
    (caps.requests === undefined || leased.requests + amount.requests <= caps.requests)
  );
}

/** One model's budget in one process. */
export class TokenBudget {
  private readonly slotMs: number;
  private readonly sliceMs: number;
  private readonly leadMs: number;
  private readonly now: () => number;
  /** The fleet's allowance per slot; undefined is unlimited. */
  private readonly allowance: BudgetCaps;
  private slot = Number.NEGATIVE_INFINITY;
  /** What this process holds, leased in this slot or earlier ones; tokens below 0 are a debt. */
  private tokens = 0;
  private requests = 0;
  private readonly queue: Waiter[] = [];
  private leasing = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly totals = { leases: 0, refused: 0, granted: 0 };

  constructor(
    readonly modelId: string,
    readonly limits: ModelBudgetLimits,
    private readonly settings: TokenBudgetSettings,
  ) {
    this.slotMs = settings.slotMs ?? 10_000;
    this.sliceMs = settings.sliceMs ?? 1_000;
    this.leadMs = settings.leadMs ?? 2_000;
    this.now = settings.now ?? Date.now;
    for (const [name, value] of Object.entries(limits)) {
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        throw new RangeError(`budget ${name} of model '${modelId}' must be a positive integer; got ${value}`);
      }
    }
    if (!(this.slotMs > 0 && this.slotMs <= MINUTE_MS && MINUTE_MS % this.slotMs === 0)) {
      throw new RangeError(`budget slotMs must divide a minute; got ${this.slotMs}`);
    }
    const per = (perMinute: number | undefined) =>
      perMinute === undefined ? undefined : Math.max(1, Math.floor((perMinute * this.slotMs) / MINUTE_MS));
    this.allowance = { tokens: per(limits.tokensPerMinute), requests: per(limits.requestsPerMinute) };
  }

  /** Leases sent to the store, refused ones among them, and tickets granted. */
  stats(): { leases: number; refused: number; granted: number } {
    return { ...this.totals };
  }

  /**
   * Waits until `estimate` tokens and one request fit, then reserves them. An estimate above a
   * whole slot's allowance reserves the allowance (the call waits for an empty slot).
   */
  acquire(estimate: number, signal?: AbortSignal): Promise<BudgetTicket> {
    if (signal?.aborted) return Promise.reject(new BudgetWaitAbortedError(this.modelId));
    const tokens = Math.min(
      Math.max(0, Math.ceil(estimate)),
      this.allowance.tokens ?? Number.MAX_SAFE_INTEGER,
    );
    return new Promise<BudgetTicket>((resolve, reject) => {
      const waiter: Waiter = {
        tokens,
        resolve,
        reject,
        signal,
        onAbort: () => {
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(new BudgetWaitAbortedError(this.modelId, { cause: signal?.reason }));
          this.pump();
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      this.pump();
    });
  }

  /** Grants what fits, in arrival order, and leases or waits for the rest. */
  private pump(): void {
    this.roll();
    for (;;) {
      const head = this.queue[0];
      if (!head) return;
      if (!this.fits(head)) break;
      this.queue.shift();
      head.signal?.removeEventListener('abort', head.onAbort);
      this.spend(head.tokens);
      this.totals.granted++;
      head.resolve(this.ticket(head.tokens));
    }
    if (!this.leasing && this.timer === undefined) void this.lease();
  }

  private fits(w: Waiter): boolean {
    const tokensOk = this.allowance.tokens === undefined || this.tokens >= w.tokens;
    const requestsOk = this.allowance.requests === undefined || this.requests >= 1;
    return tokensOk && requestsOk;
  }

  private spend(tokens: number): void {
    this.tokens -= tokens;
    this.requests -= 1;
  }

  /**
   * A new slot. What is left in hand stays, as does a debt, which the next leases pay: the
   * earlier slot counted what this process leased and did not spend, and the fleet spends it now
   * instead. Dropped, every process's remainder too small for its next call (up to a call's
   * estimate less its bill) would be lost every slot.
   */
  private roll(): void {
    this.slot = Math.floor(this.now() / this.slotMs) * this.slotMs;
  }

  /** Tokens and requests back in hand (tokens below 0: a debt). */
  private giveBack(tokens: number, requests: number): void {
    this.tokens += tokens;
    this.requests += requests;
  }

  private ticket(tokens: number): BudgetTicket {
    let open = true;
    const close = (change: () => void) => {
      if (!open) return;
      open = false;
      this.roll();
      change();
      this.pump();
    };
    return {
      tokens,
      // Below its reservation, the rest comes back; above it, the excess is a debt.
      settle: (quotaTokens) => close(() => this.giveBack(tokens - Math.max(0, Math.ceil(quotaTokens)), 0)),
      refund: () => close(() => this.giveBack(tokens, 1)),
    };
  }

  /** Leases a slice for the head of the queue, or waits until the slot's line allows one. */
  private async lease(): Promise<void> {
    const head = this.queue[0];
    if (!head) return;
    const slot = this.slot;
    const need: BudgetAmount = {
      // A debt larger than a slot is paid off over several slots.
      tokens:
        this.allowance.tokens === undefined
          ? 0
          : Math.min(this.allowance.tokens, Math.max(0, head.tokens - this.tokens)),
      requests: this.allowance.requests === undefined ? 0 : Math.max(0, 1 - this.requests),
    };
    const caps = this.capsAt(this.now() - slot);
    this.leasing = true;
    let outcome: LeaseOutcome | undefined;
    try {
      outcome = await this.leaseWithin(slot, need, caps);
    } catch (error) {
      this.settings.log?.('model-budget-unavailable', { modelId: this.modelId, error: String(error) });
    } finally {
      this.leasing = false;
    }
    if (outcome?.granted) {
      // Leased for a slot that may have ended since: it was counted there, and is in hand now.
      this.giveBack(outcome.leased.tokens, outcome.leased.requests);
      this.pump();
      return;
    }
    this.waitThen(outcome ? this.untilRoom(slot, outcome.leased, need) : STORE_RETRY_MS);
  }

  /**
   * One lease of a slice (at least `need`), or, when the fleet's totals refuse it, of what is
   * left under the caps if that still covers `need`. A granted outcome carries what was added
   * to this process; a refused one the fleet's totals that refused it.
   */
  private async leaseWithin(slot: number, need: BudgetAmount, caps: BudgetCaps): Promise<LeaseOutcome> {
    const none = { tokens: 0, requests: 0 };
    const want = {
      tokens: Math.max(need.tokens, this.slice(this.allowance.tokens)),
      requests: Math.max(need.requests, this.slice(this.allowance.requests)),
    };
    const slotEnd = slot + this.slotMs;
    const send = async (amount: BudgetAmount): Promise<LeaseOutcome> => {
      this.totals.leases++;
      const outcome = await this.settings.store.lease(this.modelId, slot, slotEnd, amount, caps);
      if (outcome.granted) return { granted: true, leased: amount };
      this.totals.refused++;
      return outcome;
    };
    if (!fitsUnder(need, none, caps)) return { granted: false, leased: none };
    const first = await send(want);
    if (first.granted || !fitsUnder(need, first.leased, caps)) return first;
    const left = (cap: number | undefined, leased: number, asked: number) =>
      cap === undefined ? asked : cap - leased;
    return send({
      tokens: left(caps.tokens, first.leased.tokens, want.tokens),
      requests: left(caps.requests, first.leased.requests, want.requests),
    });
  }

  /** The fleet's caps `elapsed` ms into a slot: the straight line, `leadMs` ahead, at most the allowance. */
  private capsAt(elapsed: number): BudgetCaps {
    const share = Math.min(1, (elapsed + this.leadMs) / this.slotMs);
    const line = (allowance: number | undefined) =>
      allowance === undefined ? undefined : Math.floor(allowance * share);
    return { tokens: line(this.allowance.tokens), requests: line(this.allowance.requests) };
  }

  /** A lease's least size: `sliceMs` of the minute's rate. */
  private slice(allowance: number | undefined): number {
    return allowance === undefined ? 0 : Math.max(1, Math.floor((allowance * this.sliceMs) / this.slotMs));
  }

  /**
   * How long until the slot's line is above what the fleet has leased plus `need`; the next
   * slot's start when that is not within this slot.
   */
  private untilRoom(slot: number, leased: BudgetAmount, need: BudgetAmount): number {
    const now = this.now();
    const at = (amount: number, allowance: number | undefined) => {
      if (allowance === undefined) return 0;
      if (amount > allowance) return this.slotMs; // not in this slot
      return (amount / allowance) * this.slotMs - this.leadMs;
    };
    const elapsed = Math.max(
      at(leased.tokens + need.tokens, this.allowance.tokens),
      at(leased.requests + need.requests, this.allowance.requests),
    );
    // Room that should be there already was taken by another process a moment ago: ask again soon.
    const next = Math.max(slot + elapsed, now + this.sliceMs / 4);
    return Math.max(1, Math.ceil(Math.min(next, slot + this.slotMs) - now));
  }

  private waitThen(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.pump();
    }, ms);
  }
}

/**
 * The budgets of every model with one, created on first use; a model without one is
 * unlimited (`for` answers undefined). Keep one per process, as the limiter registry.
 */
export class TokenBudgets {
  private readonly budgets = new Map<string, TokenBudget>();

  constructor(
    private readonly limits: Readonly<Record<string, ModelBudgetLimits>>,
    private readonly settings: TokenBudgetSettings,
  ) {}

  /** The budget of `modelId`, or undefined when it has none. */
  for(modelId: string): TokenBudget | undefined {
    const limits = this.limits[modelId];
    if (!limits || (limits.tokensPerMinute === undefined && limits.requestsPerMinute === undefined)) {
      return undefined;
    }
    let budget = this.budgets.get(modelId);
    if (!budget) {
      budget = new TokenBudget(modelId, limits, this.settings);
      this.budgets.set(modelId, budget);
    }
    return budget;
  }
}
