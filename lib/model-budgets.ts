/**
 * The rule of per-model budgets, written once for both ways a deployer gives them: the
 * `-c modelBudgets` flag (deploy-context.ts) and the stack's `tuning.modelBudgets` prop
 * (runtime-environment.ts). The runtime reads the same shape from MODEL_BUDGETS.
 */
import type { IConstruct } from 'constructs';
import { checkRange } from './checks.js';
import { UnscopedValidationError, ValidationError } from './errors.js';
import { describeRange, type NumberRange } from './number-range.js';

/** One model's budget: its tokens, its requests per minute, or both. */
export interface ModelBudget {
  readonly tokensPerMinute?: number;
  readonly requestsPerMinute?: number;
}

/** Per-model budgets by the id Converse is called with, as the runtime's MODEL_BUDGETS takes them. */
export type ModelBudgets = Readonly<Record<string, ModelBudget>>;

const FIELDS = ['tokensPerMinute', 'requestsPerMinute'] as const;

/** A budget's rates: whole numbers, up to what survives the trip through an environment variable. */
const PER_MINUTE: NumberRange = { min: 1, max: Number.MAX_SAFE_INTEGER };

/**
 * Checks budgets by model id: each model names tokensPerMinute, requestsPerMinute or both, and
 * nothing else, each an integer from 1 up. A refusal names the model's entry as `entry(modelId)`
 * spells it (`tuning.modelBudgets['m']`), the field, the rule and what was given.
 *
 * @throws ValidationError scoped to `scope` (an {@link UnscopedValidationError} without one)
 * @example
 * checkModelBudgets(this, { m: { requestsPerMinute: 500 } }, (id) => `tuning.modelBudgets['${id}']`);
 */
export function checkModelBudgets(
  scope: IConstruct | undefined,
  budgets: Readonly<Record<string, unknown>>,
  entry: (modelId: string) => string,
): ModelBudgets {
  const refuse = (id: string, message: string) =>
    scope ? new ValidationError(id, message, scope) : new UnscopedValidationError(id, message);
  const out: Record<string, ModelBudget> = {};
  for (const [modelId, budget] of Object.entries(budgets)) {
    const fields =
      typeof budget === 'object' && budget !== null && !Array.isArray(budget)
        ? (budget as Record<string, unknown>)
        : undefined;
    const keys = Object.keys(fields ?? {});
    if (
      modelId.trim() === '' ||
      !fields ||
      keys.length === 0 ||
      keys.some((k) => !(FIELDS as readonly string[]).includes(k))
    ) {
      throw refuse(
        'InvalidModelBudget',
        `${entry(modelId)} must name tokensPerMinute, requestsPerMinute or both, and nothing else; got ${JSON.stringify(budget)}`,
      );
    }
    const checked: { -readonly [K in keyof ModelBudget]: number } = {};
    for (const field of FIELDS) {
      const value = fields[field];
      if (value === undefined) continue;
      const label = `${entry(modelId)}.${field}`;
      if (typeof value !== 'number') {
        throw refuse(
          'OutOfRange',
          `${label} must be ${describeRange(PER_MINUTE)}; got ${JSON.stringify(value)}`,
        );
      }
      checked[field] = checkRange(scope, label, value, PER_MINUTE);
    }
    out[modelId] = checked;
  }
  return out;
}
