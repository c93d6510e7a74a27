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
import type { Clause } from '../model.js';
import type { CategoryId } from './categories.js';
import { AnswerValidationError, excerpt } from './errors.js';
import type { AnalystDefinition } from './registry.js';
import { answerSchema, type Score, TOOL_NAME } from './tool-schema.js';

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
}

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
    const raw = parsed.data.assessments[id];
    if (!raw) continue; // unreachable: the strict schema requires every category
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
  if (issues.length > 0) return fail(issues);

  return { analystId: analyst.id, clauseId: clause.id, assessments, summary: parsed.data.summary };
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

/** A span inside the clause text, clause-local offsets. */
interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Where `quote` occurs in `text`: exactly if possible, otherwise ignoring differences in
 * whitespace only (models re-flow the irregular spacing of PDF-extracted text), mapped
 * back to offsets in the original text. Whitespace around the quote is not part of the
 * span, and a blank quote is never found. The first occurrence wins.
 */
export function locateQuote(text: string, quote: string): Span | undefined {
  const trimmed = quote.trim();
  if (trimmed.length === 0) return undefined;
  const exact = text.indexOf(trimmed);
  if (exact >= 0) return { start: exact, end: exact + trimmed.length };

  const needle = collapseWhitespace(trimmed).collapsed;
  const haystack = collapseWhitespace(text);
  const at = haystack.collapsed.indexOf(needle);
  if (at < 0) return undefined;
  // The needle starts and ends on non-space characters, each of which maps to exactly
  // one character of the original text.
  return { start: haystack.origin[at], end: haystack.origin[at + needle.length - 1] + 1 };
}

/** `text` with every run of whitespace turned into one space, and the original offset of each character. */
function collapseWhitespace(text: string): { collapsed: string; origin: number[] } {
  let collapsed = '';
  const origin: number[] = [];
  let inSpace = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (/\s/.test(ch)) {
      if (inSpace) continue;
      inSpace = true;
      collapsed += ' ';
    } else {
      inSpace = false;
      collapsed += ch;
    }
    origin.push(i);
  }
  return { collapsed, origin };
}
