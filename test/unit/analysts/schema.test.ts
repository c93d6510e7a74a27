import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ANALYSTS,
  ANSWER_LIMITS,
  analystById,
  answerJsonSchema,
  answerSchema,
  categoryById,
  type JsonSchema,
  type JsonValue,
  TOOL_NAME,
  toolConfigFor,
} from '../../../lambdas/core/analysts/index.js';

/** Keywords the schema may use: a small, widely supported subset of JSON Schema. */
const KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'maxItems',
]);
const TYPES = new Set(['object', 'array', 'string', 'integer', 'null']);

/** The properties an answer may leave out: every category, and the summary. */
const MAY_BE_LEFT_OUT = (path: string, key: string) =>
  path === '#/assessments' || (path === '#' && key === 'summary');

/** Checks that a node is a well-formed schema in that subset; returns the problems found. */
function schemaProblems(node: JsonValue, path = '#'): string[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return [`${path}: not an object`];
  const problems: string[] = [];
  for (const key of Object.keys(node))
    if (!KEYWORDS.has(key)) problems.push(`${path}: unknown keyword ${key}`);
  const types = Array.isArray(node.type) ? node.type : [node.type];
  for (const t of types)
    if (typeof t !== 'string' || !TYPES.has(t)) problems.push(`${path}: bad type ${String(t)}`);
  if (types.includes('object')) {
    const props = node.properties;
    if (typeof props !== 'object' || props === null || Array.isArray(props)) {
      problems.push(`${path}: object without properties`);
    } else {
      // Every object is closed and requires every property, except the two an answer that finds
      // nothing leaves out (the categories not addressed, and the summary beside them): the model
      // may skip only those, and never invent.
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties is not false`);
      const mandatory = Object.keys(props).filter((key) => !MAY_BE_LEFT_OUT(path, key));
      if (JSON.stringify(node.required ?? []) !== JSON.stringify(mandatory)) {
        problems.push(`${path}: required does not list every property that must be given`);
      }
      for (const [key, child] of Object.entries(props))
        problems.push(...schemaProblems(child, `${path}/${key}`));
    }
  }
  if (types.includes('array')) problems.push(...schemaProblems(node.items ?? null, `${path}/items`));
  return problems;
}

const analyst = analystById('risk-transfer'); // warranty-insurance + liability

/** A valid answer for `risk-transfer`, quoting the insurance clause of the Anixa collaboration agreement (CUAD). */
function validAnswer() {
  return {
    assessments: {
      'warranty-insurance': {
        score: 1,
        findings: [
          {
            quote: 'at levels consistent with industry standards',
            rationale:
              'Insurance is mutual but has no minimum coverage amount, so it may not back the indemnities.',
          },
        ],
      },
      liability: { score: null, findings: [] },
    },
    summary: 'A mutual insurance obligation without stated limits; no liability allocation in this clause.',
  };
}

type Mutation = (a: ReturnType<typeof validAnswer>) => unknown;

const INVALID: [string, Mutation][] = [
  ['score 4', (a) => ({ ...a, assessments: { ...a.assessments, liability: { score: 4, findings: [] } } })],
  [
    'score 1.5',
    (a) => ({ ...a, assessments: { ...a.assessments, liability: { score: 1.5, findings: [] } } }),
  ],
  ['score -1', (a) => ({ ...a, assessments: { ...a.assessments, liability: { score: -1, findings: [] } } })],
  [
    'score as a string',
    (a) => ({ ...a, assessments: { ...a.assessments, liability: { score: '2', findings: [] } } }),
  ],
  ['a missing assessments object', (a) => ({ summary: a.summary })],
  [
    'an extra category',
    (a) => ({ ...a, assessments: { ...a.assessments, competition: { score: 0, findings: [] } } }),
  ],
  ['an extra top-level property', (a) => ({ ...a, confidence: 0.9 })],
  ['a category given as null', (a) => ({ ...a, assessments: { ...a.assessments, liability: null } })],
  [
    'an extra property in a finding',
    (a) => ({
      ...a,
      assessments: {
        ...a.assessments,
        liability: { score: 2, findings: [{ quote: 'x', rationale: 'y', page: 3 }] },
      },
    }),
  ],
  ['a missing findings array', (a) => ({ ...a, assessments: { ...a.assessments, liability: { score: 0 } } })],
  [
    'an empty quote',
    (a) => ({
      ...a,
      assessments: { ...a.assessments, liability: { score: 2, findings: [{ quote: '', rationale: 'y' }] } },
    }),
  ],
  [
    'a quote over 300 characters',
    (a) => ({
      ...a,
      assessments: {
        ...a.assessments,
        liability: {
          score: 2,
          findings: [{ quote: 'q'.repeat(ANSWER_LIMITS.maxQuoteChars + 1), rationale: 'y' }],
        },
      },
    }),
  ],
  [
    'a rationale over 500 characters',
    (a) => ({
      ...a,
      assessments: {
        ...a.assessments,
        liability: {
          score: 2,
          findings: [{ quote: 'q', rationale: 'r'.repeat(ANSWER_LIMITS.maxRationaleChars + 1) }],
        },
      },
    }),
  ],
  [
    'six findings',
    (a) => ({
      ...a,
      assessments: {
        ...a.assessments,
        liability: { score: 2, findings: Array.from({ length: 6 }, () => ({ quote: 'q', rationale: 'r' })) },
      },
    }),
  ],
  ['a summary over its limit', (a) => ({ ...a, summary: 's'.repeat(ANSWER_LIMITS.maxSummaryChars + 1) })],
  ['an array', () => []],
];

describe('tool schema', () => {
  it('configures one record_assessment tool and forces the model to call it', () => {
    for (const a of ANALYSTS) {
      const config = toolConfigFor(a);
      expect(config.tools).toHaveLength(1);
      const spec = config.tools?.[0]?.toolSpec;
      expect(spec?.name).toBe(TOOL_NAME);
      expect(spec?.description?.length).toBeGreaterThan(20);
      expect(spec?.inputSchema?.json).toEqual(answerJsonSchema(a));
      expect(config.toolChoice).toEqual({ tool: { name: TOOL_NAME } });
    }
  });

  it('is a well-formed, closed JSON Schema of plain JSON', () => {
    for (const a of ANALYSTS) {
      const schema = answerJsonSchema(a);
      expect(schemaProblems(schema)).toEqual([]);
      expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    }
  });

  it("has exactly the analyst's categories as properties, each described by its category", () => {
    for (const a of ANALYSTS) {
      const assessments = (answerJsonSchema(a).properties as JsonSchema).assessments as JsonSchema;
      const props = assessments.properties as JsonSchema;
      expect(Object.keys(props)).toEqual([...a.categories]);
      expect(assessments.required).toBeUndefined();
      for (const id of a.categories) {
        const category = props[id] as JsonSchema;
        expect(category.description).toBe(categoryById(id).description);
        const score = (category.properties as JsonSchema).score as JsonSchema;
        expect(score).toMatchObject({ type: ['integer', 'null'], minimum: 0, maximum: 3 });
        const findings = (category.properties as JsonSchema).findings as JsonSchema;
        expect(findings.maxItems).toBe(5);
        const quote = ((findings.items as JsonSchema).properties as JsonSchema).quote;
        expect(quote).toMatchObject({ type: 'string', minLength: 1, maxLength: 300 });
      }
    }
  });

  it('accepts a valid answer in both the JSON Schema and the zod schema', () => {
    const fromJson = z.fromJSONSchema(answerJsonSchema(analyst));
    expect(fromJson.safeParse(validAnswer()).success).toBe(true);
    expect(answerSchema(analyst).safeParse(validAnswer()).success).toBe(true);
    const allNull = {
      ...validAnswer(),
      assessments: {
        'warranty-insurance': { score: null, findings: [] },
        liability: { score: null, findings: [] },
      },
    };
    expect(fromJson.safeParse(allNull).success).toBe(true);
    expect(answerSchema(analyst).safeParse(allNull).success).toBe(true);
  });

  it('accepts the compact answer of a clause that addresses nothing, and a category left out', () => {
    const fromJson = z.fromJSONSchema(answerJsonSchema(analyst));
    const nothing = { assessments: {} };
    expect(fromJson.safeParse(nothing).success).toBe(true);
    expect(answerSchema(analyst).safeParse(nothing).success).toBe(true);
    const one = { assessments: { liability: validAnswer().assessments.liability }, summary: 's' };
    expect(fromJson.safeParse(one).success).toBe(true);
    expect(answerSchema(analyst).safeParse(one).success).toBe(true);
  });

  it.each(INVALID)('rejects %s in both the JSON Schema and the zod schema', (_, mutate) => {
    const bad = mutate(validAnswer());
    expect(z.fromJSONSchema(answerJsonSchema(analyst)).safeParse(bad).success).toBe(false);
    expect(answerSchema(analyst).safeParse(bad).success).toBe(false);
  });

  it('reports zod issues with a path a repair prompt can name', () => {
    const bad = INVALID[0]?.[1](validAnswer());
    const result = answerSchema(analyst).safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['assessments.liability.score']);
  });

  it('is built from data: same analyst, same schema; other categories, other schema', () => {
    expect(answerJsonSchema(analyst)).toEqual(answerJsonSchema(analystById('risk-transfer')));
    expect(answerJsonSchema(analyst)).not.toEqual(answerJsonSchema(analystById('liability-counsel')));
    expect(answerJsonSchema({ categories: ['liability'] })).toEqual(
      answerJsonSchema(analystById('liability-counsel')),
    );
  });
});
