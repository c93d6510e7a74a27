/**
 * Errors of the analyst panel. An {@link AnswerValidationError} is the failure taxonomy's
 * "validation" class: the worker makes one repair retry with its {@link
 * AnswerValidationError.repairHint}, then records the call as failed. An {@link
 * UnknownAnalystError} is a logic error (a bad id in a job's analyst selection) and is
 * never retried.
 */
import { guardOf } from '../error-guard.js';

/** Base class of every error raised by the analyst panel. */
export class AnalystError extends Error {
  override readonly name: string = 'AnalystError';
}

/** An analyst id that is not in the registry. */
export class UnknownAnalystError extends AnalystError {
  override readonly name = 'UnknownAnalystError';
  constructor(
    readonly analystId: string,
    readonly knownIds: readonly string[],
  ) {
    super(`unknown analyst '${analystId}' (known: ${knownIds.join(', ')})`);
  }
}

/** Longest excerpt of model output quoted back in an issue, so a rambling answer cannot bloat the repair prompt. */
const EXCERPT_CHARS = 120;

/** Issues listed in the repair hint; the rest are counted, as a model fixes the first ones first anyway. */
const HINT_ISSUES = 10;

/**
 * A model answer that cannot be accepted: no tool call, a tool input that breaks the
 * schema, or a quote that is not in the clause.
 */
export class AnswerValidationError extends AnalystError {
  override readonly name = 'AnswerValidationError';
  /**
   * Text for the repair retry: every issue on its own line and what to do about it, ready
   * to pass as `repair.error` to `buildConverseInput`.
   */
  readonly repairHint: string;

  constructor(
    readonly analystId: string,
    readonly clauseId: string,
    /** What is wrong, one readable line each (`path: message`). */
    readonly issues: readonly string[],
    options?: ErrorOptions,
  ) {
    super(
      `analyst '${analystId}' gave an invalid answer for clause ${clauseId}: ${issues.join('; ')}`,
      options,
    );
    this.repairHint = repairHintFor(issues);
  }
}

/** Shortens a piece of model output for an error message. */
export function excerpt(text: string): string {
  return text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS)}…`;
}

function repairHintFor(issues: readonly string[]): string {
  const listed = issues.slice(0, HINT_ISSUES).map((issue) => `- ${issue}`);
  if (issues.length > HINT_ISSUES) listed.push(`- … and ${issues.length - HINT_ISSUES} more`);
  return listed.join('\n');
}

/** Whether `e` is any analyst error. */
export const isAnalystError = guardOf(AnalystError);

/** Whether `e` is an {@link UnknownAnalystError}. */
export const isUnknownAnalystError = guardOf(UnknownAnalystError);

/** Whether `e` is an {@link AnswerValidationError}. */
export const isAnswerValidationError = guardOf(AnswerValidationError);
