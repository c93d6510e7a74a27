/**
 * The answer format of an analyst, twice from the same data: a JSON Schema the model must
 * fill through the Converse tool `record_assessment`, and a zod schema that checks what
 * comes back (models do not always honour a tool schema). Both are built from the
 * analyst's categories and {@link ANSWER_LIMITS}, so they cannot drift apart.
 */

import type { ToolConfiguration } from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import { type CategoryId, categoryById } from './categories.js';
import type { AnalystDefinition } from './registry.js';

/** Name of the one tool an analyst answers through. */
export const TOOL_NAME = 'record_assessment';

/** Size limits of an answer, shared by the prompt, the JSON Schema and the validation. */
export const ANSWER_LIMITS = {
  maxFindings: 5,
  maxQuoteChars: 300,
  maxRationaleChars: 500,
  maxSummaryChars: 400,
} as const;

/** Risk score of a category: 0 standard, 1 minor, 2 significant, 3 severe. */
export type Score = 0 | 1 | 2 | 3;

/** Every score, lowest first. */
export const SCORES: readonly Score[] = [0, 1, 2, 3];

/** A finding as the model sends it, before its quote is located in the clause. */
export interface RawFinding {
  readonly quote: string;
  readonly rationale: string;
}

/** A category assessment as the model sends it. */
export interface RawCategoryAssessment {
  /** `null`: the clause does not address the category. */
  readonly score: Score | null;
  readonly findings: readonly RawFinding[];
}

/** The tool input of `record_assessment`, once it passed {@link answerSchema}. */
export interface RawAnswer {
  readonly assessments: Readonly<Partial<Record<CategoryId, RawCategoryAssessment>>>;
  readonly summary: string;
}

/** A JSON value, typed so that it is assignable to the SDK's document type. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema document. */
export type JsonSchema = { [key: string]: JsonValue };

const SCORE_DESCRIPTION =
  'null = the clause does not address this category; 0 = addressed, standard or benign; 1 = minor concern; ' +
  '2 = significant concern; 3 = severe, one-sided or unlimited exposure.';

const QUOTE_DESCRIPTION =
  `Verbatim excerpt copied exactly from the clause text block (between <clause-CODE> and </clause-CODE>), at most ${ANSWER_LIMITS.maxQuoteChars} ` +
  'characters; no paraphrase, no ellipsis.';

/** The categories' part of the schema, built from data so every analyst gets the same shape. */
function categoryJsonSchema(id: CategoryId): JsonSchema {
  return {
    type: 'object',
    description: categoryById(id).description,
    properties: {
      score: { type: ['integer', 'null'], minimum: 0, maximum: 3, description: SCORE_DESCRIPTION },
      findings: {
        type: 'array',
        maxItems: ANSWER_LIMITS.maxFindings,
        description: 'Evidence for the score; empty when the score is null.',
        items: {
          type: 'object',
          properties: {
            quote: {
              type: 'string',
              minLength: 1,
              maxLength: ANSWER_LIMITS.maxQuoteChars,
              description: QUOTE_DESCRIPTION,
            },
            rationale: {
              type: 'string',
              maxLength: ANSWER_LIMITS.maxRationaleChars,
              description: 'Why the quoted words carry this risk, and for which party.',
            },
          },
          required: ['quote', 'rationale'],
          additionalProperties: false,
        },
      },
    },
    required: ['score', 'findings'],
    additionalProperties: false,
  };
}

/** The JSON Schema of an analyst's `record_assessment` input: exactly its categories, all required. */
export function answerJsonSchema(analyst: Pick<AnalystDefinition, 'categories'>): JsonSchema {
  return {
    type: 'object',
    properties: {
      assessments: {
        type: 'object',
        description: 'One entry per assigned risk category, keyed by the category id.',
        properties: Object.fromEntries(analyst.categories.map((id) => [id, categoryJsonSchema(id)])),
        required: [...analyst.categories],
        additionalProperties: false,
      },
      summary: {
        type: 'string',
        maxLength: ANSWER_LIMITS.maxSummaryChars,
        description: "The clause's main risk in your categories, in plain language for a lawyer.",
      },
    },
    required: ['assessments', 'summary'],
    additionalProperties: false,
  };
}

/**
 * The Converse `toolConfig` of an analyst: the one tool, and `toolChoice` forcing the
 * model to call it, so that an answer is always structured (or visibly missing).
 */
export function toolConfigFor(analyst: Pick<AnalystDefinition, 'categories'>): ToolConfiguration {
  // Every call of an analyst sends the same tools: build them once per set of categories.
  const key = analyst.categories.join(',');
  let config = TOOL_CONFIGS.get(key);
  if (!config) {
    config = buildToolConfig(analyst);
    TOOL_CONFIGS.set(key, config);
  }
  return config;
}

const TOOL_CONFIGS = new Map<string, ToolConfiguration>();

function buildToolConfig(analyst: Pick<AnalystDefinition, 'categories'>): ToolConfiguration {
  return {
    tools: [
      {
        toolSpec: {
          name: TOOL_NAME,
          description:
            'Record your assessment of the clause: for each assigned risk category a score (null when the ' +
            'clause does not address it) with verbatim quotes from the clause as evidence, and a short summary.',
          inputSchema: { json: answerJsonSchema(analyst) },
        },
      },
    ],
    toolChoice: { tool: { name: TOOL_NAME } },
  };
}

const findingSchema = z.strictObject({
  quote: z.string().min(1).max(ANSWER_LIMITS.maxQuoteChars),
  rationale: z.string().max(ANSWER_LIMITS.maxRationaleChars),
});

const categoryAssessmentSchema = z.strictObject({
  score: z.literal(SCORES).nullable(),
  findings: z.array(findingSchema).max(ANSWER_LIMITS.maxFindings),
});

/** Built schemas by category list: a review validates thousands of answers with a handful of them. */
const answerSchemas = new Map<string, z.ZodType<RawAnswer>>();

/**
 * The zod schema matching {@link answerJsonSchema}, for validating the model's tool input.
 * Strict objects, so a missing or an extra category is an error.
 */
export function answerSchema(analyst: Pick<AnalystDefinition, 'categories'>): z.ZodType<RawAnswer> {
  const key = analyst.categories.join(',');
  let schema = answerSchemas.get(key);
  if (!schema) {
    schema = z.strictObject({
      assessments: z.strictObject(
        Object.fromEntries(analyst.categories.map((id) => [id, categoryAssessmentSchema])),
      ),
      summary: z.string().max(ANSWER_LIMITS.maxSummaryChars),
    });
    answerSchemas.set(key, schema);
  }
  return schema;
}
