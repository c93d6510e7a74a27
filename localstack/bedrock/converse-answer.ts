/**
 * Building a Converse answer: the analyst's content blocks, token usage as Bedrock reports it,
 * truncation at `maxTokens`, and any injected malformation. The content JSON is serialised
 * once and spliced into the response body, since this runs on every call.
 */
import type { MalformedAccountingKind } from './accounting.js';
import { DEFAULT_CHARS_PER_TOKEN, tokensFor } from './catalogue.js';
import { type ConverseRequest, forcesTool } from './converse-request.js';
import type { MalformedKind, PlannedStopReason } from './fault-plan.js';
import { analyze } from './heuristic-analyst.js';
import type { AnalystAnswer, OfflineAnalystName } from './heuristic-types.js';
import { breakSchema, corruptQuotes, truncatedJson } from './malformed.js';
import { type CacheUse, blockChars as oneBlockChars } from './prompt-cache.js';
import type { Random } from './random.js';
import { toolConfigInfo } from './tool-config.js';

/** Why the model stopped (Converse `stopReason`). */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'refusal'
  | 'content_filtered'
  | 'guardrail_intervened';

/**
 * Output limit when a request sets no `inferenceConfig.maxTokens` and the plan forces a
 * `max_tokens` stop: the stand-in needs some cap to bill. 4,096 is the stand-in's choice
 * (Converse documents no default; each model applies its own), so tests that check billing
 * should set maxTokens.
 */
export const DEFAULT_MAX_TOKENS = 4_096;

/**
 * What a refusing model says. `refusal` is the stop reason Claude 4.5 models give for it
 * (https://docs.claude.com/en/docs/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals);
 * @aws-sdk/client-bedrock-runtime 3.1162's StopReason enum does not list it yet, so callers get
 * it as a plain string.
 */
export const REFUSAL_TEXT = "I can't help with that request.";
/** Amazon Nova's answer when its own content filter blocks the output (stopReason content_filtered). */
export const CONTENT_FILTERED_TEXT = 'The generated text has been blocked by our content filters.';
/**
 * A guardrail's default blocked-output message
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-components.html, "Messaging for blocked prompts").
 */
export const GUARDRAIL_BLOCKED_TEXT = 'Sorry, the model cannot answer this question.';

/** A call's answer as prepared before faults are applied. */
export interface PreparedAnswer {
  readonly analysis: AnalystAnswer;
  readonly toolUseId: string;
  /** ceil(chars / 4) of the messages, system prompts and tool definitions sent. */
  readonly inputTokens: number;
  /** Serialised content blocks of the well-formed answer. */
  readonly contentJson: string;
  /** Output tokens of the well-formed answer, before the maxTokens cap. */
  readonly naturalOutputTokens: number;
  readonly maxTokens?: number;
  /** `canonicalJson` of the request's tool config, for the call fingerprint. */
  readonly canonicalToolConfig?: string;
  /** The request forces a tool (`toolChoice` `tool` or `any`): the answer is the tool call alone. */
  readonly forcedTool: boolean;
  /** The model's tokenizer: characters a token. */
  readonly charsPerToken: number;
}

/** The answer as it will be sent. */
export interface FinalAnswer {
  readonly contentJson: string;
  readonly stopReason: StopReason;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Set when the caller will find the answer unusable. */
  readonly malformed?: MalformedAccountingKind;
  /** Set when the request carried cachePoint blocks; inputTokens then excludes these tokens. */
  readonly cache?: CacheUse;
}

function blockChars(blocks: readonly Record<string, unknown>[] | undefined): number {
  let chars = 0;
  // cachePoint blocks are markers, not input (prompt-cache.ts counts the same way).
  for (const block of blocks ?? []) chars += oneBlockChars(block);
  return chars;
}

/**
 * The answer's content blocks. A forced tool call is answered with the call alone: "when
 * tool_choice is any or tool, we will prefill the assistant message to force a tool to be used.
 * This means that the models will not emit a natural language response or explanation before
 * tool_use content blocks, even if explicitly asked to do so"
 * (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use, "Forcing tool
 * use").
 */
function contentOf(analysis: AnalystAnswer, toolUseId: string, forcedTool: boolean): unknown[] {
  const content: unknown[] = forcedTool && analysis.tool ? [] : [{ text: analysis.text }];
  if (analysis.tool) {
    content.push({ toolUse: { toolUseId, name: analysis.tool.name, input: analysis.tool.input } });
  }
  return content;
}

