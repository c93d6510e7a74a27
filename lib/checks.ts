/**
 * Checks a construct property or tuning value: an integer from `min` to `max`, or an error
 * naming it (`label`, e.g. `StatusApi rateLimit`), the range and what was given.
 */
export function checkIntegerRange(label: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${label} must be an integer from ${min} to ${max}; got ${value}`);
  }
  return value;
}
