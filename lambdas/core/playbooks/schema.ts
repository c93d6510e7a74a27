/**
 * The playbook format: a team's own positions on the topics a contract allocates, keyed to the
 * twelve risk categories, as one YAML or JSON file. Each position asks a yes/no question,
 * states the standard position with model language, up to three ordered fallbacks with
 * acceptable language, what is not acceptable, and who must approve a fallback or an exception
 * (a Cognito group). A position may carry a number a clause is compared with (`measure` and a
 * `threshold` per rung). Required clauses are topics that must appear somewhere in the
 * contract, with language to insert and where it would go.
 *
 * The schema is zod; `playbookJsonSchema()` writes it out for editors (docs/playbook.schema.json).
 * Fields are only ever added with defaults, never renamed: stored versions must keep parsing.
 */
import { z } from 'zod';
import { CATEGORIES, type CategoryId } from '../analysts/categories.js';
import { PARTIES, type Party } from '../records/job-terms.js';

export { PARTIES, type Party };

/** How much a position matters, as LegalOn-style alerts rank it. */
export const IMPORTANCES = ['high', 'medium', 'low'] as const;
export type Importance = (typeof IMPORTANCES)[number];

/** Units a position's number is in, with the largest value each takes. */
export const UNIT_MAXIMA = {
  days: 3650,
  'business-days': 2600,
  months: 1200,
  years: 100,
  percent: 100,
  /** A multiple of the fees (the quantity says which: paid in the last 12 months, total…). */
  'multiple-of-fees': 100,
  /** An amount of money in `currency`. */
  money: 1e12,
} as const satisfies Record<string, number>;
export type Unit = keyof typeof UNIT_MAXIMA;
const UNITS = Object.keys(UNIT_MAXIMA) as [Unit, ...Unit[]];

/**
 * Which way a clause's number must go to reach a rung: `at-least` the threshold (more is better
 * for us: a higher liability cap, a longer warranty) or `at-most` it (less is better: a shorter
 * non-renewal notice, a lower price increase).
 */
