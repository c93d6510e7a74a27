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
  // Also the message of a requests-per-minute or concurrency refusal (as callers quote it, e.g.
  // https://github.com/promptfoo/promptfoo/issues/1508).
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

/**
 * Message Bedrock sends when a tokens-per-minute quota, rather than a request rate, is exhausted
 * (as callers quote it, e.g. https://github.com/anthropics/claude-code/issues/236).
 */
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

/**
 * Messages Bedrock sends when a request names a model it will not serve that way. Each is
 * quoted as Bedrock puts it on the wire (typographic apostrophe included); the comment says
 * where the wording was seen.
 */
export const MODEL_MESSAGES = {
  /**
   * ValidationException (400) for an id Bedrock does not know, or a profile the caller's region
   * cannot use; also what a retired id answered before "end of life" messages existed.
   * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html (Errors), wording
   * as in github.com/strands-agents/harness-sdk/issues/38.
   */
  invalidModelId: 'The provided model identifier is invalid.',
  /**
   * ResourceNotFoundException (404) at Converse for a model past its end-of-life date
   * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html: "Any requests
   * made to this version will fail"); wording as reported in
   * github.com/aws-solutions-library-samples/accelerated-intelligent-document-processing-on-aws/issues/708.
   */
  endOfLife:
    'This model version has reached the end of its life. Please refer to the AWS documentation for more details.',
  /**
   * ValidationException (400) for the base id of a model served only through inference
   * profiles (https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-use.html);
   * wording as in github.com/strands-agents/harness-sdk/issues/38.
   */
  onDemandUnsupported: (modelId: string): string =>
    `Invocation of model ID ${modelId} with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model.`,
  /**
   * ValidationException (400) when temperature and topP are both set on a model that allows
   * only one (Claude 4.5 generation,
   * https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages.html).
   */
  /**
   * ValidationException (400) for `temperature` sent to a Claude model that takes no sampling
   * parameters (Claude Haiku 5.5 per Anthropic's migration guide; the wording as Bedrock answers
   * it for Claude Opus 4.7 and Opus 5: github.com/zeroclaw-labs/zeroclaw/issues/6095,
   * github.com/promptfoo/promptfoo/issues/10307, github.com/DayuanJiang/next-ai-draw-io/issues/861).
   */
  temperatureRefused: 'The model returned the following errors: `temperature` is deprecated for this model.',
  /** The same for `topP` (`top_p` on the model's side). */
  topPRefused: 'The model returned the following errors: `top_p` is deprecated for this model.',
  /**
   * ValidationException (400) for a forced tool call (`toolChoice` `tool` or `any`) while the
   * model would think: "When using extended thinking with tool use, tool_choice any/tool are not
   * supported and will result in an error"
   * (https://platform.claude.com/docs/en/build-with-claude/extended-thinking); the message as the
   * model returns it, quoted in many client fixes (e.g. the Anthropic SDK users collected under
   * "Thinking may not be enabled when tool_choice forces tool use").
   */
  thinkingWithForcedTool:
    'The model returned the following errors: Thinking may not be enabled when tool_choice forces tool use.',
  temperatureWithTopP:
    'The model returned the following errors: `temperature` and `top_p` cannot both be specified for this model. Please use only one.',
  /**
   * ValidationException (400) for cachePoint blocks sent to a model without prompt caching
   * (https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html, supported
   * models); wording as reported in github.com/cline/cline/issues/2064 and
   * github.com/zeroclaw-labs/zeroclaw/pull/7315 (both 400).
   */
  promptCachingUnsupported:
    'You invoked an unsupported model or your request did not allow prompt caching. See the documentation for more information.',
  /**
   * ResourceNotFoundException (404) from the control plane's GetFoundationModel for an id it
   * cannot resolve (unknown or past end of life); wording as Bedrock sends it for unresolvable
   * ids (github.com/aws-samples/bedrock-chat/issues/91).
   * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetFoundationModel.html
   */
  foundationModelNotFound: 'Could not resolve the foundation model from the provided model identifier.',
  /**
   * ResourceNotFoundException (404) from GetInferenceProfile
   * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_GetInferenceProfile.html).
   * The exact wording is not documented; this one is the stand-in's.
   */
  inferenceProfileNotFound: (id: string): string => `Inference profile ${id} not found.`,
} as const;
