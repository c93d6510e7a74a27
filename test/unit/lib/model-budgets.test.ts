/**
 * The one rule of per-model budgets, which the `-c modelBudgets` flag and the stack's
 * `tuning.modelBudgets` prop both go through.
 */
import { App, Stack } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { UnscopedValidationError, ValidationError } from '../../../lib/errors.js';
import { checkModelBudgets } from '../../../lib/model-budgets.js';

const entry = (id: string) => `tuning.modelBudgets['${id}']`;

/** The error `budgets` are refused with, unscoped. */
function refusal(budgets: Record<string, unknown>): ValidationError {
  try {
    checkModelBudgets(undefined, budgets, entry);
  } catch (error) {
    expect(error).toBeInstanceOf(UnscopedValidationError);
    return error as ValidationError;
  }
  throw new Error(`accepted ${JSON.stringify(budgets)}`);
}

describe('checkModelBudgets', () => {
  it('takes tokens, requests or both per model, and returns them as given', () => {
    const budgets = {
      a: { tokensPerMinute: 2_000_000, requestsPerMinute: 500 },
      b: { requestsPerMinute: 1 },
    };
    expect(checkModelBudgets(undefined, budgets, entry)).toEqual(budgets);
    expect(checkModelBudgets(undefined, {}, entry)).toEqual({});
  });

  it('refuses an entry that names neither, or anything else, naming the entry and what was given', () => {
    for (const [budget, got] of [
      [{}, '{}'],
      [{ tpm: 5 }, '{"tpm":5}'],
      [{ tokensPerMinute: 5, burst: 2 }, '{"tokensPerMinute":5,"burst":2}'],
      [7, '7'],
      [[1], '[1]'],
    ] as const) {
      const e = refusal({ m: budget });
      expect([e.id, e.message]).toEqual([
        'InvalidModelBudget',
        `tuning.modelBudgets['m'] must name tokensPerMinute, requestsPerMinute or both, and nothing else; got ${got}`,
      ]);
    }
    expect(refusal({ ' ': { tokensPerMinute: 1 } }).id).toBe('InvalidModelBudget');
  });

  it('refuses a rate that is not an integer from 1 up, through the range check', () => {
    for (const [rate, got] of [
      [0, '0'],
      [2.5, '2.5'],
      [-3, '-3'],
      ['100', '"100"'],
      [2 ** 53, String(2 ** 53)],
    ] as const) {
      const e = refusal({ m: { requestsPerMinute: rate } });
      expect([e.id, e.message]).toEqual([
        'OutOfRange',
        `tuning.modelBudgets['m'].requestsPerMinute must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}; got ${got}`,
      ]);
    }
  });

  it('scopes a refusal to the construct the budgets were given to', () => {
    const stack = new Stack(new App(), 'Budgets');
    let caught: unknown;
    try {
      checkModelBudgets(stack, { m: { tokensPerMinute: 0 } }, entry);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect(caught).not.toBeInstanceOf(UnscopedValidationError);
    expect((caught as ValidationError).constructPath).toBe('Budgets');
  });
});
