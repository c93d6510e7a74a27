import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { modelBudgetSk, modelLimitPk } from './keys.js';

/** Seconds a slot's item outlives its slot before the table's TTL may remove it. */
const SLOT_ITEM_TTL_SECONDS = 3600;

/** Tokens and requests: what a slot has handed out, or what one lease asks for. */
export interface BudgetAmount {
  readonly tokens: number;
  readonly requests: number;
}

/** The fleet's ceiling for a slot at the moment of a lease; an absent field is unlimited. */
export interface BudgetCaps {
  readonly tokens?: number;
  readonly requests?: number;
}

/** How a lease went, with the slot's totals as the write found or left them. */
export type LeaseOutcome =
  | { readonly granted: true; readonly leased: BudgetAmount }
  | { readonly granted: false; readonly leased: BudgetAmount };

/**
 * The per-model token and request budgets every process calling a model shares, one item per
 * model and time slot (`MODEL#<id>` / `BUDGET#<slot start, epoch ms>`) holding what the fleet
 * has leased in that slot. A process leases a slice with one conditional `ADD`, which lands
 * only while the slot's totals stay within the caps it names, and spends the slice locally; a
 * refused lease answers with the totals that refused it (ReturnValuesOnConditionCheckFailure),
 * so the process can ask for what is left without reading first. Leases of one slot commute:
 * no transaction, no read-modify-write. Items expire through the table's TTL an hour after
 * their slot.
 */
export class ModelBudgets {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Adds `want` to the slot's totals if, after it, they stay within `caps`.
   * @param slotStart the slot's start (epoch ms), which names its item
   * @param slotEnd the slot's end (epoch ms), from which its item's expiry is set
   */
  async lease(
    modelId: string,
    slotStart: number,
    slotEnd: number,
    want: BudgetAmount,
    caps: BudgetCaps,
  ): Promise<LeaseOutcome> {
    const conditions: string[] = [];
    const values: Record<string, number> = {
      ':t': want.tokens,
      ':r': want.requests,
      ':exp': Math.ceil(slotEnd / 1000) + SLOT_ITEM_TTL_SECONDS,
    };
    if (caps.tokens !== undefined) {
      conditions.push('#t <= :tcap');
      values[':tcap'] = caps.tokens - want.tokens;
    }
    if (caps.requests !== undefined) {
      conditions.push('#r <= :rcap');
      values[':rcap'] = caps.requests - want.requests;
    }
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { pk: modelLimitPk(modelId), sk: modelBudgetSk(slotStart) },
          UpdateExpression: 'ADD #t :t, #r :r SET expiresAt = :exp',
          ...(conditions.length > 0
            ? { ConditionExpression: `attribute_not_exists(#t) OR (${conditions.join(' AND ')})` }
            : {}),
          ExpressionAttributeNames: { '#t': 'tokens', '#r': 'requests' },
          ExpressionAttributeValues: values,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { granted: true, leased: amountOf(out.Attributes) };
    } catch (error) {
      if (!(error instanceof Error) || error.name !== 'ConditionalCheckFailedException') throw error;
      const item = (error as { Item?: Record<string, AttributeValue> }).Item;
      return { granted: false, leased: amountOf(item ? unmarshall(item) : undefined) };
    }
  }

  /**
   * Gives back part of a lease (a process that ends with budget it will not spend), so others
   * may lease it within the same slot.
   */
  async giveBack(modelId: string, slotStart: number, amount: BudgetAmount): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: modelLimitPk(modelId), sk: modelBudgetSk(slotStart) },
        UpdateExpression: 'ADD #t :t, #r :r',
        ConditionExpression: 'attribute_exists(#t)',
        ExpressionAttributeNames: { '#t': 'tokens', '#r': 'requests' },
        ExpressionAttributeValues: { ':t': -amount.tokens, ':r': -amount.requests },
      }),
    );
  }
}

function amountOf(item: Record<string, unknown> | undefined): BudgetAmount {
  return { tokens: Number(item?.tokens ?? 0), requests: Number(item?.requests ?? 0) };
}
