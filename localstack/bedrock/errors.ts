/**
 * The Bedrock Runtime error catalogue, as the real service puts errors on the wire (restJson1):
 * an HTTP status, an `x-amzn-ErrorType` header naming the shape, and a `{"message": ...}` body.
 * The SDK turns the header into its modelled exception class, so these must match exactly.
 */

/** Names of the Converse errors the stand-in can send; each is a modelled SDK exception. */
export type BedrockErrorName =
  | 'ThrottlingException'
  | 'ModelNotReadyException'
  | 'ServiceUnavailableException'
  | 'InternalServerException'
  | 'ModelTimeoutException'
  | 'ModelErrorException'
  | 'ValidationException'
  | 'AccessDeniedException'
  | 'ResourceNotFoundException';

/** Status code and default message of one catalogue entry. */
export interface BedrockErrorSpec {
  readonly status: number;
  readonly message: string;
}

/**
 * Every error in the catalogue. The order is fixed: fault injection walks it to turn one
 * uniform draw into an outcome, so reordering would change seeded fault sequences.
 */
export const BEDROCK_ERRORS: Readonly<Record<BedrockErrorName, BedrockErrorSpec>> = {
  ThrottlingException: { status: 429, message: 'Too many requests, please wait before trying again.' },
  ModelNotReadyException: {
    status: 429,
    message: 'Model is not ready to serve inference requests. Wait and try your request again.',
  },
  ServiceUnavailableException: { status: 503, message: 'Bedrock is unable to process your request.' },
  InternalServerException: {
    status: 500,
    message: 'The system encountered an unexpected error during processing. Try your request again.',
  },
  ModelTimeoutException: {
    status: 408,
    message: 'Model has timed out in processing the request. Try your request again.',
  },
  ModelErrorException: { status: 424, message: 'The request failed when it was processed by the model.' },
  ValidationException: { status: 400, message: 'The provided request is not valid.' },
  AccessDeniedException: {
    status: 403,
    message: "You don't have access to the model with the specified model ID.",
  },
  ResourceNotFoundException: {
    status: 404,
    message: 'The requested resource could not be found. Check the model ID and try again.',
  },
};

/** The catalogue's names in their fixed order. */
export const BEDROCK_ERROR_NAMES = Object.keys(BEDROCK_ERRORS) as readonly BedrockErrorName[];

/** Message Bedrock sends when a tokens-per-minute quota, rather than a request rate, is exhausted. */
export const TOKEN_THROTTLE_MESSAGE = 'Too many tokens, please wait before trying again.';

/** The Coral namespace suffix Bedrock appends to every `x-amzn-ErrorType` value. */
const BEDROCK_ERROR_NAMESPACE = 'http://internal.amazon.com/coral/com.amazon.bedrock/';

/** Value of the `x-amzn-ErrorType` header for a Bedrock error. */
export function errorTypeHeader(name: string): string {
  return `${name}:${BEDROCK_ERROR_NAMESPACE}`;
}

/** What AWS front ends answer for a path that names no operation. */
export const UNKNOWN_OPERATION = {
  status: 404,
  errorType: 'UnknownOperationException:http://internal.amazon.com/coral/com.amazon.coral.service/',
} as const;

/** A fully formed error answer, ready for the wire. */
export interface WireError {
  readonly name: string;
  readonly status: number;
  readonly errorType: string;
  readonly message: string;
}

/** Builds the wire form of a catalogue error, with the default message unless one is given. */
export function bedrockError(name: BedrockErrorName, message?: string): WireError {
  const spec = BEDROCK_ERRORS[name];
  return { name, status: spec.status, errorType: errorTypeHeader(name), message: message ?? spec.message };
}

/** Type guard for catalogue names (used when validating plans and parsing control input). */
export function isBedrockErrorName(value: string): value is BedrockErrorName {
  return Object.hasOwn(BEDROCK_ERRORS, value);
}
