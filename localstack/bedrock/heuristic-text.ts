/** The heuristic analyst's sentences and quotes: what it writes into text properties. */
import type { ClauseIndex, Segment } from './clause-text.js';
import type { CategoryContext, Ctx } from './heuristic-types.js';
import type { SchemaNode } from './json-schema.js';
import { ANY_CATEGORY, type SegmentMatch } from './risk-lexicon.js';

const CAMEL_BOUNDARY = /([a-z])([A-Z])/g;
const SEPARATORS = /[-_]+/g;
const humanized = new Map<string, string>();

/** "ip-ownership" -> "ip ownership", "changeOfControl" -> "change of control" (memoised). */
export function humanize(key: string): string {
  let label = humanized.get(key);
  if (label === undefined) {
    label = key.replace(CAMEL_BOUNDARY, '$1 $2').replace(SEPARATORS, ' ').toLowerCase().trim();
    if (humanized.size > 4096) humanized.clear();
    humanized.set(key, label);
  }
  return label;
}

export const quoteList = (items: readonly string[], limit = 4): string => {
  const shown = items.slice(0, limit).map((item) => `'${item}'`);
  if (shown.length <= 1) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
};

export function fitString(value: string, node: SchemaNode): string {
  let out = value;
  if (node.maxLength !== undefined && out.length > node.maxLength) {
    out = out.slice(0, Math.max(0, node.maxLength));
  }
  if (node.minLength !== undefined && out.length < node.minLength) out = out.padEnd(node.minLength, '.');
  return out;
}

/** A verbatim piece of the clause for a segment, within the node's length limits. */
export function verbatimQuote(index: ClauseIndex, segment: Segment, node: SchemaNode): string {
  let text = segment.text;
  if (node.maxLength !== undefined && text.length > node.maxLength) {
    text = text.slice(0, node.maxLength);
    // Prefer cutting at a word boundary; the result stays a prefix, hence a substring.
    const space = text.lastIndexOf(' ');
    if (space > node.maxLength / 2) text = text.slice(0, space);
  }
  if (node.minLength !== undefined && text.length < node.minLength) {
    text = index.clause.slice(segment.start, Math.min(index.clause.length, segment.start + node.minLength));
  }
  return text;
}

export function findingSentence(finding: SegmentMatch | undefined, who = 'heuristic'): string {
  if (finding?.reason) return finding.reason;
  if (!finding || finding.terms.length === 0) {
    return `No specific risk wording in this passage (offline ${who}).`;
  }
  const mentioned = [...finding.terms];
  for (const term of finding.riskTerms) if (!mentioned.includes(term)) mentioned.push(term);
  return `Mentions ${quoteList(mentioned)} (offline heuristic).`;
}

export function categorySentence(category: CategoryContext, who = 'heuristic'): string {
  const label = humanize(category.spec.key);
  const { match } = category;
  if (!match.present) return `No ${label} language found (offline ${who}).`;
  if (match.reason) return match.reason;
  const passages = `${match.segments.length} passage${match.segments.length === 1 ? '' : 's'}`;
  const risk = match.riskTerms.length > 0 ? `; high-risk wording ${quoteList(match.riskTerms)}` : '';
  return `${label} language in ${passages}: ${quoteList(match.terms)}${risk} (offline heuristic).`;
}

export function summarySentence(ctx: Ctx): string {
  const label = ctx.analyst.label;
  const flagged = ctx.out.categories.filter((c) => c.match.present);
  if (ctx.out.categories.length > 0) {
    if (flagged.length === 0) return `${label} No risk category matched this clause.`;
    const reasoned = flagged.filter((c) => c.match.reason).sort((a, b) => b.match.level - a.match.level);
    if (reasoned.length > 0) return `${label} ${reasoned.map((c) => c.match.reason).join(' ')}`;
    const list = flagged.map((c) => `${humanize(c.spec.key)} (${c.match.level})`).join(', ');
    const others = ctx.out.categories.length - flagged.length;
    const rest =
      others === 0 ? '' : `; ${others} other ${others === 1 ? 'category' : 'categories'} not addressed`;
    return `${label} Flagged ${list}${rest}.`;
  }
  const any = ctx.analyst.match(ctx.index, ANY_CATEGORY);
  if (!any.present) return `${label} No risk wording matched this clause.`;
  return `${label} ${any.segments.length} passage(s) mention ${quoteList(any.terms)}.`;
}

export function textFor(ctx: Ctx): string {
  if (ctx.finding) return findingSentence(ctx.finding, ctx.analyst.name);
  if (ctx.category) return categorySentence(ctx.category, ctx.analyst.name);
  return summarySentence(ctx);
}
