import type { ChunkBudget } from './chunk-budget.js';
import type { JobGate } from './job-gate.js';
import type { Permit, ReleaseOutcome } from './limiter-types.js';
import type { BudgetTicket } from './token-budget.js';

/**
 * What one attempt of a call holds, released by construction: declared with `using`, the
 * scope gives back on every exit (a return, a `continue`, a throw) whatever its attempt still
 * holds. Its money goes back unless the attempt was sent, when an outcome never recorded counts
 * at its worst case, as a takeover counts an intent left in flight; its permit goes back as
 * unused unless the request went out; its share of the model's token budget comes back unless
 * the request went out, when it stays counted at its reservation; the watch of its job's status
 * ends.
 *
 * Resources are added as they are taken, so an attempt stopped half-way gives back exactly
 * what it took. The outcome of a request that was answered or refused is recorded by
 * {@link answered} or {@link failed}, which release at once; disposal then finds nothing left.
 */
export class AttemptScope implements Disposable {
  /** Everything the attempt holds, in one place so that {@link move} hands over all of it. */
  private held: Held = nothing();

  constructor(private readonly budget: Pick<ChunkBudget, 'settle' | 'release'>) {}

  /** The attempt's worst case, reserved against the chunk's allotment. */
  reserved(estimate: number): void {
    this.held.reservation += estimate;
  }

  /** The money the attempt holds: its worst case until its outcome is known. */
  get estimate(): number {
    return this.held.reservation;
  }

  /** What the attempt holds now, by name (`reservation`, `permit`, ...): for logs and checks. */
  get holding(): string[] {
    return Object.entries(this.held)
      .filter(([, v]) => v !== undefined && v !== 0 && v !== false)
      .map(([k]) => k);
  }

  /** Keeps the job's status fresh while the attempt is next in line for a permit. */
  watch(gate: Pick<JobGate, 'watch'>): void {
    this.held.unwatch ??= gate.watch();
  }

  /** Stops keeping the job's status fresh (once the permit is granted or withdrawn). */
  unwatched(): void {
    this.held.unwatch?.();
    this.held.unwatch = undefined;
  }

  /** The limiter permit the request goes out under. */
  holds(permit: Permit | undefined): void {
    this.held.permit = permit;
  }

  /** The attempt's share of its model's tokens- and requests-per-minute budget. */
  budgeted(ticket: BudgetTicket | undefined): void {
    this.held.ticket = ticket;
  }

  /** The request is about to go out: from now on its money may be spent. */
  sending(): void {
    this.held.sent = true;
  }

  /**
   * The request was answered: its permit is free, its reservation becomes its actual cost, and
   * its token budget what the quota counted (`quotaTokens`).
   */
  answered(cost: number, quotaTokens = 0): void {
    this.releasePermit();
    this.held.ticket?.settle(quotaTokens);
    this.held.ticket = undefined;
    this.budget.settle(this.held.reservation, cost);
    this.held.reservation = 0;
  }

  /**
   * The request went out and came back without an answer (a timeout, a cut connection): the
   * model may have answered and billed it, so its reservation counts as spent and its token
   * budget stays at the reservation, as for an outcome never recorded; its permit is free.
   */
  unanswered(): void {
    this.releasePermit();
    this.held.ticket?.settle(this.held.ticket.tokens);
    this.held.ticket = undefined;
    if (this.held.reservation !== 0) this.budget.settle(this.held.reservation, this.held.reservation);
    this.held.reservation = 0;
  }

  /** The request failed: nothing was billed, and a throttle tells the limiter to back off. */
  failed(throttled: boolean): void {
    this.releasePermit({ throttled });
    this.held.ticket?.refund();
    this.held.ticket = undefined;
    this.budget.release(this.held.reservation);
    this.held.reservation = 0;
  }

  /**
   * A new scope with everything this one holds, leaving this one empty (as
   * `DisposableStack.prototype.move`): how a function that acquires hands the attempt to its
   * caller while its own `using` still covers every early exit.
   */
  move(): AttemptScope {
    const next = new AttemptScope(this.budget);
    next.held = this.held;
    this.held = nothing();
    return next;
  }

  [Symbol.dispose](): void {
    this.unwatched();
    // An outcome never recorded counts as an unanswered one: at its reservation, as Bedrock's
    // quota keeps it.
    if (this.held.sent) this.unanswered();
    else {
      this.releasePermit({ unused: true });
      this.held.ticket?.refund();
      if (this.held.reservation !== 0) this.budget.release(this.held.reservation);
    }
    this.held = nothing();
  }

  private releasePermit(outcome?: ReleaseOutcome): void {
    const permit = this.held.permit;
    this.held.permit = undefined;
    permit?.release(outcome);
  }
}

/** What an attempt holds; a resource added here moves with the rest. */
interface Held {
  reservation: number;
  permit?: Permit;
  ticket?: BudgetTicket;
  unwatch?: () => void;
  sent: boolean;
}

function nothing(): Held {
  return { reservation: 0, sent: false };
}
