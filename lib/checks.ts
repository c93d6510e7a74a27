import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Token } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { UnscopedValidationError, ValidationError } from './errors.js';
import { type NumberRange, rangeViolation } from './number-range.js';

export type { NumberRange } from './number-range.js';

/** An email address as the alert topic's subscriptions take it (deploy context and stack props alike). */
export const EMAIL_ADDRESS = /^[^@\s,]+@[^@\s,]+\.[^@\s,]+$/;

/**
 * The range check of every numeric construct prop, tuning value and context flag in lib/:
 * returns `value` when it is inside `range`, or throws a {@link ValidationError} scoped to
 * `scope`, the construct the value was given to, that names the property (`label`, e.g.
 * `StatusApi rateLimit`), the range and the value given. With no construct at hand (a context
 * flag read on its own), `scope` is undefined and the error an {@link UnscopedValidationError}.
 *
 * A value that is still a token (a CloudFormation parameter's `valueAsNumber`, a `Lazy.number`)
 * is passed through unchecked, as aws-cdk-lib's own constructs do with `Token.isUnresolved`:
 * its value exists only at deploy time, and CloudFormation or the service checks it then.
 *
 * @example
 * const rate = checkRange(this, 'StatusApi rateLimit', props.rateLimit ?? 20, { min: 1, max: 10_000 });
 */
export function checkRange(
  scope: IConstruct | undefined,
  label: string,
  value: number,
  range: NumberRange,
): number {
  if (Token.isUnresolved(value)) return value;
  const problem = rangeViolation(label, value, range);
  if (problem === undefined) return value;
  throw scope
    ? new ValidationError('OutOfRange', problem, scope)
    : new UnscopedValidationError('OutOfRange', problem);
}

/**
 * Checks that `projectRoot` holds package-lock.json (handlers are bundled with the versions it
 * pins), or throws naming the construct (`label`) and the folder given.
 */
export function checkProjectRoot(scope: IConstruct, label: string, projectRoot: string): string {
  if (!existsSync(join(projectRoot, 'package-lock.json'))) {
    throw new ValidationError(
      'MissingLockFile',
      `${label} projectRoot must hold package-lock.json; got '${projectRoot}'`,
      scope,
    );
  }
  return projectRoot;
}

/**
 * Checks that a file a construct builds from exists, or throws naming the property (`label`,
 * e.g. `StatusApi entry`), the rule (`rule`, e.g. `name an existing handler file`) and the path
 * given.
 */
export function checkFileExists(scope: IConstruct, label: string, path: string, rule: string): string {
  if (!existsSync(path)) {
    throw new ValidationError('MissingFile', `${label} must ${rule}; got '${path}'`, scope);
  }
  return path;
}

/**
 * Checks a string prop against `pattern`, or throws naming the property (`label`), the rule
 * (`rule`, e.g. `be 1-80 characters of A-Z, a-z, 0-9, '_' and '-'`) and the value given. Like
 * {@link checkRange}, a value holding a token (a name with the account in it, an import) is left
 * to CloudFormation, which knows it at deploy time.
 */
export function checkPattern(
  scope: IConstruct,
  label: string,
  value: string,
  pattern: RegExp,
  rule: string,
): string {
  if (!Token.isUnresolved(value) && !pattern.test(value)) {
    throw new ValidationError('BadValue', `${label} must ${rule}; got '${value}'`, scope);
  }
  return value;
}
