/**
 * How a deploy flag is read: the error that names a bad one, and the readers every flag goes
 * through (lists, integers in a range, dollars), each refusal naming the flag and what was given.
 */
import type { IConstruct } from 'constructs';
import { checkRange } from './checks.js';
import { ValidationError } from './errors.js';
import { describeRange, type NumberRange } from './number-range.js';

/**
 * Raised when a context flag is malformed or out of range; the message names the flag. A
 * {@link ValidationError} scoped to the construct whose context held the flag (the app).
 */
export class DeployContextError extends ValidationError {
  override readonly name = 'DeployContextError';
  constructor(
    /** The flag, as it is passed to `-c`. */
    readonly flag: string,
    /** What was given. */
    readonly value: unknown,
    message: string,
    options?: { cause?: unknown; scope?: IConstruct | undefined },
  ) {
    super('BadContextFlag', `-c ${flag}: ${message}`, options?.scope, options);
  }
}

/** True for a {@link DeployContextError}. */
export function isDeployContextError(error: unknown): error is DeployContextError {
  return error instanceof DeployContextError;
}

/** Reads one context key, as `app.node.tryGetContext` does. */
export type ContextReader = (key: string) => unknown;

/**
 * A comma-separated list (from `-c`) or a JSON array of strings (from cdk.json); undefined when
 * the flag is absent. Empty entries are refused, so a stray comma is not silently dropped.
 */
export function listFlag(
  read: ContextReader,
  flag: string,
  scope: IConstruct | undefined,
): string[] | undefined {
  const value = read(flag);
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!items || items.some((item) => typeof item !== 'string')) {
    throw new DeployContextError(
      flag,
      value,
      `must be a comma-separated list of strings; got ${JSON.stringify(value)}`,
      { scope },
    );
  }
  const trimmed = (items as string[]).map((item) => item.trim());
  if (trimmed.length === 0 || trimmed.some((item) => item === '')) {
    throw new DeployContextError(flag, value, `has an empty entry; got '${items.join(',')}'`, { scope });
  }
  return trimmed;
}

export function checkEach(
  flag: string,
  items: string[],
  pattern: RegExp,
  what: string,
  scope: IConstruct | undefined,
): string[] {
  for (const item of items) {
    if (!pattern.test(item)) throw new DeployContextError(flag, item, `'${item}' is not ${what}`, { scope });
  }
  return items;
}

/**
 * An integer flag in a range, through the project's one range check (a flag is a literal, so
 * the check always applies); the error it throws becomes the cause of the flag's own.
 */
export function integerFlag(
  flag: string,
  value: unknown,
  range: NumberRange,
  scope: IConstruct | undefined,
): number {
  const text = String(value).trim();
  const refuse = (got: string, cause?: unknown) =>
    new DeployContextError(flag, value, `must be ${describeRange(range)}; got ${got}`, {
      scope,
      cause,
    });
  if (!/^-?\d+$/.test(text)) throw refuse(`'${text}'`);
  try {
    return checkRange(scope, `-c ${flag}`, Number(text), range);
  } catch (error) {
    throw refuse(text, error);
  }
}

/**
 * A dollar amount (`20`, `2.5`, at most six decimals) as integer micro-dollars within `range`
 * (micro-dollars), converted on the digits so no floating-point rounding enters money.
 */
export function dollarsFlag(
  flag: string,
  value: unknown,
  range: { readonly min: number; readonly max: number },
  scope: IConstruct | undefined,
): number {
  const text = String(value).trim();
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  const usd = (micros: number) => String(micros / 1_000_000);
  const bad = (cause?: unknown) =>
    new DeployContextError(
      flag,
      value,
      `must be dollars from ${usd(range.min)} to ${usd(range.max)} with at most six decimals, such as 20 or 2.5; got '${text}'`,
      { cause, scope },
    );
  if (!match) throw bad();
  const micros = Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0'));
  try {
    return checkRange(scope, `-c ${flag} (micro-dollars)`, micros, range);
  } catch (error) {
    throw bad(error);
  }
}