export const DIRECTIONS = ['at-least', 'at-most'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Most positions in one playbook (LegalOn's limit of alerts per playbook). */
export const MAX_POSITIONS = 250;
/** Most fallbacks of one position, in order of preference. */
export const MAX_FALLBACKS = 3;
/** Most required clauses in one playbook. */
export const MAX_REQUIRED_CLAUSES = 100;

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const id = (what: string) =>
  z
    .string()
    .max(64)
    .regex(ID, `${what} must be lower-case words joined by hyphens (e.g. limitation-of-liability)`);

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

const question = text(500).refine((s) => s.endsWith('?'), {
  message: 'must be a yes/no question ending with "?"',
});

const CATEGORY_IDS = CATEGORIES.map((c) => c.id) as [CategoryId, ...CategoryId[]];
const category = z.enum(CATEGORY_IDS, {
  error: (issue) =>
    `unknown risk category ${JSON.stringify(issue.input)}; one of: ${CATEGORY_IDS.join(', ')}`,
});

/**
 * A Cognito user pool group: 1–128 letters, marks, symbols, digits or punctuation
 * (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_CreateGroup.html).
 */
const group = z
  .string()
  .max(128)
  .regex(/^[\p{L}\p{M}\p{S}\p{N}\p{P}]+$/u, 'must be a Cognito group name (no spaces)')
  .describe('A Cognito user pool group whose members must approve.');

const threshold = z
  .number({ error: (issue) => `must be a number; got ${JSON.stringify(issue.input)}` })
  .min(0, 'must not be negative')
  .describe("The number a clause is compared with, in the position's measure.");

const measure = z
  .strictObject({
    quantity: text(200).describe('What is measured: "non-renewal notice period", "aggregate liability cap".'),
    unit: z.enum(UNITS),
    direction: z.enum(DIRECTIONS),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
      .optional()
      .describe("The currency of a 'money' measure."),
  })
  .describe("The number a clause's rung is decided by; each rung's threshold is in this unit.");

const rung = {
  position: text(2000).describe('What the team accepts at this rung, in plain words.'),
  language: text(6000).describe('Model language a clause at this rung may use.'),
  threshold: threshold.optional(),
};

const standard = z.strictObject(rung).describe('The standard position: what the team asks for first.');

const fallback = z
  .strictObject({
    ...rung,
    approver: group.optional(),
  })
  .describe('An acceptable fallback, less favourable than the rung before it.');

const contractTypes = z.array(id('a contract type')).min(1).max(50);

const general = z
  .boolean()
  .describe(
    'True when this applies to any commercial contract, whatever its type: a contract of a type the playbook does not list is reviewed against these only.',
  );

const position = z.strictObject({
  topic: id('a topic'),
  category,
  question,
  importance: z.enum(IMPORTANCES),
  contractTypes: contractTypes
    .optional()
    .describe("The contract types this position applies to (some of the playbook's); absent: all of them."),
  general: general.optional(),
  measure: measure.optional(),
  standard,
  fallbacks: z
    .array(fallback)
    .max(MAX_FALLBACKS, `at most ${MAX_FALLBACKS} fallbacks, in order of preference`)
    .default([]),
  notAcceptable: z.array(text(1000)).max(20).default([]).describe('What is not acceptable at any rung.'),
  exceptionApprover: group
    .optional()
    .describe('The group that may accept a clause below every fallback (an exception).'),
  guidance: text(4000).optional().describe('Notes for the reviewer.'),
});

const requiredClause = z.strictObject({
  topic: id('a topic'),
  category,
  question,
  importance: z.enum(IMPORTANCES),
  contractTypes: contractTypes.optional(),
  general: general.optional(),
  language: text(6000).describe('Model language to insert when the contract has no such clause.'),
  placement: z
    .strictObject({
      after: category
        .optional()
        .describe('Insert after the last clause of this category; absent: at the end of the terms.'),
      note: text(500).describe('Where the clause would go, in words.'),
    })
    .describe('Where the inserted clause would go.'),
  approver: group.optional().describe('The group that may accept the contract without this clause.'),
  guidance: text(4000).optional(),
});

const shape = z.strictObject({
  /** Lets a JSON file name its schema for editors; not part of the playbook's content. */
  $schema: z.string().optional(),
  name: id('a playbook name'),
  title: text(200),
  description: text(4000).optional(),
  party: z.enum(PARTIES).describe('Which side of the contract the team is on.'),
  contractTypes: contractTypes.describe('The contract types the playbook applies to.'),
  positions: z.array(position).min(1).max(MAX_POSITIONS),
  requiredClauses: z.array(requiredClause).max(MAX_REQUIRED_CLAUSES).default([]),
});

type Shape = z.output<typeof shape>;
type Issue = { path: (string | number)[]; message: string };

/** A rung's threshold is in range for the unit and no better for us than the rung before it. */
function thresholdIssues(p: Shape['positions'][number], at: (string | number)[]): Issue[] {
  const issues: Issue[] = [];
  const rungs = [
    { path: [...at, 'standard', 'threshold'], value: p.standard.threshold },
    ...p.fallbacks.map((f, i) => ({ path: [...at, 'fallbacks', i, 'threshold'], value: f.threshold })),
  ];
  const m = p.measure;
  if (!m) {
    for (const r of rungs.filter((r) => r.value !== undefined))
      issues.push({
        path: r.path,
        message: 'a threshold needs a measure on its position (unit and direction)',
      });
    return issues;
  }
  if ((m.unit === 'money') !== (m.currency !== undefined))
    issues.push({
      path: [...at, 'measure', 'currency'],
      message:
        m.unit === 'money' ? "a 'money' measure needs a currency" : "only a 'money' measure has a currency",
    });
  if (p.standard.threshold === undefined)
    issues.push({
      path: [...at, 'standard', 'threshold'],
      message: 'a position with a measure needs a standard threshold',
    });
  let before: { value: number; what: string } | undefined;
  for (const [i, r] of rungs.entries()) {
    if (r.value === undefined) continue;
    const max = UNIT_MAXIMA[m.unit];
    if (r.value > max)
      issues.push({ path: r.path, message: `must be at most ${max} ${m.unit}; got ${r.value}` });
    const worse =
      m.direction === 'at-least'
        ? r.value <= (before?.value ?? r.value)
        : r.value >= (before?.value ?? r.value);
    if (before && before.value >= 0 && r.value >= 0 && !worse)
      issues.push({
        path: r.path,
        message: `fallbacks go from most to least favourable: ${r.value} is better than ${before.what}'s ${before.value} for a measure '${m.direction}'`,
      });
    before = { value: r.value, what: i === 0 ? 'the standard' : `fallback ${i}` };
  }
  return issues;
}

/** Contract types a position or required clause names must be the playbook's own; a general one names none. */
function contractTypeIssues(
  types: readonly string[] | undefined,
  known: Set<string>,
  at: (string | number)[],
  general?: boolean,
): Issue[] {
  if (general && types !== undefined)
    return [
      {
        path: [...at, 'general'],
        message: 'a general topic applies to every contract type; give it no contractTypes',
      },
    ];
  return (types ?? []).flatMap((t, i) =>
    known.has(t)
      ? []
      : [
          {
            path: [...at, 'contractTypes', i],
            message: `'${t}' is not one of the playbook's contract types (${[...known].join(', ')})`,
          },
        ],
  );
}

/** Topics are unique within positions and within required clauses. */
function duplicateIssues(items: readonly { topic: string }[], list: string): Issue[] {
  const first = new Map<string, number>();
  return items.flatMap((item, i) => {
    const seen = first.get(item.topic);
    if (seen === undefined) {
      first.set(item.topic, i);
      return [];
    }
    return [{ path: [list, i, 'topic'], message: `duplicate topic '${item.topic}' (also ${list}[${seen}])` }];
  });
}

/** Checks that span fields: unique topics, known contract types, thresholds in order. */
function crossIssues(p: Shape): Issue[] {
  const known = new Set(p.contractTypes);
  const byTopic = new Map(p.positions.map((x) => [x.topic, x]));
  return [
    ...duplicateIssues(p.positions, 'positions'),
    ...duplicateIssues(p.requiredClauses, 'requiredClauses'),
    ...p.positions.flatMap((x, i) => [
      ...contractTypeIssues(x.contractTypes, known, ['positions', i], x.general),
      ...thresholdIssues(x, ['positions', i]),
    ]),
    ...p.requiredClauses.flatMap((r, i) => {
      const same = byTopic.get(r.topic);
      return [
        ...contractTypeIssues(r.contractTypes, known, ['requiredClauses', i], r.general),
        ...(same && same.category !== r.category
          ? [
              {
                path: ['requiredClauses', i, 'category'],
                message: `topic '${r.topic}' is a '${same.category}' position; a required clause of the same topic must be too`,
              },
            ]
          : []),
      ];
    }),
  ];
}

/**
 * The playbook schema: every field's shape, then, once the shapes hold, the checks across
 * fields (unique topics, the playbook's own contract types, thresholds in range and in order).
 */
export const playbookSchema = shape.superRefine((p, ctx) => {
  for (const issue of crossIssues(p)) ctx.addIssue({ code: 'custom', ...issue });
});

/** A valid playbook, as parsed (defaults filled, text trimmed, `$schema` dropped). */
export type Playbook = Omit<z.output<typeof playbookSchema>, '$schema'>;
/** One position of a playbook. */
export type Position = Playbook['positions'][number];
/** One fallback of a position. */
export type Fallback = Position['fallbacks'][number];
/** A number a position compares a clause with. */
export type Measure = NonNullable<Position['measure']>;
/** A topic that must appear somewhere in the contract. */
export type RequiredClause = Playbook['requiredClauses'][number];

/**
 * The topics of a playbook that apply to a contract type: for one of the playbook's own types,
 * its positions and required clauses that name the type, or name none; for a type the playbook
 * does not cover (a franchise agreement against a services playbook), its general ones only. A
 * review against the playbook needs only the analysts of these topics' categories.
 */
export function topicsFor(
  playbook: Playbook,
  contractType: string,
): { positions: Position[]; requiredClauses: RequiredClause[] } {
  const covered = playbook.contractTypes.includes(contractType);
  const applies = (t: { contractTypes?: readonly string[] | undefined; general?: boolean | undefined }) =>
    covered ? t.contractTypes === undefined || t.contractTypes.includes(contractType) : t.general === true;
  return {
    positions: playbook.positions.filter(applies),
    requiredClauses: playbook.requiredClauses.filter(applies),
  };
}

/** The JSON Schema of a playbook file, for editors (written to docs/playbook.schema.json). */
export function playbookJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(shape, { io: 'input', target: 'draft-2020-12' }),
    title: 'clause-review playbook',
    description:
      "A team's positions per topic, keyed to clause-review's twelve risk categories, and the clauses a contract must have. " +
      'Checks across fields (unique topics, thresholds in order, contract types) are made by `clause-review playbook validate`.',
  };
}
