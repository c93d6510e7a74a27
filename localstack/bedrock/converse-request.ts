/**
 * Parsing and validation of Converse request bodies, with the ValidationException messages the
 * real service uses. Hand-written rather than zod: this runs on every call of a benchmark, and
 * the messages must read like Bedrock's, not like a schema library's.
 */

/** A content block: exactly one member set (text, image, toolUse, toolResult, ...). */
export type ContentBlock = Record<string, unknown> & { text?: string };

/** One conversation turn. */
export interface Message {
  role: 'user' | 'assistant';
  content: ContentBlock[];
}

/** A tool offered to the model. */
export interface Tool {
  toolSpec?: { name: string; description?: string; inputSchema?: { json?: unknown } };
  [other: string]: unknown;
}

/** A validated Converse request body. */
export interface ConverseRequest {
  messages: Message[];
  system?: Record<string, unknown>[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: {
    tools: Tool[];
    toolChoice?: { tool?: { name: string }; any?: object; auto?: object };
  };
  /** Model-specific fields passed through to the model (e.g. Claude's `thinking`). */
  additionalModelRequestFields?: Record<string, unknown>;
}

/**
 * Whether the request forces a tool: Converse's `toolChoice` `tool` or `any`, which Bedrock hands
 * to Claude as `tool_choice` tool/any
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html).
 */
export function forcesTool(request: ConverseRequest): boolean {
  const choice = request.toolConfig?.toolChoice;
  return choice?.tool !== undefined || choice?.any !== undefined;
}

/** Either the request or the reason it is invalid. */
export type ParseResult = { ok: true; request: ConverseRequest } | { ok: false; message: string };

const MALFORMED = 'Malformed input request, please reformat your input and try again.';
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const fail = (message: string): ParseResult => ({ ok: false, message });

/** Parses and validates a raw Converse body. */
export function parseConverseRequest(body: string): ParseResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return fail(MALFORMED);
  }
  if (!isObject(parsed)) return fail(MALFORMED);
  const { messages, system, inferenceConfig, toolConfig } = parsed;
  if (messages === undefined || messages === null) {
    return fail(
      "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null",
    );
  }
  if (!Array.isArray(messages)) return fail(MALFORMED);
  if (messages.length === 0) {
    return fail(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  }
  let previousRole: unknown;
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return fail(MALFORMED);
    if (message.role !== 'user' && message.role !== 'assistant') {
      return fail(
        `1 validation error detected: Value '${String(message.role)}' at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`,
      );
    }
    if (i === 0 && message.role !== 'user') {
      return fail(
        'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
      );
    }
    if (message.role === previousRole) {
      return fail(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    }
    previousRole = message.role;
    if (!Array.isArray(message.content) || message.content.length === 0) {
      return fail(
        `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    }
    for (const block of message.content) {
      if (!isObject(block) || Object.keys(block).length === 0) return fail(MALFORMED);
      if (block.text !== undefined && typeof block.text !== 'string') return fail(MALFORMED);
    }
  }
  if (system !== undefined && (!Array.isArray(system) || !system.every(isObject))) return fail(MALFORMED);
  if (inferenceConfig !== undefined) {
    if (!isObject(inferenceConfig)) return fail(MALFORMED);
    const { maxTokens, temperature, topP } = inferenceConfig;
    if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
      return fail(
        "1 validation error detected: Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
      );
    }
    for (const [name, value] of [
      ['temperature', temperature],
      ['topP', topP],
    ] as const) {
      if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1)) {
        return fail(
          `1 validation error detected: Value at 'inferenceConfig.${name}' failed to satisfy constraint: Member must have value less than or equal to 1`,
        );
      }
    }
  }
  if (toolConfig !== undefined) {
    const message = validateToolConfig(toolConfig);
    if (message) return fail(message);
  }
  return { ok: true, request: parsed as unknown as ConverseRequest };
}

function validateToolConfig(toolConfig: unknown): string | undefined {
  if (!isObject(toolConfig) || !Array.isArray(toolConfig.tools)) return MALFORMED;
  if (toolConfig.tools.length === 0) {
    return "1 validation error detected: Value '[]' at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1";
  }
  const names: string[] = [];
  for (const tool of toolConfig.tools) {
    if (!isObject(tool)) return MALFORMED;
    if (tool.toolSpec === undefined) continue;
    const spec = tool.toolSpec;
    if (!isObject(spec) || typeof spec.name !== 'string' || !TOOL_NAME.test(spec.name)) {
      return `The value at toolConfig.tools.${names.length}.toolSpec.name is invalid. Tool names must match [a-zA-Z0-9_-]{1,64}.`;
    }
    if (!isObject(spec.inputSchema) || !isObject(spec.inputSchema.json)) {
      return `The input schema of tool ${spec.name} must be a JSON object (toolSpec.inputSchema.json).`;
    }
    names.push(spec.name);
  }
  const choice = toolConfig.toolChoice;
  if (choice !== undefined) {
    if (!isObject(choice)) return MALFORMED;
    if (choice.tool !== undefined) {
      const name = isObject(choice.tool) ? choice.tool.name : undefined;
      if (typeof name !== 'string' || !names.includes(name)) {
        return `The tool ${String(name)} specified in toolChoice is not defined in toolConfig.tools. Add the tool to toolConfig.tools and try again.`;
      }
    }
  }
  return undefined;
}
