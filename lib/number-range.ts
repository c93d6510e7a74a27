/**
 * What a numeric setting may be, and the one wording of a value outside it. Plain data and a
 * pure function, importing nothing, so topology.ts (which must stay free of aws-cdk-lib) shares
 * it with `checkRange` in checks.ts, the check every construct prop goes through.
 */

/** The values a numeric setting may take. */
export interface NumberRange {
  /** The least value allowed. */
  readonly min: number;
  /**
   * The greatest value allowed.
   * @default no upper bound
   */
  readonly max?: number;
  /**
   * Whether only whole numbers are allowed.
   * @default true
   */
  readonly integer?: boolean;
  /**
   * Unit of the value (`s`, `minutes`), written after the bounds and after the value given.
   * @default none
   */
  readonly unit?: string;
  /**
   * Where the bounds come from, written after them in parentheses (`Lambda's limits`).
   * @default none
   */
  readonly why?: string;
}

/**
 * What `property` must be: `an integer from 1 to 60 minutes`, `an integer of at least 1`.
 *
 * @example
 * describeRange({ min: 2, max: 1000, why: "Lambda's limits" }); // "an integer from 2 to 1000 (Lambda's limits)"
 */
export function describeRange(range: NumberRange): string {
  const unit = range.unit ? ` ${range.unit}` : '';
  const kind = range.integer === false ? 'a number' : 'an integer';
  const bounds =
    range.max === undefined ? `of at least ${range.min}${unit}` : `from ${range.min} to ${range.max}${unit}`;
  return `${kind} ${bounds}${range.why ? ` (${range.why})` : ''}`;
}

/**
 * The message for a `value` of `property` outside `range` (naming the property, the range and
 * the value), or undefined when the value is inside it. NaN and infinities are always outside.
 *
 * @example
 * rangeViolation('StatusApi rateLimit', 0, { min: 1, max: 10_000 });
 * // 'StatusApi rateLimit must be an integer from 1 to 10000; got 0'
 */
export function rangeViolation(property: string, value: number, range: NumberRange): string | undefined {
  const whole = range.integer === false ? Number.isFinite(value) : Number.isInteger(value);
  if (whole && value >= range.min && (range.max === undefined || value <= range.max)) return undefined;
  return `${property} must be ${describeRange(range)}; got ${value}${range.unit ? ` ${range.unit}` : ''}`;
}
