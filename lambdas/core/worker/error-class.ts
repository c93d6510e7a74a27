import type { ErrorClass } from '../state/claims.js';

const TRANSIENT_NAMES = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'InternalServerException',
  'ModelTimeoutException',
  'ModelNotReadyException',
  // A model-side processing error is not about the request; a retry usually succeeds.
  'ModelErrorException',
  'TimeoutError',
  'RequestTimeout',
  'AbortError',
]);

const SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

/** Failures before a connection was made: the request never reached the service. */
const NEVER_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * True for a request that went out and came back without an answer: a transient failure with
 * no HTTP status (the client's timeout or abort, a connection reset mid-call). Bedrock may have answered and
 * billed it; only an error answer from the service (an SDK service exception, with its fault
 * and status) or a connection that was never made is known to bill nothing.
 */
export function isUnanswered(error: unknown): boolean {
  if (!(error instanceof Error) || classifyCallError(error) !== 'transient') return false;
  const meta = error as { $fault?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  // An SDK service exception (every one carries its fault) is the service's own answer.
  if (meta.$fault !== undefined || meta.$metadata?.httpStatusCode !== undefined) return false;
  return !(meta.code !== undefined && NEVER_CONNECTED_CODES.has(meta.code));
}

/** True for Bedrock's throttling answers, which also trigger the fallback model. */
export function isThrottle(error: unknown): boolean {
  return error instanceof Error && error.name === 'ThrottlingException';
}

/**
 * Sorts a model-call error into the failure taxonomy (docs/architecture.md): `transient` ones are retried with
 * backoff; `logic` ones (ValidationException, AccessDenied, ResourceNotFound, an unpriced
 * model…) fail the call at once, because repeating the same request cannot help.
 */
export function classifyCallError(error: unknown): ErrorClass {
  if (!(error instanceof Error)) return 'logic';
  if (TRANSIENT_NAMES.has(error.name)) return 'transient';
  const code = (error as { code?: string }).code;
  if (code && SOCKET_CODES.has(code)) return 'transient';
  if (/socket hang up|ECONNRESET|timed? ?out/i.test(error.message)) return 'transient';
  const meta = error as { $fault?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  if (meta.$retryable) return 'transient';
  if (meta.$fault === 'server' || (meta.$metadata?.httpStatusCode ?? 0) >= 500) return 'transient';
  return 'logic';
}

/** A short, single-line description of an error for checkpoints and reports. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.replace(/\s+/g, ' ').slice(0, 500);
  return String(error).slice(0, 500);
}
