/** Base class of the local-stack errors: something needed to run without AWS is missing or broken. */
export class LocalStackError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalStackError';
  }
}

/** python3, its venv module or pip is missing or failed; the message says what to install. */
export class PythonEnvironmentError extends LocalStackError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PythonEnvironmentError';
  }
}

/** The moto server did not start or did not answer in time; the message carries its last output. */
export class MotoStartError extends LocalStackError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MotoStartError';
  }
}

/** True for any error raised by the local stack. */
export function isLocalStackError(error: unknown): error is LocalStackError {
  return error instanceof LocalStackError;
}

/** True when the Python toolchain needed for moto is missing or broken. */
export function isPythonEnvironmentError(error: unknown): error is PythonEnvironmentError {
  return error instanceof PythonEnvironmentError;
}

/** True when the moto server could not be started. */
export function isMotoStartError(error: unknown): error is MotoStartError {
  return error instanceof MotoStartError;
}
