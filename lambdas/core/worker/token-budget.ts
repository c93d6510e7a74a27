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
 * worst-case input plus `maxTokens`, the figure its cost reservation uses) and one request fit
 * what its process holds, and once answered its reservation is corrected to the quota tokens it
 * was billed, the rest going back into the process's hand for the next call; a call that turns
 * out dearer than its estimate leaves a debt the next calls wait out, so overage queues rather
 * than fails. A process fills its hand by leasing slices of the model's rate from one item in
 * the state table (ModelBudgets): the fleet's leases are earned at the quota's rate, and a slice
 * may be spent once all leased before it and itself are earned, less `leadMs` of tolerance. A
 * lease serves many calls, so DynamoDB sees about one request per slice, not per call; a process
 * whose slice is not yet earned waits on its own timer without asking again. A minute's quota is
 * earned over a minute plus `leadMs`, so over any minute the fleet leases at most the quota, and
 * spends it evenly rather than in bursts, as a quota kept over a sliding minute needs.
 */

import { guardOf } from '../error-guard.js';
import type { BudgetLease } from '../state/model-budgets.js';

/** A model's budget per minute; an absent field is unlimited. */
export interface ModelBudgetLimits {
  readonly tokensPerMinute?: number;
  readonly requestsPerMinute?: number;
}

/** Where a budget leases its slices (ModelBudgets on the state table). */
export interface BudgetStore {
  /** Resolves with the epoch ms by which every lease so far, this one included, is earned. */
  lease(lease: BudgetLease): Promise<number>;
}

/** Settings shared by every model's budget. */
export interface TokenBudgetSettings {
  readonly store: BudgetStore;
  /** A lease asks for at least this much of the model's rate. @default 1_000 */
  readonly sliceMs?: number;
  /** How far ahead of the rate a lease may be spent (the burst the fleet may send at once). @default 1_000 */
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
export const isBudgetWaitAbortedError = guardOf(BudgetWaitAbortedError);

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

/** One model's budget in one process. */
export class TokenBudget {
  private readonly sliceMs: number;
  private readonly leadMs: number;
  private readonly now: () => number;
  /** What this process holds; tokens below 0 are a debt. */
  private tokens = 0;
  private requests = 0;
  private readonly queue: Waiter[] = [];
  /** A lease is being asked for, or waits to be earned. */
  private leasing = false;
  private readonly totals = { leases: 0, granted: 0, waitedMs: 0 };

  constructor(
    readonly modelId: string,
    readonly limits: ModelBudgetLimits,
    private readonly settings: TokenBudgetSettings,
  ) {
    this.sliceMs = settings.sliceMs ?? 1_000;
    this.leadMs = settings.leadMs ?? 1_000;
    this.now = settings.now ?? Date.now;
    for (const [name, value] of Object.entries(limits)) {
      if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
        throw new RangeError(`budget ${name} of model '${modelId}' must be a positive integer; got ${value}`);
      }
    }
    for (const [name, value] of [
      ['sliceMs', this.sliceMs],
      ['leadMs', this.leadMs],
    ] as const) {
      if (!(Number.isFinite(value) && value >= 0)) {
        throw new RangeError(`budget ${name} must be a finite number ≥ 0; got ${value}`);
      }
    }
  }

  /** Leases asked for, tickets granted, and the time leases waited to be earned. */
  stats(): { leases: number; granted: number; waitedMs: number } {
    return { ...this.totals };
  }

  /** Waits until `estimate` tokens and one request fit what the process holds, then reserves them. */
  acquire(estimate: number, signal?: AbortSignal): Promise<BudgetTicket> {
    if (signal?.aborted) return Promise.reject(new BudgetWaitAbortedError(this.modelId));
    const tokens = Math.max(0, Math.ceil(estimate));
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

  /** Grants what fits, in arrival order, and leases for the first call that does not. */
  private pump(): void {
    for (;;) {
      const head = this.queue[0];
      if (!head) return;
      if (!this.fits(head)) break;
      this.queue.shift();
      head.signal?.removeEventListener('abort', head.onAbort);
      this.tokens -= head.tokens;
      this.requests -= 1;
      this.totals.granted++;
      head.resolve(this.ticket(head.tokens));
    }
    if (!this.leasing) void this.lease();
  }

  private fits(w: Waiter): boolean {
    const tokensOk = this.limits.tokensPerMinute === undefined || this.tokens >= w.tokens;
    const requestsOk = this.limits.requestsPerMinute === undefined || this.requests >= 1;
    return tokensOk && requestsOk;
  }

  private ticket(tokens: number): BudgetTicket {
    let open = true;
    const close = (tokensBack: number, requestsBack: number) => {
      if (!open) return;
      open = false;
      this.tokens += tokensBack;
      this.requests += requestsBack;
      this.pump();
    };
    return {
      tokens,
      // Below its reservation, the rest comes back; above it, the excess is a debt.
      settle: (quotaTokens) => close(tokens - Math.max(0, Math.ceil(quotaTokens)), 0),
      refund: () => close(tokens, 1),
    };
  }

  /** Leases a slice that covers the first waiting call, and adds it to the hand once earned. */
  private async lease(): Promise<void> {
    const head = this.queue[0];
    if (!head) return;
    const { tokensPerMinute: tpm, requestsPerMinute: rpm } = this.limits;
    const tokens =
      tpm === undefined ? 0 : Math.max(head.tokens - this.tokens, (tpm * this.sliceMs) / MINUTE_MS);
    const requests = rpm === undefined ? 0 : Math.max(1 - this.requests, (rpm * this.sliceMs) / MINUTE_MS);
    const slice = { tokens: Math.ceil(tokens), requests: Math.ceil(requests) };
    // A minute's quota is earned over a minute and the lead, so that what the fleet may spend in
    // any minute, the lead's burst included, stays within the quota.
    const earnMs = MINUTE_MS + this.leadMs;
    this.leasing = true;
    let earnedAt: number;
    try {
      this.totals.leases++;
      earnedAt = await this.settings.store.lease({
        modelId: this.modelId,
        // Whole milliseconds, rounded up, so the shared times stay exact.
        tokensMs: tpm === undefined ? 0 : Math.ceil((slice.tokens * earnMs) / tpm),
        requestsMs: rpm === undefined ? 0 : Math.ceil((slice.requests * earnMs) / rpm),
        now: Math.floor(this.now()),
      });
    } catch (error) {
      this.settings.log?.('model-budget-unavailable', { modelId: this.modelId, error: String(error) });
      await delay(STORE_RETRY_MS);
      this.leasing = false;
      this.pump();
      return;
    }
    const wait = earnedAt - this.leadMs - this.now();
    if (wait > 0) {
      this.totals.waitedMs += wait;
      await delay(wait);
    }
    this.tokens += slice.tokens;
    this.requests += slice.requests;
    this.leasing = false;
    this.pump();
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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
