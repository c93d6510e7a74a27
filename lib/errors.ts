/**
 * The errors the infrastructure code raises when a prop, a tuning value or a context flag fails
 * its rules, shaped like aws-cdk-lib's own (`core/lib/errors`): a `ValidationError` with an id
 * and the path of the construct it concerns, and an `UnscopedValidationError` where no construct
 * is at hand. aws-cdk-lib marks its classes `@internal` (only `Errors.isValidationError` is
 * public), so lib/ has these of its own.
 *
 * This module imports nothing at run time, so plain-data modules such as topology.ts can use it
 * and stay cheap to load.
 */
import type { IConstruct } from 'constructs';

/**
 * A prop or setting that fails a construct's rules: the stack would not deploy, or would deploy
 * something broken, with it. The message names the property, what is allowed and what was given.
 *
 * @example
 * throw new ValidationError('OutOfRange', 'StatusApi rateLimit must be an integer from 1 to 10000; got 0', this);
 */
export class ValidationError extends Error {
  override readonly name: string = 'ValidationError';
  /** Always `'validation'`, as aws-cdk-lib's construct errors say. */
  readonly type = 'validation';
  /** The path of the construct the value was given to; undefined when unscoped. */
  readonly constructPath: string | undefined;

  constructor(
    /** What failed, as a stable PascalCase code (`OutOfRange`, `BadName`, `MissingFile`). */
    readonly id: string,
    message: string,
    /** The construct the value was given to; `undefined` only from {@link UnscopedValidationError}. */
    scope: IConstruct | undefined,
    options?: { cause?: unknown },
  ) {
    // Only a cause that is there: `{ cause: undefined }` would still set an own `cause`.
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.constructPath = scope?.node.path;
  }
}

/**
 * A {@link ValidationError} raised where no construct is at hand: a plain-data module
 * (topology.ts) or a function called before any construct exists.
 */
export class UnscopedValidationError extends ValidationError {
  override readonly name: string = 'UnscopedValidationError';

  constructor(id: string, message: string, options?: { cause?: unknown }) {
    super(id, message, undefined, options);
  }
}

/** True for a {@link ValidationError} of any kind (unscoped and context-flag errors included). */
export function isValidationError(error: unknown): error is ValidationError {
  return error instanceof ValidationError;
}
