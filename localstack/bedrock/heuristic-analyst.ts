/**
 * The offline heuristic analyst: answers a Converse request by filling the caller's own tool
 * schema with keyword-based judgements about the clause. It exists so the pipeline can run end
 * to end without a model; it is deterministic (same request, same answer) and is not, and does
 * not pretend to be, a legal-grade reviewer.
 *
 * Schemas are walked generically; meaning is attached by property names (score, findings,
 * quote, rationale, summary, ...) and category descriptions, so callers need not adapt their
 * schema to the stand-in.
 */

import { type ClauseIndex, clauseIndexFor, extractClauseText, type Segment } from './clause-text.js';
import {
  CATEGORY_KEYS,
  CONFIDENCE_KEYS,
  categoryNameProperty,
  END_KEYS,
  HIGH_RISK_BOOL_KEYS,
  isSemanticKey,
  isTextKey,
  normKey,
  PRESENT_KEYS,
  QUOTE_KEYS,
  quoteProperty,
  SCORE_KEYS,
  SEVERITY_WORDS,
  START_KEYS,
  scoreProperty,
  TERMS_KEYS,
  TEXT_KEYS,
} from './heuristic-keys.js';
import { fitString, summarySentence, textFor, verbatimQuote } from './heuristic-text.js';
import type {
  AnalystAnswer,
  AnalystRequest,
  Annotations,
  CategoryContext,
  Container,
  Ctx,
  OfflineAnalyst,
  OfflineAnalystName,
  ToolAnswer,
  ToolLike,
} from './heuristic-types.js';
import { compileSchema, integerBounds, isObjectNode, type SchemaNode } from './json-schema.js';
import { HEURISTIC_ANALYST, offlineAnalyst } from './offline-analysts.js';
import { answerPositions } from './playbook-analyst.js';
import { ANY_CATEGORY, type CategorySpec, type SegmentMatch, triggersLexicon } from './risk-lexicon.js';

const SCHEMA_CACHE_LIMIT = 256;
const schemaCache = new Map<string, SchemaNode>();

/**
 * Compiles a tool input schema, cached by its JSON text so repeated calls with the same schema
 * (every call of a review) skip the work.
 */
export function compileToolSchema(schemaText: string, schema: unknown): SchemaNode {
  const cached = schemaCache.get(schemaText);
  if (cached) return cached;
  const node = compileSchema(schema);
  if (schemaCache.size >= SCHEMA_CACHE_LIMIT) schemaCache.clear();
  schemaCache.set(schemaText, node);
  return node;
}

