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
  private reservation = 0;
  private permit: Permit | undefined;
  private ticket: BudgetTicket | undefined;
  private unwatch: (() => void) | undefined;
  private sent = false;

  constructor(private readonly budget: Pick<ChunkBudget, 'settle' | 'release'>) {}

  /** The attempt's worst case, reserved against the chunk's allotment. */
  reserved(estimate: number): void {
    this.reservation += estimate;
  }

  /** The money the attempt holds: its worst case until its outcome is known. */
  get estimate(): number {
    return this.reservation;
  }

  /** Keeps the job's status fresh while the attempt is next in line for a permit. */
  watch(gate: Pick<JobGate, 'watch'>): void {
    this.unwatch ??= gate.watch();
  }

  /** Stops keeping the job's status fresh (once the permit is granted or withdrawn). */
  unwatched(): void {
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** The limiter permit the request goes out under. */
  holds(permit: Permit | undefined): void {
    this.permit = permit;
  }

  /** The attempt's share of its model's tokens- and requests-per-minute budget. */
  budgeted(ticket: BudgetTicket | undefined): void {
    this.ticket = ticket;
  }

  /** The request is about to go out: from now on its money may be spent. */
  sending(): void {
    this.sent = true;
  }

  /**
   * The request was answered: its permit is free, its reservation becomes its actual cost, and
   * its token budget what the quota counted (`quotaTokens`).
   */
  answered(cost: number, quotaTokens = 0): void {
    this.releasePermit();
    this.ticket?.settle(quotaTokens);
    this.ticket = undefined;
    this.budget.settle(this.reservation, cost);
    this.reservation = 0;
  }

  /** The request failed: nothing was billed, and a throttle tells the limiter to back off. */
  failed(throttled: boolean): void {
    this.releasePermit({ throttled });
    this.ticket?.refund();
    this.ticket = undefined;
    this.budget.release(this.reservation);
    this.reservation = 0;
  }

  /**
   * A new scope with everything this one holds, leaving this one empty (as
   * `DisposableStack.prototype.move`): how a function that acquires hands the attempt to its
   * caller while its own `using` still covers every early exit.
   */
  move(): AttemptScope {
    const next = new AttemptScope(this.budget);
    next.reservation = this.reservation;
    next.permit = this.permit;
    next.ticket = this.ticket;
    next.unwatch = this.unwatch;
    next.sent = this.sent;
    this.reservation = 0;
    this.permit = undefined;
    this.ticket = undefined;
    this.unwatch = undefined;
    this.sent = false;
    return next;
  }

  [Symbol.dispose](): void {
    this.unwatched();
    this.releasePermit(this.sent ? {} : { unused: true });
    // An outcome never recorded counts at its reservation, as Bedrock's quota keeps it.
    if (this.sent) this.ticket?.settle(this.ticket.tokens);
    else this.ticket?.refund();
    this.ticket = undefined;
    if (this.reservation === 0) return;
    if (this.sent) this.budget.settle(this.reservation, this.reservation);
    else this.budget.release(this.reservation);
    this.reservation = 0;
  }

  private releasePermit(outcome?: ReleaseOutcome): void {
    const permit = this.permit;
    this.permit = undefined;
    permit?.release(outcome);
  }
}
