import { existsSync } from 'node:fs';
import { join } from 'node:path';

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

/**
 * Checks that `projectRoot` holds package-lock.json (handlers are bundled with the versions it
 * pins), or throws naming the construct (`label`) and the folder given.
 */
export function checkProjectRoot(label: string, projectRoot: string): string {
  if (!existsSync(join(projectRoot, 'package-lock.json'))) {
    throw new Error(`${label} projectRoot must hold package-lock.json; got '${projectRoot}'`);
  }
  return projectRoot;
}
