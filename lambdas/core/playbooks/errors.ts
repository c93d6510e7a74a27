/**
 * Errors of playbooks: a file that is not a valid playbook (each problem with its field path,
 * line and column), a playbook or version the store does not hold, and a stored version whose
 * content no longer matches its hash.
 */
import { guardOf } from '../error-guard.js';

/** Base class of every playbook error. */
export class PlaybookError extends Error {
  override readonly name: string = 'PlaybookError';
}

/** One problem of a playbook file: where it is and what is wrong. */
export interface PlaybookIssue {
  /** The field, as `positions[2].fallbacks[0].threshold`; empty for the file as a whole. */
  readonly path: string;
  /** 1-based line and column in the file, where the file has the field (or its nearest parent). */
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

/** One issue as a line a person reads: `default.yaml:12:5: positions[0].category: …`. */
export function issueLine(issue: PlaybookIssue, file?: string): string {
  const at = issue.line === undefined ? '' : `${issue.line}:${issue.column ?? 1}`;
  const where = file
    ? at
      ? `${file}:${at}`
      : file
    : at
      ? `line ${issue.line}, column ${issue.column ?? 1}`
      : '';
  return [where, issue.path, issue.message].filter(Boolean).join(': ');
}

/** The file is not a valid playbook: YAML or JSON that does not parse, or content the schema refuses. */
export class PlaybookInvalidError extends PlaybookError {
  override readonly name = 'PlaybookInvalidError';
  constructor(
    readonly issues: readonly PlaybookIssue[],
    readonly file?: string,
  ) {
    super(
      `${file ?? 'the playbook'} is not a valid playbook (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n` +
        issues.map((i) => `  ${issueLine(i, file)}`).join('\n'),
    );
  }
}

/** Text that does not name a playbook: `NAME` or `NAME@VERSION` is expected. */
export class PlaybookRefError extends PlaybookError {
  override readonly name = 'PlaybookRefError';
  constructor(readonly given: string) {
    super(
      `'${given}' does not name a playbook: expected NAME or NAME@VERSION, a name of lower-case words ` +
        'joined by hyphens and a version from 1 (e.g. default or default@2)',
    );
  }
}

/** The store holds no playbook of that name, or no such version of it. */
export class PlaybookNotFoundError extends PlaybookError {
  override readonly name = 'PlaybookNotFoundError';
  constructor(
    readonly playbook: string,
    readonly version: number | undefined,
    detail: string,
  ) {
    super(detail);
  }
}

/** A stored version whose content does not hash to the sha256 recorded with it. */
export class PlaybookCorruptError extends PlaybookError {
  override readonly name = 'PlaybookCorruptError';
  constructor(
    readonly playbook: string,
    readonly version: number,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(
      `stored playbook ${playbook}@${version} does not match its recorded hash (recorded ${expected}, content ${actual}); ` +
        'it was changed outside clause-review',
    );
  }
}

/** True for any playbook error. */
export const isPlaybookError = guardOf(PlaybookError);

/** True for a file that is not a valid playbook. */
export const isPlaybookInvalidError = guardOf(PlaybookInvalidError);

/** True for text that does not name a playbook. */
export const isPlaybookRefError = guardOf(PlaybookRefError);

/** True for a playbook or version the store does not hold. */
export const isPlaybookNotFoundError = guardOf(PlaybookNotFoundError);

/** True for a stored version whose content does not match its hash. */
export const isPlaybookCorruptError = guardOf(PlaybookCorruptError);
