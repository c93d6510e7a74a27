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

/** LocalStack did not start, or did not become ready in time; the message carries its last output. */
export class LocalStackStartError extends LocalStackError {
  override readonly name: string = 'LocalStackStartError';
}

/** What a service that never became ready was doing. */
export interface NotReadyContext {
  /** LocalStack's name of the service, e.g. 's3'. */
  readonly service: string;
  /** Its state in LocalStack's health when the wait gave up ('not listed' when absent). */
  readonly state: string;
}

/** A service LocalStack was to serve never became ready: the message names it and says why. */
export class LocalStackNotReadyError extends LocalStackStartError {
  override readonly name = 'LocalStackNotReadyError';
  readonly service: string;
  readonly state: string;

  constructor(message: string, context: NotReadyContext, options?: ErrorOptions) {
    super(message, options);
    this.service = context.service;
    this.state = context.state;
  }
}

/** True for any error raised by the local stack. */
export const isLocalStackError = guardOf(LocalStackError);

/** True when the Python toolchain needed for moto is missing or broken. */
export const isPythonEnvironmentError = guardOf(PythonEnvironmentError);

/** True when LocalStack did not start or did not become ready. */
export const isLocalStackStartError = guardOf(LocalStackStartError);

/** True when a service LocalStack was to serve never became ready. */
export const isLocalStackNotReadyError = guardOf(LocalStackNotReadyError);

/** True when the moto server could not be started. */
export const isMotoStartError = guardOf(MotoStartError);
