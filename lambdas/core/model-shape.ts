/**
 * Day one on Bedrock: whether a model serves the request the workers send, asked with one real
 * request of exactly that shape. The control plane (model-lifecycle.ts) says a model is ACTIVE and
 * may be called; it cannot say that Converse takes this request for it: a forced tool call
 * (`toolChoice.tool`), thinking turned off where the model thinks unless told not to
 * (`additionalModelRequestFields.thinking`), no sampling parameters where the model takes none,
 * and a prompt-cache checkpoint after the document's shared context. A model that refuses it
 * fails every call of every job; `clause-review doctor` and the stack's first intake learn it
 * from one request instead of from a DLQ.
 */
import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { analystById, buildConverseInput } from './analysts/index.js';
import type { Clause } from './clause.js';
import type { DocumentContext } from './documents/document-context.js';
import { MODELS } from './model-catalogue.js';

/** What became of one model's probe. */
export interface ShapeVerdict {
  readonly modelId: string;
  /**
   * `served`: Converse answered the request; `refused`: Bedrock refused it for what it asks
   * (every job's calls would be refused the same way); `unchecked`: no answer either way
   * (throttled, unreachable), to be asked again.
   */
  readonly state: 'served' | 'refused' | 'unchecked';
  /** The request's shape, in words. */
  readonly shape: string;
  /** The endpoint the request went to (`https://bedrock-runtime.<region>.amazonaws.com/model/<id>/converse`). */
  readonly endpoint?: string;
  /** How the model ended its answer (`tool_use` for the forced call). */
  readonly stopReason?: string;
  /** Bedrock's error, for a refusal or an unchecked probe. */
  readonly error?: { readonly name: string; readonly message: string };
}

/** The analyst whose request the probe sends: every analyst's has the same shape. */
const PROBE_ANALYST = 'liability-counsel';

const PROBE_TEXT =
  "Neither party's total liability under this Agreement shall exceed the fees paid in the twelve months before the claim.";
const PROBE_CLAUSE: Clause = {
  index: 0,
  id: 'c0001',
  label: '1',
  heading: 'Limitation of Liability',
  start: 0,
  end: PROBE_TEXT.length,
  text: PROBE_TEXT,
};

/**
 * A contract's shared context long enough that every priced model caches it (Claude Haiku 4.5
 * needs 4,096 tokens before a checkpoint): definitions, as a contract's would read.
 */
const PROBE_CONTEXT: DocumentContext = {
  title: 'Master Services Agreement',
  parties: 'This Agreement is made between Example Supplier Ltd and Example Customer Inc.',
  definitions: Array.from(
    { length: 150 },
    (_, i) =>
      `"Term ${i + 1}" means the services, deliverables, documents and materials described in Schedule ${i + 1}, as amended by the parties in writing from time to time.`,
  ).join('\n'),
  more: '',
};

/** The request the workers send to `modelId` for one clause, with the document's cacheable context. */
export function shapeProbeRequest(modelId: string): ConverseCommandInput {
  return buildConverseInput(analystById(PROBE_ANALYST), PROBE_CLAUSE, { modelId, context: PROBE_CONTEXT });
}

/**
 * A request's shape in words: the forced tool, the thinking setting, sampling, the cache point.
 *
 * @example
 * describeShape(shapeProbeRequest('us.anthropic.claude-haiku-5-5'));
 * // 'forced tool record_assessment, thinking disabled, no sampling parameters, a cache point after the document context'
 */
export function describeShape(input: ConverseCommandInput): string {
  const forced = input.toolConfig?.toolChoice?.tool?.name;
  const thinking = (input.additionalModelRequestFields as { thinking?: { type?: string } } | undefined)
    ?.thinking;
  const config = input.inferenceConfig;
  const cached = input.messages?.[0]?.content?.some((b) => b.cachePoint !== undefined) ?? false;
  return [
    forced ? `forced tool ${forced}` : 'no forced tool',
    thinking?.type ? `thinking ${thinking.type}` : "the model's own thinking setting",
    config?.temperature === undefined && config?.topP === undefined
      ? 'no sampling parameters'
      : `temperature ${config?.temperature ?? '-'}`,
    cached ? 'a cache point after the document context' : 'no cache point',
  ].join(', ');
}

/** Errors that say Bedrock will not serve the request as asked, not that it could not answer now. */
const REFUSALS = new Set(['ValidationException', 'AccessDeniedException', 'ResourceNotFoundException']);

/**
 * Sends one request of the workers' shape to `modelId` and says what Bedrock made of it, and the
 * endpoint it went to (read from the request as the SDK sent it). Never throws for Bedrock's
 * answer.
 */
export async function probeShape(bedrock: BedrockRuntimeClient, modelId: string): Promise<ShapeVerdict> {
  const input = shapeProbeRequest(modelId);
  const shape = describeShape(input);
  let endpoint: string | undefined;
  const command = new ConverseCommand(input);
  command.middlewareStack.add(
    (next) => async (args) => {
      const r = args.request as { protocol?: string; hostname?: string; port?: number; path?: string };
      endpoint = `${r.protocol ?? 'https:'}//${r.hostname ?? ''}${r.port ? `:${r.port}` : ''}${r.path ?? ''}`;
      return next(args);
    },
    { step: 'finalizeRequest', name: 'shapeProbeEndpoint' },
  );
  try {
    const answer = await bedrock.send(command);
    return {
      modelId,
      state: 'served',
      shape,
      ...(endpoint ? { endpoint } : {}),
      ...(answer.stopReason ? { stopReason: answer.stopReason } : {}),
    };
  } catch (error) {
    const name = (error as { name?: string }).name ?? 'Error';
    const message = (error as Error).message ?? String(error);
    return {
      modelId,
      state: REFUSALS.has(name) ? 'refused' : 'unchecked',
      shape,
      ...(endpoint ? { endpoint } : {}),
      error: { name, message },
    };
  }
}

/** What to do about a model that refused the workers' request, given how the others fared. */
export function shapeFix(
  refused: string,
  verdicts: readonly { readonly modelId: string; readonly state: string }[],
  panel: { readonly primary: string; readonly fallback: string },
): string {
  const served = verdicts.filter((v) => v.state === 'served' && v.modelId !== refused).map((v) => v.modelId);
  const role = refused === panel.primary ? 'primary' : refused === panel.fallback ? 'fallback' : 'model';
  const other = served.includes(panel.fallback) && role === 'primary' ? panel.fallback : served[0];
  const key = role === 'fallback' ? 'fallback' : 'primary';
  if (!other) {
    return `choose another model for the ${role} from lambdas/core/model-catalogue.ts and deploy with -c models='{"${key}":"…"}', then run doctor again`;
  }
  // A fallback made the primary is paid for on every call: say what that costs.
  const ratio =
    MODELS[other] && MODELS[refused] ? MODELS[other].price.inputPer1k / MODELS[refused].price.inputPer1k : 1;
  const price = ratio >= 1.5 ? ` (its tokens cost ${Math.round(ratio)}× as much)` : '';
  return `make '${other}', which served the same request, the ${role}${price}: -c models='{"${key}":"${other}"}' (locally ${key === 'fallback' ? 'FALLBACK_MODEL_ID' : 'MODEL_ID'}=${other})`;
}
