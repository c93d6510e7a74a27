/**
 * The heuristic analyst's scalar answers: a score or level scaled to the schema's range, the
 * enum value that fits the clause, a string a property's name asks for, a yes or no, and the
 * wrong-typed value a malformed answer carries.
 */

import {
  CATEGORY_KEYS,
  CONFIDENCE_KEYS,
  END_KEYS,
  HIGH_RISK_BOOL_KEYS,
  normKey,
  PRESENT_KEYS,
  QUOTE_KEYS,
  SCORE_KEYS,
  SEVERITY_WORDS,
  START_KEYS,
  TEXT_KEYS,
} from './heuristic-keys.js';
import { fitString, textFor, verbatimQuote } from './heuristic-text.js';
import type { Ctx } from './heuristic-types.js';
import { integerBounds, type SchemaNode } from './json-schema.js';
import { ANY_CATEGORY } from './risk-lexicon.js';

/** Current 0..3 risk level in context, or undefined when the category is not present. */
export function levelFor(ctx: Ctx): number | undefined {
  if (ctx.finding) return ctx.finding.level;
  if (ctx.category) return ctx.category.match.present ? ctx.category.match.level : undefined;
  const any = ctx.analyst.match(ctx.index, ANY_CATEGORY);
  return any.present ? any.level : undefined;
}

export function chooseEnum(values: readonly unknown[], node: SchemaNode, ctx: Ctx): unknown {
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

export function fillNumber(node: SchemaNode, ctx: Ctx, integer: boolean): number | null {
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

export function fillString(node: SchemaNode, ctx: Ctx): string {
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

export function fillBoolean(ctx: Ctx): boolean {
  const key = normKey(ctx.key);
  if (PRESENT_KEYS.has(key)) return levelFor(ctx) !== undefined;
  if (HIGH_RISK_BOOL_KEYS.has(key)) return (levelFor(ctx) ?? 0) >= 2;
  return false;
}

export function wrongTypeValue(node: SchemaNode, value: unknown): unknown {
  if (typeof value === 'number' && !node.types.includes('string')) return 'high';
  if (typeof value === 'string' && !node.types.includes('number') && !node.types.includes('integer'))
    return 42;
  if (Array.isArray(value) && !node.types.includes('string')) return 'see above';
  if (typeof value === 'boolean' && !node.types.includes('string')) return 'yes';
  if (value !== null && typeof value === 'object' && !node.types.includes('string')) return 'n/a';
  return undefined;
}
