/**
 * Building a Converse answer: the analyst's content blocks, token usage as Bedrock reports it,
 * truncation at `maxTokens`, and any injected malformation. The content JSON is serialised
 * once and spliced into the response body, since this runs on every call.
 */
import type { MalformedAccountingKind } from './accounting.js';
import type { ConverseRequest } from './converse-request.js';
import type { MalformedKind } from './fault-plan.js';
import { type AnalystAnswer, analyze, STAND_IN_LABEL } from './heuristic-analyst.js';
import { breakSchema, corruptQuotes, truncatedJson } from './malformed.js';
import type { Random } from './random.js';
import { toolConfigInfo } from './tool-config.js';

/** Why the model stopped. */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens';

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
}

/** The answer as it will be sent. */
export interface FinalAnswer {
  readonly contentJson: string;
  readonly stopReason: StopReason;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Set when the caller will find the answer unusable. */
  readonly malformed?: MalformedAccountingKind;
}

const tokensFor = (chars: number): number => Math.ceil(chars / 4);

function blockChars(blocks: readonly Record<string, unknown>[] | undefined): number {
  let chars = 0;
  for (const block of blocks ?? []) {
    chars += typeof block.text === 'string' ? block.text.length : JSON.stringify(block).length;
  }
  return chars;
}

function contentOf(analysis: AnalystAnswer, toolUseId: string): unknown[] {
  const content: unknown[] = [{ text: analysis.text }];
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
export function prepareAnswer(request: ConverseRequest, toolUseId: string, annotate = false): PreparedAnswer {
  let chars = 0;
  for (const message of request.messages) chars += blockChars(message.content);
  chars += blockChars(request.system);
  const tools = request.toolConfig ? toolConfigInfo(request.toolConfig) : undefined;
  chars += tools?.chars ?? 0;
  const analysis = analyze(request, { schemaOf: tools && ((name) => tools.schemas.get(name)), annotate });
  const contentJson = JSON.stringify(contentOf(analysis, toolUseId));
  return {
    analysis,
    toolUseId,
    inputTokens: tokensFor(chars),
    contentJson,
    naturalOutputTokens: tokensFor(contentJson.length),
    maxTokens: request.inferenceConfig?.maxTokens,
    canonicalToolConfig: tools?.canonical,
  };
}

/** Input plus (capped) output tokens of the well-formed answer: what capacity admission reserves. */
export function estimatedTokens(prepared: PreparedAnswer): number {
  const output =
    prepared.maxTokens === undefined
      ? prepared.naturalOutputTokens
      : Math.min(prepared.naturalOutputTokens, prepared.maxTokens);
  return prepared.inputTokens + output;
}

/** Text-only content holding a prefix of `json` that fits within `maxTokens`. */
function truncatedContent(json: string, maxTokens: number): string {
  const budget = maxTokens * 4;
  let length = Math.max(0, budget - STAND_IN_LABEL.length - 16);
  let content = JSON.stringify([{ text: `${STAND_IN_LABEL}\n${json.slice(0, length)}` }]);
  while (content.length > budget && length > 0) {
    length = Math.floor(length * 0.8);
    content = JSON.stringify([{ text: `${STAND_IN_LABEL}\n${json.slice(0, length)}` }]);
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
): FinalAnswer {
  const { analysis, toolUseId, inputTokens, maxTokens } = prepared;
  let contentJson = prepared.contentJson;
  let stopReason: StopReason = analysis.tool ? 'tool_use' : 'end_turn';
  let malformed: MalformedAccountingKind | undefined;
  if (kind === 'invalidJson') {
    const payload = analysis.tool ? analysis.tool.input : { summary: analysis.text };
    contentJson = JSON.stringify([{ text: `${STAND_IN_LABEL}\n${truncatedJson(payload)}` }]);
    stopReason = 'end_turn';
    malformed = kind;
  } else if (kind === 'schemaViolation' && analysis.tool && breakSchema(analysis.tool, random)) {
    contentJson = JSON.stringify(contentOf(analysis, toolUseId));
    malformed = kind;
  } else if (kind === 'badQuote' && analysis.tool && corruptQuotes(analysis.tool, analysis.clause)) {
    contentJson = JSON.stringify(contentOf(analysis, toolUseId));
    malformed = kind;
  }
  let outputTokens = tokensFor(contentJson.length);
  if (maxTokens !== undefined && outputTokens > maxTokens) {
    // The model ran out of room mid-answer: the tool call never completed.
    const payload = analysis.tool ? JSON.stringify(analysis.tool.input) : analysis.text;
    contentJson = truncatedContent(payload, maxTokens);
    stopReason = 'max_tokens';
    outputTokens = maxTokens;
    malformed = 'maxTokens';
  }
  return { contentJson, stopReason, inputTokens, outputTokens, malformed };
}

/** The 200 response body, in the field order Bedrock uses. */
export function renderAnswerBody(answer: FinalAnswer, latencyMs: number): string {
  const total = answer.inputTokens + answer.outputTokens;
  return (
    `{"output":{"message":{"role":"assistant","content":${answer.contentJson}}},` +
    `"stopReason":"${answer.stopReason}",` +
    `"usage":{"inputTokens":${answer.inputTokens},"outputTokens":${answer.outputTokens},"totalTokens":${total}},` +
    `"metrics":{"latencyMs":${latencyMs}}}`
  );
}
