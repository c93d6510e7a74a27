/**
 * The type guard every error class exports, written once. An error class of the runtime sets
 * its name as a field (`override readonly name = 'LeaseLostError'`; a base class with subclasses
 * types it `string`), passes `cause` on through `ErrorOptions`, and carries the context a person
 * needs (job id, chunk, analyst) as readonly fields: it needs a constructor only to take that
 * context or to write its message. The name is written out, not taken from the class, because
 * the handlers are bundled minified, which renames classes, and the name is what logs, metrics
 * and the status API's answers carry (test/unit/core/error-classes.test.ts holds both).
 *
 * @example
 * export class HoldError extends Error {
 *   override readonly name: string = 'HoldError';
 *   constructor(message: string, readonly jobId: string, options?: ErrorOptions) {
 *     super(message, options);
 *   }
 * }
 * export class DecisionError extends HoldError {
 *   override readonly name = 'DecisionError';
 * }
 * export const isHoldError = guardOf(HoldError);
 */

/** The type guard of an error class: true for an instance of it, or of a subclass. */
export function guardOf<T extends Error>(
  type: abstract new (...args: never[]) => T,
): (error: unknown) => error is T {
  return (error: unknown): error is T => error instanceof type;
}
