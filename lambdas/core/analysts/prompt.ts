/**
 * Builds the Converse request of one analyst for one clause. The result is a pure
 * function of its arguments (no clock, no randomness, fixed key order), because the call
 * ledger fingerprints the request: the same inputs must give a deep-equal request.
 */

import type { ConverseCommandInput, Message } from '@aws-sdk/client-bedrock-runtime';
import type { Clause } from '../model.js';
import { categoryById } from './categories.js';
import type { AnalystDefinition } from './registry.js';
import { TOOL_NAME, toolConfigFor } from './tool-schema.js';

/** What else a call needs besides the analyst and the clause. */
export interface ConverseInputOptions {
  /** The model to call: the analyst's `modelId`, or its `fallbackModelId` after throttling. */
  readonly modelId: string;
  /** Title of the contract, shown as context outside the clause. */
  readonly documentTitle?: string;
  /** Present on the repair retry after an answer failed validation. */
  readonly repair?: {
    /** The rejected answer, as text (for a tool call, its input as JSON). */
    readonly previousAnswer: string;
    /** What was wrong: an `AnswerValidationError`'s `repairHint`. */
    readonly error: string;
  };
}

/**
 * The Converse request for one analyst and one clause.
 *
 * The clause text goes between `<clause>` and `</clause>` exactly as it is, with nothing
 * added inside the tags, so that the quotes the model copies can be found in it; the
 * label, heading and title go outside the tags, so the model cannot mistake them for
 * clause text.
 *
 * @example
 * const input = buildConverseInput(analystById('liability-counsel'), clause, { modelId: PRIMARY_MODEL_ID });
 * const output = await bedrock.send(new ConverseCommand(input));
 */
export function buildConverseInput(
  analyst: AnalystDefinition,
  clause: Clause,
  options: ConverseInputOptions,
): ConverseCommandInput {
  const messages: Message[] = [
    { role: 'user', content: [{ text: clauseMessage(analyst, clause, options) }] },
  ];
  if (options.repair) {
    // Bedrock requires user and assistant turns to alternate and rejects blank text blocks.
    // The rejected answer goes back as plain text rather than as a toolUse block, which
    // would oblige the next user turn to carry a matching toolResult.
    messages.push(
      { role: 'assistant', content: [{ text: options.repair.previousAnswer.trim() || '(no answer)' }] },
      { role: 'user', content: [{ text: repairMessage(options.repair.error) }] },
    );
  }
  return {
    modelId: options.modelId,
    system: [{ text: analyst.systemPrompt }, { text: categoryList(analyst) }],
    messages,
    inferenceConfig: { maxTokens: analyst.maxTokens, temperature: analyst.temperature },
    toolConfig: toolConfigFor(analyst),
  };
}

function categoryList(analyst: AnalystDefinition): string {
  const lines = analyst.categories.map((id) => {
    const category = categoryById(id);
    return `- ${id} (${category.name}): ${category.description}`;
  });
  return `Your risk categories (use these ids as the keys of "assessments"):\n${lines.join('\n')}`;
}

function clauseMessage(analyst: AnalystDefinition, clause: Clause, options: ConverseInputOptions): string {
  const context: string[] = [];
  if (options.documentTitle) context.push(`Document: ${options.documentTitle}`);
  context.push(`Clause id: ${clause.id}`);
  if (clause.label) context.push(`Clause number: ${clause.label}`);
  if (clause.heading) context.push(`Section heading: ${clause.heading}`);
  return (
    `${context.join('\n')}\n\n` +
    `Assess the clause below for your categories (${analyst.categories.join(', ')}) and answer with the ` +
    `${TOOL_NAME} tool. Quote only text that appears between the tags.\n\n` +
    `<clause>${clause.text}</clause>`
  );
}

function repairMessage(error: string): string {
  return (
    `Your previous answer was rejected:\n${error}\n\n` +
    `Call the ${TOOL_NAME} tool again with a corrected answer for the same clause. Copy every quote ` +
    'character for character from between <clause> and </clause>, or leave that finding out.'
  );
}
