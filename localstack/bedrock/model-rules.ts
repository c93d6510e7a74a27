/**
 * What Bedrock refuses in a well-formed Converse body because of the model it names: sampling
 * parameters where the model takes none, temperature with topP where it allows only one, a
 * forced tool call to a model that thinks unless told not to, and cachePoint blocks for a model
 * without prompt caching. The messages, with their sources, are in errors.ts.
 */
import type { CatalogueModel } from './catalogue.js';
import { type ConverseRequest, forcesTool } from './converse-request.js';
import { type BedrockErrorName, MODEL_MESSAGES } from './errors.js';
import type { RefusedShape } from './fault-plan.js';

/** A refusal: the error Bedrock answers with. */
export interface Refusal {
  name: BedrockErrorName;
  message: string;
}

/**
 * The refusal of `request` by `model`, or undefined when the model takes it. `refused` are
 * request shapes a plan has the model refuse besides its own rules (`catalogue.refuse`), as
 * Bedrock refuses them where the model is served that way: `forced-tool`, a forced tool call
 * whatever the thinking setting (a model whose thinking the request cannot turn off), answered
 * as a forced call with thinking is; `cache-point`, cachePoint blocks, answered as for a model
 * without prompt caching.
 */
export function refuseRequest(
  model: CatalogueModel,
  request: ConverseRequest,
  cachePoints: boolean,
  refused: readonly RefusedShape[] = [],
): Refusal | undefined {
  if (refused.includes('forced-tool') && forcesTool(request)) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.thinkingWithForcedTool };
  }
  if (refused.includes('cache-point') && cachePoints) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.promptCachingUnsupported };
  }
  const config = request.inferenceConfig;
  if (model.samplingRefused && config?.temperature !== undefined) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.temperatureRefused };
  }
  if (model.samplingRefused && config?.topP !== undefined) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.topPRefused };
  }
  if (model.temperatureTopPExclusive && config?.temperature !== undefined && config.topP !== undefined) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.temperatureWithTopP };
  }
  if (model.thinksByDefault && forcesTool(request) && !thinkingDisabled(request)) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.thinkingWithForcedTool };
  }
  if (cachePoints && !model.promptCaching) {
    return { name: 'ValidationException', message: MODEL_MESSAGES.promptCachingUnsupported };
  }
  return undefined;
}

/** The request turns the model's thinking off (`additionalModelRequestFields.thinking.type`). */
function thinkingDisabled(request: ConverseRequest): boolean {
  const thinking = request.additionalModelRequestFields?.thinking as { type?: unknown } | undefined;
  return thinking?.type === 'disabled';
}
