/** A failure the CLI explains to its user: the message says what went wrong and what to do. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** True for a failure with a message meant for the user. */
export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError;
}

/** Where a command writes: stdout for results, stderr for progress and errors. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** True when stdout is a terminal (progress redraws in place). */
  readonly tty: boolean;
}

/** The process's own stdout and stderr. */
export const PROCESS_IO: CliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  tty: Boolean(process.stdout.isTTY),
};