/** The tool the caller wants used: the one named by `toolChoice.tool`, else the first. */
export function chosenTool(request: AnalystRequest): ToolLike | undefined {
  const tools = request.toolConfig?.tools ?? [];
  const choice = request.toolConfig?.toolChoice as { tool?: { name?: unknown } } | undefined;
  const named = choice?.tool?.name;
  if (typeof named === 'string') return tools.find((tool) => tool.toolSpec?.name === named);
  return tools.find((tool) => tool.toolSpec !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Generation.

/** Current 0..3 risk level in context, or undefined when the category is not present. */
function levelFor(ctx: Ctx): number | undefined {
  if (ctx.finding) return ctx.finding.level;
  if (ctx.category) return ctx.category.match.present ? ctx.category.match.level : undefined;
  const any = ctx.analyst.match(ctx.index, ANY_CATEGORY);
  return any.present ? any.level : undefined;
}

function chooseEnum(values: readonly unknown[], node: SchemaNode, ctx: Ctx): unknown {
  const key = normKey(ctx.key);
  if (values.every((value) => typeof value === 'number')) {
    // A numeric enum is a score scale: pick the step matching the level.
    const level = levelFor(ctx);
    if (level === undefined && node.nullable) return null;
    const sorted = [...(values as number[])].sort((a, b) => a - b);
    return sorted[Math.round(((level ?? 0) / 3) * (sorted.length - 1))];
  }
  if (CATEGORY_KEYS.has(key) && ctx.category) {
    const wanted = normKey(ctx.category.spec.key);
    const hit = values.find((value) => typeof value === 'string' && normKey(value) === wanted);
    if (hit !== undefined) return hit;
  }
  const level = levelFor(ctx) ?? 0;
  // Severity-like vocabularies map the risk level onto their words.
  const normalized = values.map((value) => (typeof value === 'string' ? normKey(value) : ''));
  for (let wantedLevel = level; wantedLevel >= 0; wantedLevel--) {
    const vocabulary = SEVERITY_WORDS[wantedLevel] ?? [];
    const i = normalized.findIndex((value) => vocabulary.includes(value));
    if (i !== -1) return values[i];
  }
  for (let wantedLevel = level + 1; wantedLevel < SEVERITY_WORDS.length; wantedLevel++) {
    const vocabulary = SEVERITY_WORDS[wantedLevel] ?? [];
    const i = normalized.findIndex((value) => vocabulary.includes(value));
    if (i !== -1) return values[i];
  }
  return values[0];
}

/** Maps a 0..3 level onto the node's integer range. */
function scaleLevel(level: number, node: SchemaNode): number {
  const { min, max } = integerBounds(node);
  if (min !== undefined && max !== undefined) {
    if (max <= min) return min;
    return min + Math.round((level / 3) * (max - min));
  }
  if (max !== undefined) return Math.min(level, max);
  if (min !== undefined) return Math.max(level, min);
  return level;
}

function defaultNumber(node: SchemaNode, integer: boolean): number {
  const { min, max } = integerBounds(node);
  let value = 0;
  if (min !== undefined && value < min) value = min;
  if (max !== undefined && value > max) value = max;
  if (!integer && min !== undefined && max !== undefined && min > max) {
    // A range with no integer in it (e.g. 0.2..0.8): take its middle.
    const lo = node.minimum ?? node.exclusiveMinimum ?? 0;
    const hi = node.maximum ?? node.exclusiveMaximum ?? lo;
    return (lo + hi) / 2;
  }
  return value;
}

function fillNumber(node: SchemaNode, ctx: Ctx, integer: boolean): number | null {
  const key = normKey(ctx.key);
  if (SCORE_KEYS.has(key) || key.endsWith('score')) {
    const level = levelFor(ctx);
    if (level === undefined && node.nullable) return null;
    return scaleLevel(level ?? 0, node);
  }
  if (CONFIDENCE_KEYS.has(key)) {
    const { max } = integerBounds(node);
    const top = node.maximum ?? node.exclusiveMaximum;
    if (!integer && top !== undefined && top <= 1) return 0.35;
    if (max !== undefined && max >= 100) return 35;
  }
  if (ctx.finding && START_KEYS.has(key)) return ctx.finding.segment.start;
  if (ctx.finding && END_KEYS.has(key)) return ctx.finding.segment.end;
  return defaultNumber(node, integer);
}

function fillString(node: SchemaNode, ctx: Ctx): string {
  const key = normKey(ctx.key);
  if (ctx.finding && QUOTE_KEYS.has(key)) return verbatimQuote(ctx.index, ctx.finding.segment, node);
  if (ctx.category && CATEGORY_KEYS.has(key)) {
    return fitString(ctx.category.spec === ANY_CATEGORY ? 'general' : ctx.category.spec.key, node);
  }
  if (TEXT_KEYS.has(key) || key.endsWith('rationale') || key.endsWith('summary')) {
    return fitString(textFor(ctx), node);
  }
  switch (node.format) {
    case 'date-time':
      return '2024-01-01T00:00:00.000Z';
    case 'date':
      return '2024-01-01';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
    case 'email':
      return 'stand-in@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/clause-review-stand-in';
  }
  return fitString('n/a', node);
}

function fillBoolean(ctx: Ctx): boolean {
  const key = normKey(ctx.key);
  if (PRESENT_KEYS.has(key)) return levelFor(ctx) !== undefined;
  if (HIGH_RISK_BOOL_KEYS.has(key)) return (levelFor(ctx) ?? 0) >= 2;
  return false;
}

function wrongTypeValue(node: SchemaNode, value: unknown): unknown {
  if (typeof value === 'number' && !node.types.includes('string')) return 'high';
  if (typeof value === 'string' && !node.types.includes('number') && !node.types.includes('integer'))
    return 42;
  if (Array.isArray(value) && !node.types.includes('string')) return 'see above';
  if (typeof value === 'boolean' && !node.types.includes('string')) return 'yes';
  if (value !== null && typeof value === 'object' && !node.types.includes('string')) return 'n/a';
  return undefined;
}

function noteBreakPoints(
  node: SchemaNode,
  container: Container,
  key: string | number,
  value: unknown,
  ctx: Ctx,
): void {
  if (typeof value === 'number' && node.maximum !== undefined) {
    ctx.out.breakPoints.push({ kind: 'outOfRange', container, key, value: node.maximum + 4 });
  }
  const wrong = wrongTypeValue(node, value);
  if (wrong !== undefined) ctx.out.breakPoints.push({ kind: 'wrongType', container, key, value: wrong });
}

function categoryContext(ctx: Ctx, spec: CategorySpec): CategoryContext {
  const category = { spec, match: ctx.analyst.match(ctx.index, spec) };
  ctx.out.categories.push(category);
  return category;
}

/** What fillObject needs to know about an object node; computed once per compiled node. */
interface ObjectPlan {
  readonly scoreKey?: string;
  /** Properties to emit, in declared order. */
  readonly entries: readonly (readonly [string, SchemaNode])[];
  /** The same, texts last, so summaries can describe the categories assessed beside them. */
  readonly fillOrder: readonly (readonly [string, SchemaNode])[];
  /** Whether both orders are the same (the usual case), so values can go straight into place. */
  readonly inOrder: boolean;
}

const objectPlans = new WeakMap<SchemaNode, ObjectPlan>();

function objectPlan(node: SchemaNode): ObjectPlan {
  let plan = objectPlans.get(node);
  if (plan) return plan;
  const entries = [...(node.properties ?? new Map<string, SchemaNode>())].filter(
    ([key, child]) =>
      node.required.has(key) ||
      isSemanticKey(key) ||
      child.types.includes('object') ||
      child.types.includes('array') ||
      isObjectNode(child),
  );
  const fillOrder = [
    ...entries.filter(([key]) => !isTextKey(key)),
    ...entries.filter(([key]) => isTextKey(key)),
  ];
  plan = {
    scoreKey: scoreProperty(node),
    entries,
    fillOrder,
    inOrder: fillOrder.every((entry, i) => entry === entries[i]),
  };
  objectPlans.set(node, plan);
  return plan;
}

function fillObject(node: SchemaNode, ctx: Ctx): Record<string, unknown> | null {
  const plan = objectPlan(node);
  let inner = ctx;
  // An object with a numeric score is one category's assessment, named by its property key.
  if (plan.scoreKey && !ctx.finding && !ctx.category && (ctx.key !== '' || ctx.rootCategory)) {
    const spec =
      ctx.key !== '' ? { key: ctx.key, description: node.description } : (ctx.rootCategory as CategorySpec);
    const category = categoryContext(ctx, spec);
    inner = { ...ctx, category };
    const score = node.properties?.get(plan.scoreKey);
    if (!category.match.present && score && !score.nullable && node.nullable) return null;
  }
  const out: Record<string, unknown> = {};
  if (plan.inOrder) {
    for (const [key, child] of plan.entries) out[key] = fill(child, { ...inner, key });
  } else {
    const values = new Map<string, unknown>();
    for (const [key, child] of plan.fillOrder) values.set(key, fill(child, { ...inner, key }));
    for (const [key] of plan.entries) out[key] = values.get(key);
  }
  for (const [key, child] of plan.entries) {
    if (!node.required.has(key) && saysNothing(child, out[key], key, ctx)) delete out[key];
  }
  if (ctx.out.annotate) {
    for (const [key, child] of plan.entries) {
      if (node.required.has(key)) ctx.out.breakPoints.push({ kind: 'missingRequired', container: out, key });
      noteBreakPoints(child, out, key, out[key], ctx);
    }
  }
  return out;
}

/**
 * Whether an optional property holds nothing a model would write: an assessment of a category
 * the clause does not address (score null), or a text beside assessments that found nothing. A
 * model asked for the fewest tokens leaves such a property out, as the schema allows.
 */
function saysNothing(child: SchemaNode, value: unknown, key: string, ctx: Ctx): boolean {
  if (value === null || value === undefined) return true;
  const scoreKey = objectPlan(child).scoreKey;
  if (scoreKey && typeof value === 'object') return (value as Record<string, unknown>)[scoreKey] === null;
  if (isTextKey(key)) {
    const assessed = ctx.out.categories;
    return assessed.length > 0 && assessed.every((c) => !c.match.present);
  }
  return false;
}

function fillFindings(node: SchemaNode, items: SchemaNode, ctx: Ctx): unknown[] {
  const cap = node.maxItems ?? 3;
  const quoteKey = quoteProperty(items) as string;
  const maxLength = items.properties?.get(quoteKey)?.maxLength;
  const named = categoryNameProperty(items);
  // Each candidate passage with the category it is reported under.
  let candidates: { finding: SegmentMatch; category?: CategoryContext }[];
  if (ctx.category) {
    candidates = ctx.category.match.segments.map((finding) => ({ finding, category: ctx.category }));
  } else if (named?.names) {
    // Findings that name their category from a list: passages matching any listed category,
    // each attributed to the first listed category it matches.
    const bySegment = new Map<Segment, { finding: SegmentMatch; category: CategoryContext }>();
    for (const name of named.names) {
      const spec = { key: name, description: name };
      const match = ctx.analyst.match(ctx.index, spec);
      for (const finding of match.segments) {
        if (!bySegment.has(finding.segment))
          bySegment.set(finding.segment, { finding, category: { spec, match } });
      }
    }
    candidates = [...bySegment.values()].sort((a, b) => a.finding.segment.start - b.finding.segment.start);
  } else {
    candidates = ctx.analyst.match(ctx.index, ANY_CATEGORY).segments.map((finding) => ({ finding }));
  }
  const chosen = candidates.slice(0, cap);
  // Satisfy minItems with further passages, verbatim, marked as carrying no risk wording.
  const minItems = node.minItems ?? 0;
  for (const segment of ctx.index.segments) {
    if (chosen.length >= minItems) break;
    if (!chosen.some((c) => c.finding.segment === segment)) {
      chosen.push({ finding: { segment, terms: [], riskTerms: [], level: 0 }, category: ctx.category });
    }
  }
  const array: unknown[] = [];
  const makeItem = (finding: SegmentMatch, category: CategoryContext | undefined): unknown => {
    const item = fill(items, { ...ctx, key: '', category, finding });
    if (ctx.out.annotate && item && typeof item === 'object' && !Array.isArray(item)) {
      ctx.out.quotes.push({ container: item as Record<string, unknown>, key: quoteKey, maxLength });
    }
    return item;
  };
  for (const { finding, category } of chosen) array.push(makeItem(finding, category));
  if (!ctx.out.annotate) return array;
  ctx.out.findings.push({
    array,
    maxItems: cap,
    quoteMaxLength: maxLength,
    makeFinding: (quote) => {
      const segment: Segment = { start: 0, end: quote.length, text: quote, tokens: [] };
      const item = makeItem({ segment, terms: [], riskTerms: [], level: 1 }, ctx.category);
      if (item && typeof item === 'object') (item as Record<string, unknown>)[quoteKey] = quote;
      return item;
    },
  });
  return array;
}

function fillCategoryList(node: SchemaNode, items: SchemaNode, ctx: Ctx): unknown[] {
  const named = categoryNameProperty(items);
  const names = named?.names ?? ['general'];
  const cap = Math.min(node.maxItems ?? names.length, names.length);
  const out: unknown[] = [];
  for (const name of names.slice(0, cap)) {
    const spec = named?.names ? { key: name, description: name } : ANY_CATEGORY;
    const category = categoryContext(ctx, spec);
    out.push(fill(items, { ...ctx, key: '', category }));
  }
  return out;
}

function fillArray(node: SchemaNode, ctx: Ctx): unknown[] {
  const items = node.items;
  if (!items) return [];
  if (isObjectNode(items) && quoteProperty(items) && !ctx.finding) return fillFindings(node, items, ctx);
  if (isObjectNode(items) && scoreProperty(items) && !ctx.category) return fillCategoryList(node, items, ctx);
  const key = normKey(ctx.key);
  const cap = node.maxItems ?? Number.POSITIVE_INFINITY;
  if (TERMS_KEYS.has(key) && items.types.includes('string')) {
    const terms =
      ctx.finding?.terms ?? ctx.category?.match.terms ?? ctx.analyst.match(ctx.index, ANY_CATEGORY).terms;
    const out = terms.slice(0, cap).map((term) => fitString(term, items));
    while (out.length < (node.minItems ?? 0)) out.push(fitString('n/a', items));
    return out;
  }
  const out: unknown[] = [];
  for (let i = 0; i < (node.minItems ?? 0); i++) out.push(fill(items, ctx));
  return out;
}

/** Fills one schema node in context. */
function fill(node: SchemaNode, ctx: Ctx): unknown {
  if (node.hasConst) return node.constValue;
  if (node.onlyNull) return null;
  // anyOf/oneOf were folded into their first non-null alternative when compiled.
  if (node.enumValues && node.enumValues.length > 0) return chooseEnum(node.enumValues, node, ctx);
  const type = node.types[0] ?? (node.properties ? 'object' : node.items ? 'array' : undefined);
  switch (type) {
    case 'object':
      return fillObject(node, ctx);
    case 'array':
      return fillArray(node, ctx);
    case 'integer':
      return fillNumber(node, ctx, true);
    case 'number':
      return fillNumber(node, ctx, false);
    case 'string':
      return fillString(node, ctx);
    case 'boolean':
      return fillBoolean(ctx);
    default: {
      // Unconstrained: follow the name, else null (valid for an empty schema).
      const key = normKey(ctx.key);
      if (isTextKey(ctx.key)) return textFor(ctx);
      if (SCORE_KEYS.has(key)) return levelFor(ctx) ?? null;
      return null;
    }
  }
}

/**
 * Fills `schema` for the clause in `index`. Exposed for tests and for callers that have a
 * schema but no Converse request.
 */
export function fillSchema(
  schema: SchemaNode,
  index: ClauseIndex,
  rootCategory?: CategorySpec,
  annotate = true,
  analyst: OfflineAnalyst = HEURISTIC_ANALYST,
): { input: unknown; annotations: Omit<ToolAnswer, 'name' | 'input'> } {
  const out: Annotations = { annotate, quotes: [], findings: [], breakPoints: [], categories: [] };
  const input = fill(schema, { index, analyst, key: '', out, rootCategory });
  return { input, annotations: { quotes: out.quotes, findings: out.findings, breakPoints: out.breakPoints } };
}

/** Options of {@link analyze}. */
export interface AnalyzeOptions {
  /** The compiled input schema of a tool, when the caller has it already; else it is compiled (and cached) here. */
  schemaOf?: (toolName: string) => SchemaNode | undefined;
  /**
   * Record quotes, findings and break points on the answer (default true). Only malformed
   * answers need them, so the hot path turns them off.
   */
  annotate?: boolean;
  /** Which offline analyst answers (default `learned`). */
  analyst?: OfflineAnalystName;
}

/**
 * Answers a Converse request. Deterministic: the same request always gives the same answer
 * (schema analysis and clause indexing are cached, so repeated calls are cheap).
 */
export function analyze(request: AnalystRequest, options: AnalyzeOptions = {}): AnalystAnswer {
  const { schemaOf, annotate = true } = options;
  const analyst = offlineAnalyst(options.analyst);
  const clause = extractClauseText(request.messages);
  const index = clauseIndexFor(clause);
  const tool = chosenTool(request);
  const spec = tool?.toolSpec;
  if (!spec) {
    const out: Annotations = { annotate: false, quotes: [], findings: [], breakPoints: [], categories: [] };
    return { label: analyst.label, clause, text: summarySentence({ index, analyst, key: '', out }) };
  }
  const schemaJson = spec.inputSchema?.json ?? {};
  const node = schemaOf?.(spec.name) ?? compileToolSchema(JSON.stringify(schemaJson), schemaJson);
  // A schema whose root is one assessment is about the category its tool is named after, when
  // that name means something to the lexicon; otherwise about any risk at all.
  const named: CategorySpec = {
    key: spec.name,
    description: `${spec.description ?? ''} ${node.description}`,
  };
  const { input, annotations } = fillSchema(
    node,
    index,
    triggersLexicon(named) ? named : ANY_CATEGORY,
    annotate,
    analyst,
  );
  answerPositions(request, node, input, index, analyst);
  return {
    label: analyst.label,
    clause,
    text: analyst.label,
    tool: { name: spec.name, input, ...annotations },
  };
}