/**
 * Runs the analyst and sizes its answer. Deterministic for a given request and tool-use id, so
 * the token estimate used for capacity admission is exact for well-formed answers. `annotate`
 * keeps the handles a malformed-answer injector needs (see `analyze`).
 */
export function prepareAnswer(
  request: ConverseRequest,
  toolUseId: string,
  annotate = false,
  analyst?: OfflineAnalystName,
  charsPerToken = DEFAULT_CHARS_PER_TOKEN,
): PreparedAnswer {
  let chars = 0;
  for (const message of request.messages) chars += blockChars(message.content);
  chars += blockChars(request.system);
  const tools = request.toolConfig ? toolConfigInfo(request.toolConfig) : undefined;
  chars += tools?.chars ?? 0;
  const analysis = analyze(request, {
    schemaOf: tools && ((name) => tools.schemas.get(name)),
    annotate,
    analyst,
  });
  const forcedTool = forcesTool(request);
  const contentJson = JSON.stringify(contentOf(analysis, toolUseId, forcedTool));
  return {
    analysis,
    toolUseId,
    inputTokens: tokensFor(chars, charsPerToken),
    contentJson,
    naturalOutputTokens: tokensFor(contentJson.length, charsPerToken),
    maxTokens: request.inferenceConfig?.maxTokens,
    canonicalToolConfig: tools?.canonical,
    forcedTool,
    charsPerToken,
  };
}

/**
 * What capacity admission reserves against tokens per minute: every input token (cached or
 * not) plus `maxTokens`, as Bedrock does at the start of a request
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html); without
 * `maxTokens`, the well-formed answer's own length stands in for the model's default maximum.
 */
export function estimatedTokens(prepared: PreparedAnswer): number {
  return prepared.inputTokens + (prepared.maxTokens ?? prepared.naturalOutputTokens);
}

/** Text-only content holding a prefix of `json` that fits within `maxTokens`. */
function truncatedContent(json: string, maxTokens: number, label: string, charsPerToken: number): string {
  const budget = Math.floor(maxTokens * charsPerToken);
  let length = Math.max(0, budget - label.length - 16);
  let content = JSON.stringify([{ text: `${label}\n${json.slice(0, length)}` }]);
  while (content.length > budget && length > 0) {
    length = Math.floor(length * 0.8);
    content = JSON.stringify([{ text: `${label}\n${json.slice(0, length)}` }]);
  }
  return content;
}

/**
 * Applies an injected malformation (if it applies to this answer) and the maxTokens cap, and
 * returns what goes on the wire. Malformations that cannot apply (e.g. badQuote for a schema
 * without quotes) leave the answer well-formed and unmarked.
 */
export function finishAnswer(
  prepared: PreparedAnswer,
  kind: MalformedKind | undefined,
  random: Random,
  forced?: PlannedStopReason,
): FinalAnswer {
  const { analysis, toolUseId, inputTokens, maxTokens } = prepared;
  if (forced) return forcedStop(prepared, forced);
  let contentJson = prepared.contentJson;
  let stopReason: StopReason = analysis.tool ? 'tool_use' : 'end_turn';
  let malformed: MalformedAccountingKind | undefined;
  if (kind === 'invalidJson') {
    const payload = analysis.tool ? analysis.tool.input : { summary: analysis.text };
    contentJson = JSON.stringify([{ text: `${analysis.label}\n${truncatedJson(payload)}` }]);
    stopReason = 'end_turn';
    malformed = kind;
  } else if (kind === 'schemaViolation' && analysis.tool && breakSchema(analysis.tool, random)) {
    contentJson = JSON.stringify(contentOf(analysis, toolUseId, prepared.forcedTool));
    malformed = kind;
  } else if (kind === 'badQuote' && analysis.tool && corruptQuotes(analysis.tool, analysis.clause)) {
    contentJson = JSON.stringify(contentOf(analysis, toolUseId, prepared.forcedTool));
    malformed = kind;
  }
  let outputTokens = tokensFor(contentJson.length, prepared.charsPerToken);
  if (maxTokens !== undefined && outputTokens > maxTokens) {
    // The model ran out of room mid-answer: the tool call never completed.
    const payload = analysis.tool ? JSON.stringify(analysis.tool.input) : analysis.text;
    contentJson = truncatedContent(payload, maxTokens, analysis.label, prepared.charsPerToken);
    stopReason = 'max_tokens';
    outputTokens = maxTokens;
    malformed = 'maxTokens';
  }
  return { contentJson, stopReason, inputTokens, outputTokens, malformed };
}

