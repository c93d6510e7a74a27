/**
 * The heuristic analyst's answer, built: the caller's tool schema walked node by node and filled
 * with keyword-based judgements about the clause. Meaning comes from property names (score,
 * findings, quote, rationale, summary, ...) and category descriptions, so callers need not adapt
 * their schema to the stand-in.
 */

import type { ClauseIndex, Segment } from './clause-text.js';
import {
  categoryNameProperty,
  isSemanticKey,
  isTextKey,
  normKey,
  quoteProperty,
  SCORE_KEYS,
  scoreProperty,
  TERMS_KEYS,
} from './heuristic-keys.js';
import { fitString, textFor } from './heuristic-text.js';
import type {
  Annotations,
  CategoryContext,
  Container,
  Ctx,
  OfflineAnalyst,
  ToolAnswer,
} from './heuristic-types.js';
import { isObjectNode, type SchemaNode } from './json-schema.js';
import { HEURISTIC_ANALYST } from './offline-analysts.js';
import { ANY_CATEGORY, type CategorySpec, type SegmentMatch } from './risk-lexicon.js';
import {
  chooseEnum,
  fillBoolean,
  fillNumber,
  fillString,
  levelFor,
  wrongTypeValue,
} from './schema-scalars.js';

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
