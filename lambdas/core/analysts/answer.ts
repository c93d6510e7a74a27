/**
 * Turns a Converse response into a checked analyst answer. Anything that cannot be
 * trusted is an {@link AnswerValidationError} (the failure taxonomy's "validation" class,
 * which gets one repair retry): no tool call, a tool input that breaks the schema, a
 * contradiction, a score without evidence, or a quote that is not in the clause. Every
 * non-null score of an accepted answer rests on at least one quote found in the clause. A quote that cannot be found is a
 * validation failure, never a finding: the report only shows text the contract contains.
 */

import type { ContentBlock, ConverseCommandOutput } from '@aws-sdk/client-bedrock-runtime';
import type { z } from 'zod';
import type { Clause } from '../clause.js';
import type { CategoryId } from './categories.js';
import { AnswerValidationError, excerpt } from './errors.js';
import { locateQuote } from './locate-quote.js';
import { type PositionAnswer, parsePositions } from './position-answer.js';
import type { AnalystDefinition } from './registry.js';
import { answerSchema, type Score, TOOL_NAME } from './tool-schema.js';

export { locateQuote } from './locate-quote.js';

/** One piece of evidence, located in the document. */
export interface Finding {
  /** The quoted text exactly as the document has it (`text.slice(start, end)`). */
  readonly quote: string;
  /** Start offset (inclusive) into the job's normalised text: `clause.start` + the offset inside the clause. */
  readonly start: number;
  /** End offset (exclusive) into the job's normalised text. */
  readonly end: number;
  readonly rationale: string;
}

/** An analyst's verdict on one category of one clause. */
export interface CategoryAssessment {
  /** `null`: the clause does not address the category. */
  readonly score: Score | null;
  readonly findings: readonly Finding[];
}

/** A validated answer of one analyst for one clause. */
export interface AnalystAnswer {
  readonly analystId: string;
  readonly clauseId: string;
  /** Exactly the analyst's categories (a subset of the twelve), in the analyst's order. */
  readonly assessments: Readonly<Partial<Record<CategoryId, CategoryAssessment>>>;
  readonly summary: string;
  /**
   * With a playbook: the positions the clause addresses, in playbook order, with their rungs,
   * located quotes and checked redlines. Positions not addressed are left out.
   */
  readonly positions?: readonly PositionAnswer[];
}

const NOT_ADDRESSED = { score: null, findings: [] } as const;

/**
 * Extracts, validates and locates an analyst's answer for a clause.
 *
 * @throws AnswerValidationError listing every issue found, so that the repair retry can
 * fix them all at once.
 */
export function parseAnswer(
  analyst: AnalystDefinition,
  clause: Clause,
  output: ConverseCommandOutput,
): AnalystAnswer {
  const fail = (issues: readonly string[], cause?: unknown): never => {
    throw new AnswerValidationError(
      analyst.id,
      clause.id,
      issues,
      cause === undefined ? undefined : { cause },
    );
  };

  const content = output.output?.message?.content ?? [];
  const toolUse = content.find((block) => block.toolUse?.name === TOOL_NAME)?.toolUse;
  if (!toolUse) return fail([noToolCallIssue(output.stopReason, content)]);

  const rawInput = toolUse.input;
  let input: unknown = rawInput;
  // Some models pass the arguments through as a JSON string rather than an object.
  if (typeof rawInput === 'string') {
    try {
      input = JSON.parse(rawInput);
    } catch (e) {
      return fail([`(root): the ${TOOL_NAME} input is not valid JSON: ${excerpt(rawInput)}`], e);
    }
  }

  const parsed = answerSchema(analyst).safeParse(input);
  if (!parsed.success) return fail(parsed.error.issues.map(describeZodIssue));

  const issues: string[] = [];
  const assessments: Partial<Record<CategoryId, CategoryAssessment>> = {};
  for (const id of analyst.categories) {
    // A category left out is one the clause does not address (the compact answer).
    const raw = parsed.data.assessments[id] ?? NOT_ADDRESSED;
    if (raw.score === null && raw.findings.length > 0) {
      issues.push(
        `assessments.${id}: findings given with score null (not addressed); give a score or no findings`,
      );
    }
    const findings: Finding[] = [];
    raw.findings.forEach((finding, i) => {
      const span = locateQuote(clause.text, finding.quote);
      if (!span) {
        issues.push(
          `assessments.${id}.findings.${i}.quote: not found verbatim in the clause: "${excerpt(finding.quote)}"`,
        );
        return;
      }
      findings.push({
        quote: clause.text.slice(span.start, span.end),
        start: clause.start + span.start,
        end: clause.start + span.end,
        rationale: finding.rationale,
      });
    });
    // The evidence rule: a score stands only on words the clause contains. Quotes that were not
    // found are listed above already; a score given with no finding at all is listed here.
    if (raw.score !== null && raw.findings.length === 0) {
      issues.push(
        `assessments.${id}: score ${raw.score} given without a finding; support it with at least one quote ` +
          'copied from the clause, or give score null if the clause does not address the category',
      );
    }
    assessments[id] = { score: raw.score, findings };
  }
  const positions =
    analyst.playbook && parsed.data.positions
      ? parsePositions(analyst.playbook, clause, parsed.data.positions, issues)
      : undefined;
  if (issues.length > 0) return fail(issues);

  return {
    analystId: analyst.id,
    clauseId: clause.id,
    assessments,
    summary: parsed.data.summary ?? '',
    ...(positions ? { positions } : {}),
  };
}

function noToolCallIssue(stopReason: string | undefined, content: readonly ContentBlock[]): string {
  const reason = stopReason ?? 'unknown';
  if (stopReason === 'max_tokens') {
    return `no tool call: the answer was cut off at the token limit (stopReason ${reason})`;
  }
  const text = content
    .map((block) => block.text ?? '')
    .join(' ')
    .trim();
  if (text)
    return `no tool call: the model answered with text instead (stopReason ${reason}): "${excerpt(text)}"`;
  return `no tool call: the response has no ${TOOL_NAME} call (stopReason ${reason})`;
}

function describeZodIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.') || '(root)';
  return `${path}: ${issue.message}`;
}
