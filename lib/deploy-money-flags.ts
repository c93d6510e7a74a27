/**
 * The deploy flags about money: the default ceiling of a job, the most a job's ceiling may be,
 * and what one owner's jobs may spend in a day. Each is dollars as a person types them, kept
 * as integer micro-dollars.
 */
import type { IConstruct } from 'constructs';
import { type ContextReader, DeployContextError, dollarsFlag } from './deploy-flags.js';

/** The money a deployer set; anything left out keeps the stack's default. */
export interface MoneyFlags {
  /** The default cost ceiling, in micro-dollars. */
  readonly defaultCostCeilingMicros?: number;
  /** The most a job's ceiling may be, in micro-dollars. */
  readonly maxCostCeilingMicros?: number;
  /** What one owner's jobs started on a day may spend together, in micro-dollars (0: no cap). */
  readonly dailySpendPerOwnerMicros?: number;
}

/** Largest ceiling any flag accepts, in dollars: the most an upload's own ceiling may ever say. */
const MAX_BUDGET_USD = 100_000;
const CEILINGS = { min: 10_000, max: MAX_BUDGET_USD * 1_000_000 };

/**
 * `defaultBudget`, `maxBudget` and `dailySpendPerOwner` (0: no cap); the default ceiling must
 * be within the maximum.
 */
export function moneyFlags(read: ContextReader, scope: IConstruct | undefined): MoneyFlags {
  const given = (flag: string) => read(flag);
  const budget = given('defaultBudget');
  const most = given('maxBudget');
  const daily = given('dailySpendPerOwner');
  const flags: MoneyFlags = {
    ...(budget !== undefined
      ? { defaultCostCeilingMicros: dollarsFlag('defaultBudget', budget, CEILINGS, scope) }
      : {}),
    ...(most !== undefined ? { maxCostCeilingMicros: dollarsFlag('maxBudget', most, CEILINGS, scope) } : {}),
    ...(daily !== undefined
      ? {
          dailySpendPerOwnerMicros: dollarsFlag(
            'dailySpendPerOwner',
            daily,
            { min: 0, max: 1_000_000 * 1_000_000 },
            scope,
          ),
        }
      : {}),
  };
  if (
    flags.defaultCostCeilingMicros !== undefined &&
    flags.maxCostCeilingMicros !== undefined &&
    flags.defaultCostCeilingMicros > flags.maxCostCeilingMicros
  ) {
    throw new DeployContextError(
      'defaultBudget',
      budget,
      `must be at most -c maxBudget (${flags.maxCostCeilingMicros / 1_000_000}); got ${flags.defaultCostCeilingMicros / 1_000_000}`,
      { scope },
    );
  }
  return flags;
}
