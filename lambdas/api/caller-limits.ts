/**
 * Per-caller budgets of every route. API Gateway's stage throttle bounds the API as a whole;
 * one caller could still take all of it, and some routes cost far more than a read of one item:
 * POST /quote parses a whole document (up to 3 MiB) in the request, POST /jobs starts intake's
 * parse of one, and `GET /jobs?awaiting=approval` asks the user pool (ListUsers, then up to ten
 * AdminListGroupsForUser) against quotas every app of the account shares
 * (https://docs.aws.amazon.com/cognito/latest/developerguide/quotas.html). Each caller (by
 * {@link rateKeyOf}) has a token bucket per route in the state table, kept as GCRA's theoretical
 * arrival time `tat`: a request is admitted while `max(tat, now) + interval - now <= burst *
 * interval`, and moves `tat` on by one interval. Each admission is one conditional UpdateItem,
 * so concurrent requests on any number of API instances never over-admit, and a refusal reads
 * the item DynamoDB returns with it to say when to come back
 * (https://en.wikipedia.org/wiki/Generic_cell_rate_algorithm).
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isWriteRefused } from '../core/state/errors.js';
import { callerRatePk } from '../core/state/keys.js';
import { refusable } from '../core/state/transact.js';
import { TooManyRequestsError } from './errors.js';
import type { RouteName } from './routes.js';

/** A route's budget per caller: `burst` requests at once, refilled at `perMinute`. */
export interface RouteBudget {
  readonly burst: number;
  readonly perMinute: number;
}

/**
 * What a request draws on: its route, except that GET /jobs?awaiting=approval, which asks the
 * user pool for the caller's groups, has a budget of its own (`approvals`).
 */
export type LimitedRoute = RouteName | 'approvals';

/** Budgets per route. */
export type CallerBudgets = Readonly<Record<LimitedRoute, RouteBudget>>;

/**
 * The budgets unless configured, sized by what a request costs. Reads of one job (status,
 * findings as they happen) are cheap: a person's app polls each every second or two, and a
 * script following a few jobs stays within five a second. Listing reads an index, a report signs
 * three URLs, a hold writes the job. Dear: the approvals list and a decision ask the user pool
 * for the caller's groups (kept a few seconds per person, people.ts), a quote parses a document
 * in the request, a submission starts intake's parse, a playbook put writes a version.
 */
export const DEFAULT_CALLER_BUDGETS: CallerBudgets = {
  status: { burst: 30, perMinute: 300 },
  findings: { burst: 30, perMinute: 300 },
  list: { burst: 20, perMinute: 120 },
  report: { burst: 10, perMinute: 60 },
  playbooks: { burst: 10, perMinute: 60 },
  playbook: { burst: 20, perMinute: 120 },
  cancel: { burst: 10, perMinute: 30 },
  pause: { burst: 10, perMinute: 30 },
  resume: { burst: 10, perMinute: 30 },
  approvals: { burst: 5, perMinute: 12 },
  decide: { burst: 20, perMinute: 60 },
  'decide-redlines': { burst: 20, perMinute: 60 },
  quote: { burst: 10, perMinute: 12 },
  submit: { burst: 30, perMinute: 60 },
  'put-playbook': { burst: 5, perMinute: 10 },
};

/** Every route with a budget, in the order {@link DEFAULT_CALLER_BUDGETS} lists them. */
export const LIMITED_ROUTES = Object.keys(DEFAULT_CALLER_BUDGETS) as readonly LimitedRoute[];

/** The budget a request of `route` draws on, given its query. */
export function limitedRouteOf(
  route: RouteName,
  query: { readonly awaiting?: string | undefined },
): LimitedRoute {
  return route === 'list' && query.awaiting !== undefined ? 'approvals' : route;
}

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
  private readonly budgets: CallerBudgets;

  /** @param budgets the routes whose budgets differ from {@link DEFAULT_CALLER_BUDGETS} */
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    budgets: Partial<CallerBudgets> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.budgets = { ...DEFAULT_CALLER_BUDGETS, ...budgets };
  }

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
