/**
 * Per-caller budgets of the costly routes: POST /quote parses a whole document (up to 3 MiB)
 * in the request, and POST /jobs starts intake's parse of one. API Gateway's stage throttle
 * bounds the API as a whole; one caller could still take all of it. Each caller (the name their
 * jobs record: a person's Cognito identity, else the IAM principal) has a token bucket per route
 * in the state table, kept as GCRA's theoretical arrival time `tat`: a request is admitted while
 * `max(tat, now) + interval - now <= burst * interval`, and moves `tat` on by one interval.
 * Each admission is one conditional UpdateItem, so concurrent requests on any number of API
 * instances never over-admit, and a refusal reads the item DynamoDB returns with it to say when
 * to come back (https://en.wikipedia.org/wiki/Generic_cell_rate_algorithm).
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isWriteRefused } from '../core/state/errors.js';
import { callerRatePk } from '../core/state/keys.js';
import { refusable } from '../core/state/transact.js';
import { TooManyRequestsError } from './errors.js';

/** A route's budget per caller: `burst` requests at once, refilled at `perMinute`. */
export interface RouteBudget {
  readonly burst: number;
  readonly perMinute: number;
}

/** The routes with a budget per caller. */
export type LimitedRoute = 'quote' | 'submit';

/** Budgets per route. */
export type CallerBudgets = Readonly<Record<LimitedRoute, RouteBudget>>;

/**
 * The budgets unless configured: a person pricing a folder of contracts in the app, or a script
 * submitting one, is well within them; one caller looping on either is held to a share the
 * stage (20 requests per second) can afford.
 */
export const DEFAULT_CALLER_BUDGETS: CallerBudgets = {
  quote: { burst: 10, perMinute: 12 },
  submit: { burst: 30, perMinute: 60 },
};

/** How long a caller's idle bucket is kept after it is full again (the table's TTL deletes it). */
const KEEP_SECONDS = 3600;

/**
 * Takes one request from a caller's budget of a route, or refuses it.
 *
 * @example
 * const limits = new CallerLimits(db, 'clause-review-state');
 * await limits.take('cognito-identity:us-east-1:…', 'quote'); // throws TooManyRequestsError when spent
 */
export class CallerLimits {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly budgets: CallerBudgets = DEFAULT_CALLER_BUDGETS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The budget of a route. */
  budget(route: LimitedRoute): RouteBudget {
    return this.budgets[route];
  }

  /** @throws TooManyRequestsError (429) when the caller's bucket for the route is empty */
  async take(caller: string, route: LimitedRoute): Promise<void> {
    const budget = this.budgets[route];
    const interval = 60_000 / budget.perMinute;
    const now = this.now();
    // The bucket is full again by `now + burst * interval` at the latest; kept an hour past that.
    const expires = Math.ceil((now + interval * budget.burst) / 1000) + KEEP_SECONDS;
    const admit = (update: string, condition: string, values: Record<string, number>) =>
      refusable(caller, 'rate', (onRefusal) =>
        this.db.send(
          new UpdateCommand({
            ...onRefusal,
            TableName: this.tableName,
            Key: { pk: callerRatePk(caller), sk: route },
            UpdateExpression: `${update}, expiresAt = :expires`,
            ConditionExpression: condition,
            ExpressionAttributeValues: { ...values, ':expires': expires },
          }),
        ),
      );
    try {
      // A bucket that is full (or new): its arrival time is in the past.
      await admit('SET tat = :next', 'attribute_not_exists(tat) OR tat <= :now', {
        ':next': now + interval,
        ':now': now,
      });
      return;
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
    }
    // `tat` is ahead of now (it only ever moves on): admit while the burst allows one more.
    try {
      await admit('SET tat = tat + :interval', 'tat <= :limit', {
        ':interval': interval,
        ':limit': now + (budget.burst - 1) * interval,
      });
    } catch (error) {
      if (!isWriteRefused(error)) throw error;
      const tat = Number(error.item?.tat ?? now);
      const waitMs = tat + interval - budget.burst * interval - now;
      throw new TooManyRequestsError(route, Math.max(1, Math.ceil(waitMs / 1000)), budget);
    }
  }
}
