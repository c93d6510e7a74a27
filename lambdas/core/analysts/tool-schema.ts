/**
 * The answer format of an analyst, twice from the same data: a JSON Schema the model must
 * fill through the Converse tool `record_assessment`, and a zod schema that checks what
 * comes back (models do not always honour a tool schema). Both are built from the
 * analyst's categories and {@link ANSWER_LIMITS}, so they cannot drift apart.
 */

import type { ToolConfiguration } from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import { type CategoryId, categoryById } from './categories.js';
import {
  type AnalystPlaybook,
  type PanelAnalyst,
  type PositionBrief,
  type RungValue,
  rungValues,
  targetValues,
} from './positions.js';

/** Name of the one tool an analyst answers through. */
export const TOOL_NAME = 'record_assessment';

/** Size limits of an answer, shared by the prompt, the JSON Schema and the validation. */
export const ANSWER_LIMITS = {
  maxFindings: 5,
  maxQuoteChars: 300,
  maxRationaleChars: 300,
  maxSummaryChars: 240,
  /** Quotes a position's rung rests on. */
  maxPositionQuotes: 3,
  /** Edits of one proposed redline. */
  maxRedlineEdits: 8,
  /** Characters one edit may insert: a rung's language is at most 6,000. */
  maxInsertChars: 6000,
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

/** One edit of a redline as the model sends it: offsets into the clause text, and the text they cover. */
export interface RawEdit {
  readonly start: number;
  readonly end: number;
  readonly deleted: string;
  readonly insert: string;
}

/** A position's answer as the model sends it, before its quotes and edits are checked. */
export interface RawPositionAnswer {
  readonly rung: RungValue;
  readonly quotes: readonly string[];
  readonly reason: string;
  /** Present in the schema of positions with a measure only. */
  readonly measured?: number | null;
  readonly redline: { readonly target: RungValue; readonly edits: readonly RawEdit[] } | null;
}

/**
 * The tool input of `record_assessment`, once it passed {@link answerSchema}. A category the
 * clause does not address may be left out of `assessments` (it reads as score null), and the
 * summary with it when none is addressed: most calls find nothing, and every output token is
 * paid for, so "nothing here" is `{"assessments":{}}`.
 */
export interface RawAnswer {
  readonly assessments: Readonly<Partial<Record<CategoryId, RawCategoryAssessment>>>;
  readonly summary?: string;
  /** With a playbook: one answer per position of the analyst's categories, by topic. */
  readonly positions?: Readonly<Record<string, RawPositionAnswer>>;
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

/** One position's part of the schema: its own rungs, a measure only where it has one. */
function positionJsonSchema(p: PositionBrief): JsonSchema {
  const rungs: JsonValue[] = rungValues(p);
  const targets: JsonValue[] = targetValues(p);
  return {
    type: 'object',
    description: p.question,
    properties: {
      rung: { type: 'string', enum: rungs, description: 'The best rung the clause meets, or not-addressed.' },
      quotes: {
        type: 'array',
        maxItems: ANSWER_LIMITS.maxPositionQuotes,
        description: 'Verbatim passages the rung rests on; empty when not addressed.',
        items: {
          type: 'string',
          minLength: 1,
          maxLength: ANSWER_LIMITS.maxQuoteChars,
          description: QUOTE_DESCRIPTION,
        },
      },
      reason: {
        type: 'string',
        maxLength: ANSWER_LIMITS.maxRationaleChars,
        description: 'Why the clause reaches this rung.',
      },
      ...(p.measure
        ? {
            measured: {
              type: ['number', 'null'],
              minimum: 0,
              description: `The clause's ${p.measure.quantity}, in ${p.measure.unit}; null when it states none.`,
            },
          }
        : {}),
      redline: {
        type: ['object', 'null'],
        description: 'Below the standard: the smallest edit of the clause text that reaches the target rung.',
        properties: {
          target: { type: 'string', enum: targets },
          edits: {
            type: 'array',
            minItems: 1,
            maxItems: ANSWER_LIMITS.maxRedlineEdits,
            items: {
              type: 'object',
              properties: {
                start: {
                  type: 'integer',
                  minimum: 0,
                  description: 'Offset in the clause text where the edit starts.',
                },
                end: {
                  type: 'integer',
                  minimum: 0,
                  description: 'Offset where it ends (exclusive); equal to start for an insertion.',
                },
                deleted: {
                  type: 'string',
                  description: 'Exactly the clause text from start to end ("" for an insertion).',
                },
                insert: {
                  type: 'string',
                  maxLength: ANSWER_LIMITS.maxInsertChars,
                  description: 'The text that replaces it.',
                },
              },
              required: ['start', 'end', 'deleted', 'insert'],
              additionalProperties: false,
            },
          },
        },
        required: ['target', 'edits'],
        additionalProperties: false,
      },
    },
    required: ['rung', 'quotes', 'reason', ...(p.measure ? ['measured'] : []), 'redline'],
    additionalProperties: false,
  };
}

/** The positions' part of the schema: one required entry per topic. */
function positionsJsonSchema(playbook: AnalystPlaybook): JsonSchema {
  return {
    type: 'object',
    description: 'One entry per playbook position, keyed by its topic.',
    properties: Object.fromEntries(playbook.positions.map((p) => [p.topic, positionJsonSchema(p)])),
    required: playbook.positions.map((p) => p.topic),
    additionalProperties: false,
  };
}

/**
 * The JSON Schema of an analyst's `record_assessment` input: exactly its categories, all
 * required, and with a playbook its positions.
 */
export function answerJsonSchema(analyst: Pick<PanelAnalyst, 'categories' | 'playbook'>): JsonSchema {
  return {
    type: 'object',
    properties: {
      assessments: {
        type: 'object',
        description:
          'Only the assigned risk categories the clause addresses, keyed by the category id; leave out a ' +
          'category it does not address, and give {} when it addresses none.',
        properties: Object.fromEntries(analyst.categories.map((id) => [id, categoryJsonSchema(id)])),
        additionalProperties: false,
      },
      summary: {
        type: 'string',
        maxLength: ANSWER_LIMITS.maxSummaryChars,
        description:
          "The clause's main risk in your categories, in plain language for a lawyer; left out when " +
          'assessments is empty.',
      },
      ...(analyst.playbook ? { positions: positionsJsonSchema(analyst.playbook) } : {}),
    },
    required: ['assessments', ...(analyst.playbook ? ['positions'] : [])],
    additionalProperties: false,
  };
}

/**
 * The Converse `toolConfig` of an analyst: the one tool, and `toolChoice` forcing the
 * model to call it, so that an answer is always structured (or visibly missing).
 */
export function toolConfigFor(analyst: Pick<PanelAnalyst, 'categories' | 'playbook'>): ToolConfiguration {
  // Every call of an analyst sends the same tools: build them once per set of categories, or
  // once per analyst's playbook positions.
  if (analyst.playbook) {
    let config = PLAYBOOK_TOOL_CONFIGS.get(analyst.playbook);
    if (!config) {
      config = buildToolConfig(analyst);
      PLAYBOOK_TOOL_CONFIGS.set(analyst.playbook, config);
    }
    return config;
  }
  const key = analyst.categories.join(',');
  let config = TOOL_CONFIGS.get(key);
  if (!config) {
    config = buildToolConfig(analyst);
    TOOL_CONFIGS.set(key, config);
  }
  return config;
}

const TOOL_CONFIGS = new Map<string, ToolConfiguration>();
const PLAYBOOK_TOOL_CONFIGS = new WeakMap<AnalystPlaybook, ToolConfiguration>();

function buildToolConfig(analyst: Pick<PanelAnalyst, 'categories' | 'playbook'>): ToolConfiguration {
  return {
    tools: [
      {
        toolSpec: {
          name: TOOL_NAME,
          description:
            'Record your assessment of the clause: for each assigned risk category the clause addresses a ' +
            'score with verbatim quotes from the clause as evidence, and a short summary (nothing for a ' +
            'clause that addresses none)' +
            (analyst.playbook
              ? '; and for each playbook position the rung the clause reaches, with quotes and, below the standard, a redline.'
              : '.'),
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

const editSchema = z.strictObject({
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  deleted: z.string(),
  insert: z.string().max(ANSWER_LIMITS.maxInsertChars),
});

function positionSchema(p: PositionBrief) {
  const rungs = rungValues(p) as [RungValue, ...RungValue[]];
  const targets = targetValues(p) as [RungValue, ...RungValue[]];
  return z.strictObject({
    rung: z.enum(rungs),
    quotes: z.array(z.string().min(1).max(ANSWER_LIMITS.maxQuoteChars)).max(ANSWER_LIMITS.maxPositionQuotes),
    reason: z.string().max(ANSWER_LIMITS.maxRationaleChars),
    ...(p.measure ? { measured: z.number().min(0).nullable() } : {}),
    redline: z
      .strictObject({
        target: z.enum(targets),
        edits: z.array(editSchema).min(1).max(ANSWER_LIMITS.maxRedlineEdits),
      })
      .nullable(),
  });
}

/** Built schemas by category list: a review validates thousands of answers with a handful of them. */
const answerSchemas = new Map<string, z.ZodType<RawAnswer>>();
const playbookAnswerSchemas = new WeakMap<AnalystPlaybook, z.ZodType<RawAnswer>>();

/**
 * The zod schema matching {@link answerJsonSchema}, for validating the model's tool input.
 * Strict objects, so a category (or position) the analyst was not given is an error; a category
 * left out is one the clause does not address.
 */
export function answerSchema(analyst: Pick<PanelAnalyst, 'categories' | 'playbook'>): z.ZodType<RawAnswer> {
  const { playbook } = analyst;
  let schema = playbook
    ? playbookAnswerSchemas.get(playbook)
    : answerSchemas.get(analyst.categories.join(','));
  if (!schema) {
    schema = z.strictObject({
      assessments: z.strictObject(
        Object.fromEntries(analyst.categories.map((id) => [id, categoryAssessmentSchema.optional()])),
      ),
      summary: z.string().max(ANSWER_LIMITS.maxSummaryChars).optional(),
      ...(playbook
        ? {
            positions: z.strictObject(
              Object.fromEntries(playbook.positions.map((p) => [p.topic, positionSchema(p)])),
            ),
          }
        : {}),
    }) as z.ZodType<RawAnswer>;
    if (playbook) playbookAnswerSchemas.set(playbook, schema);
    else answerSchemas.set(analyst.categories.join(','), schema);
  }
  return schema;
}
