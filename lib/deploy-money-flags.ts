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
  readonly defaultCeilingMicros?: number;
  /** The most a job's ceiling may be, in micro-dollars. */
  readonly maxCeilingMicros?: number;
  /** What one owner's jobs started on a day may spend together, in micro-dollars (0: no cap). */
  readonly dailySpendPerOwnerMicros?: number;
}

/** Largest ceiling any flag accepts, in dollars: the most an upload's own ceiling may ever say. */
const MAX_CEILING_USD = 100_000;
const CEILINGS = { min: 10_000, max: MAX_CEILING_USD * 1_000_000 };

/** The ceiling flags' names before this one, still read for one release (docs/deploy.md). */
export const CEILING_FLAG_ALIASES: Readonly<Record<string, string>> = {
  defaultCeiling: 'defaultBudget',
  maxCeiling: 'maxBudget',
};

/**
 * `defaultCeiling`, `maxCeiling` and `dailySpendPerOwner` (0: no cap); the default ceiling must
 * be within the maximum.
 */
export function moneyFlags(read: ContextReader, scope: IConstruct | undefined): MoneyFlags {
  const given = (flag: string) => {
    const value = read(flag);
    if (value !== undefined) return { flag, value };
    const alias = CEILING_FLAG_ALIASES[flag];
    const old = alias === undefined ? undefined : read(alias);
    return old === undefined ? undefined : { flag: alias as string, value: old };
  };
  const ceiling = given('defaultCeiling');
  const most = given('maxCeiling');
  const daily = read('dailySpendPerOwner');
  const flags: MoneyFlags = {
    ...(ceiling !== undefined
      ? { defaultCeilingMicros: dollarsFlag(ceiling.flag, ceiling.value, CEILINGS, scope) }
      : {}),
    ...(most !== undefined ? { maxCeilingMicros: dollarsFlag(most.flag, most.value, CEILINGS, scope) } : {}),
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
    flags.defaultCeilingMicros !== undefined &&
    flags.maxCeilingMicros !== undefined &&
    flags.defaultCeilingMicros > flags.maxCeilingMicros
  ) {
    throw new DeployContextError(
      ceiling?.flag ?? 'defaultCeiling',
      ceiling?.value,
      `must be at most -c ${most?.flag ?? 'maxCeiling'} (${flags.maxCeilingMicros / 1_000_000}); got ${flags.defaultCeilingMicros / 1_000_000}`,
      { scope },
    );
  }
  return flags;
}
