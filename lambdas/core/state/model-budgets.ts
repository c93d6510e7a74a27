import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { guardOf } from '../error-guard.js';
import { MODEL_BUDGET_SK, modelLimitPk } from './keys.js';

/** One lease: tokens and requests, each as the time the budget's rate takes to earn it. */
export interface BudgetLease {
  readonly modelId: string;
  /** Whole milliseconds the tokens take at the model's tokens per minute; 0 when tokens are unlimited. */
  readonly tokensMs: number;
  /** Whole milliseconds the requests take at the model's requests per minute; 0 when requests are unlimited. */
  readonly requestsMs: number;
  /** Epoch ms: a budget that has fallen behind this moment starts from it (no credit for idle time). */
  readonly now: number;
}

/**
 * The per-model tokens- and requests-per-minute budgets every process calling a model shares:
 * one item per model (`MODEL#<id>` / `BUDGET`) holding, for each of the two, the theoretical
 * time by which everything leased so far is earned at the model's rate (the generic cell rate
 * algorithm's "theoretical arrival time"). A lease moves those times on by what it asks for,
 * from now if they had fallen behind, in one conditional UpdateItem that returns the new
 * times; the lease may be spent once they are within the caller's tolerance of the clock, so a
 * process that must wait waits on its own timer, without asking again. Concurrent leases
 * commute: no transaction, no read before the write, and only a lease after an idle spell (the
 * times behind the clock) takes a second request, which sets them from now on the condition
 * that they are still behind it. Times are whole milliseconds.
 */
export class ModelBudgets {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Leases `tokensMs` and `requestsMs` of the model's budget; resolves with the epoch ms by
   * which the model's whole budget, this lease included, is earned.
   */
  async lease(lease: BudgetLease): Promise<number> {
    for (const [name, value] of Object.entries({
      tokensMs: lease.tokensMs,
      requestsMs: lease.requestsMs,
      now: lease.now,
    })) {
      if (!(Number.isSafeInteger(value) && value >= 0)) {
        throw new RangeError(
          `a budget lease's ${name} must be a whole number of milliseconds ≥ 0; got ${value}`,
        );
      }
    }
    const parts = (['tokens', 'requests'] as const).filter((p) => lease[`${p}Ms`] > 0);
    if (parts.length === 0) return lease.now;
    for (let attempt = 0; ; attempt++) {
      const ahead = await this.moveOn(lease, parts);
      if (ahead.moved) return ahead.at;
      // Behind the clock (or new): start from now, unless another process moved them meanwhile.
      const restarted = await this.restart(lease, parts, ahead.found);
      if (restarted !== undefined) return restarted;
      if (attempt >= 5) throw new BudgetContentionError(lease.modelId);
    }
  }

  /** Adds the lease to times that are ahead of the clock; else answers what it found. */
  private async moveOn(
    lease: BudgetLease,
    parts: readonly ('tokens' | 'requests')[],
  ): Promise<{ moved: true; at: number } | { moved: false; found: Record<string, unknown> | undefined }> {
    const names = Object.fromEntries(parts.map((p) => [`#${p}`, `${p}At`]));
    const values: Record<string, number> = { ':now': lease.now };
    for (const p of parts) values[`:${p}`] = lease[`${p}Ms`];
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: modelLimitPk(lease.modelId), sk: MODEL_BUDGET_SK },
          UpdateExpression: `SET ${parts.map((p) => `#${p} = #${p} + :${p}`).join(', ')}`,
          ConditionExpression: parts.map((p) => `#${p} >= :now`).join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { moved: true, at: latest(out.Attributes, parts) };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      const item = (error as { Item?: Record<string, AttributeValue> }).Item;
      return { moved: false, found: item ? unmarshall(item) : undefined };
    }
  }

  /**
   * Moves each time on from where it stands: one behind the clock (or absent) from the clock,
   * on the condition that it still is; one ahead of it by adding, on the condition that it still
   * is. No condition compares a time for equality. Undefined when another lease changed which
   * side of the clock a time is on.
   */
  private async restart(
    lease: BudgetLease,
    parts: readonly ('tokens' | 'requests')[],
    found: Record<string, unknown> | undefined,
  ): Promise<number | undefined> {
    const names = Object.fromEntries(parts.map((p) => [`#${p}`, `${p}At`]));
    const values: Record<string, number> = { ':now': lease.now };
    const sets: string[] = [];
    const conditions: string[] = [];
    for (const p of parts) {
      const was = found?.[`${p}At`];
      if (typeof was === 'number' && was >= lease.now) {
        values[`:${p}`] = lease[`${p}Ms`];
        sets.push(`#${p} = #${p} + :${p}`);
        conditions.push(`#${p} >= :now`);
      } else {
        values[`:${p}`] = lease.now + lease[`${p}Ms`];
        sets.push(`#${p} = :${p}`);
        conditions.push(`(attribute_not_exists(#${p}) OR #${p} < :now)`);
      }
    }
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: modelLimitPk(lease.modelId), sk: MODEL_BUDGET_SK },
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return latest(out.Attributes, parts);
    } catch (error) {
      if (isConditionalCheckFailed(error)) return undefined;
      throw error;
    }
  }
}

/** Raised when leases of other processes kept moving a model's budget under this one's restarts. */
export class BudgetContentionError extends Error {
  override readonly name = 'BudgetContentionError';
  constructor(
    readonly modelId: string,
    options?: ErrorOptions,
  ) {
    super(`the budget of model '${modelId}' kept moving under six attempts to lease from it`, options);
  }
}

/** Type guard for {@link BudgetContentionError}. */
export const isBudgetContentionError = guardOf(BudgetContentionError);

function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

function latest(item: Record<string, unknown> | undefined, parts: readonly string[]): number {
  return Math.max(...parts.map((p) => Number(item?.[`${p}At`] ?? 0)));
}