/**
 * An answer ended by the plan rather than by the analyst. Input is billed in full (the model
 * read it); output is billed as produced:
 * - `max_tokens`: the model ran to the cap (`inferenceConfig.maxTokens`, else
 *   {@link DEFAULT_MAX_TOKENS}) and was cut off: a text-only prefix of the answer, the tool call
 *   never completed; billed at the cap, as the model generated that many tokens.
 * - `refusal`: a short refusal text, no toolUse; billed for that text.
 * - `content_filtered` / `guardrail_intervened`: the model wrote its whole answer, which was
 *   then replaced by the filter's or guardrail's message; billed for the answer it wrote.
 *   (Guardrail pricing is separate and not modelled.)
 */
function forcedStop(prepared: PreparedAnswer, reason: PlannedStopReason): FinalAnswer {
  const { analysis, inputTokens } = prepared;
  const text = (value: string): string => JSON.stringify([{ text: value }]);
  switch (reason) {
    case 'max_tokens': {
      const cap = prepared.maxTokens ?? DEFAULT_MAX_TOKENS;
      const payload = analysis.tool ? JSON.stringify(analysis.tool.input) : analysis.text;
      // Show at most 60 % of the answer, so the cut is visible even under a generous cap.
      const shown = Math.max(1, Math.min(cap, Math.ceil(prepared.naturalOutputTokens * 0.6)));
      return {
        contentJson: truncatedContent(
          payload.slice(0, Math.ceil(payload.length * 0.6)),
          shown,
          prepared.analysis.label,
          prepared.charsPerToken,
        ),
        stopReason: 'max_tokens',
        inputTokens,
        outputTokens: cap,
        malformed: 'maxTokens',
      };
    }
    case 'refusal': {
      const contentJson = text(REFUSAL_TEXT);
      return {
        contentJson,
        stopReason: 'refusal',
        inputTokens,
        outputTokens: tokensFor(contentJson.length, prepared.charsPerToken),
      };
    }
    case 'content_filtered':
      return {
        contentJson: text(CONTENT_FILTERED_TEXT),
        stopReason: 'content_filtered',
        inputTokens,
        outputTokens: prepared.naturalOutputTokens,
      };
    case 'guardrail_intervened':
      return {
        contentJson: text(GUARDRAIL_BLOCKED_TEXT),
        stopReason: 'guardrail_intervened',
        inputTokens,
        outputTokens: prepared.naturalOutputTokens,
      };
  }
}

/** The answer with its input split by the prompt cache (inputTokens keeps only uncached tokens). */
export function withCacheUse(answer: FinalAnswer, cache: CacheUse | undefined): FinalAnswer {
  if (!cache) return answer;
  const cached = cache.cacheReadInputTokens + cache.cacheWriteInputTokens;
  return { ...answer, inputTokens: Math.max(0, answer.inputTokens - cached), cache };
}

/**
 * The 200 response body, in the field order Bedrock uses. With prompt caching, `totalTokens`
 * counts cache reads and writes too (TokenUsage in
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html) and
 * `cacheDetails` breaks the write down by TTL.
 */
export function renderAnswerBody(answer: FinalAnswer, latencyMs: number): string {
  const cache = answer.cache;
  const read = cache?.cacheReadInputTokens ?? 0;
  const write = cache?.cacheWriteInputTokens ?? 0;
  const total = answer.inputTokens + answer.outputTokens + read + write;
  let usage = `"inputTokens":${answer.inputTokens},"outputTokens":${answer.outputTokens},"totalTokens":${total}`;
  if (cache) {
    usage += `,"cacheReadInputTokens":${read},"cacheWriteInputTokens":${write}`;
    if (write > 0) usage += `,"cacheDetails":[{"ttl":"${cache.writeTtl ?? '5m'}","inputTokens":${write}}]`;
  }
  return (
    `{"output":{"message":{"role":"assistant","content":${answer.contentJson}}},` +
    `"stopReason":"${answer.stopReason}",` +
    `"usage":{${usage}},` +
    `"metrics":{"latencyMs":${latencyMs}}}`
  );
}
