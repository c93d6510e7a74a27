import { guardOf } from '../lambdas/core/error-guard.js';

/** Base class of the local-stack errors: something needed to run without AWS is missing or broken. */
export class LocalStackError extends Error {
  override readonly name: string = 'LocalStackError';
}

/** python3, its venv module or pip is missing or failed; the message says what to install. */
export class PythonEnvironmentError extends LocalStackError {
  override readonly name = 'PythonEnvironmentError';
}

/** The moto server did not start or did not answer in time; the message carries its last output. */
export class MotoStartError extends LocalStackError {
  override readonly name = 'MotoStartError';
}

/** True for any error raised by the local stack. */
export const isLocalStackError = guardOf(LocalStackError);

/** True when the Python toolchain needed for moto is missing or broken. */
export const isPythonEnvironmentError = guardOf(PythonEnvironmentError);

/** True when the moto server could not be started. */
export const isMotoStartError = guardOf(MotoStartError);
