/**
 * Malformed answers: the ways real models get tool output wrong, injected on purpose so the
 * pipeline's validation and repair paths run. Each function mutates a freshly generated answer.
 */
import type { BreakPoint, ToolAnswer } from './heuristic-types.js';
import type { Random } from './random.js';

/**
 * A strict prefix of a value's JSON (about 60 %), which never parses: the top-level object or
 * array is left open, as when a model stops mid-answer.
 */
export function truncatedJson(value: unknown): string {
  const json = JSON.stringify(value) ?? 'null';
  if (json.length < 8 || (json[0] !== '{' && json[0] !== '[')) return '{"score": 2, "findings": [{"quote": "';
  return json.slice(0, Math.max(1, Math.floor(json.length * 0.6)));
}

/**
 * Makes the tool input break its schema in one place: a number past its maximum (a score of 7
 * on a 0..3 scale), a required field left out, or a value of the wrong type. Returns false
 * when the schema constrains nothing that could be broken.
 */
export function breakSchema(tool: ToolAnswer, random: Random): boolean {
  const byKind = new Map<BreakPoint['kind'], BreakPoint[]>();
  for (const point of tool.breakPoints) {
    const list = byKind.get(point.kind);
    if (list) list.push(point);
    else byKind.set(point.kind, [point]);
  }
  const kinds = [...byKind.keys()];
  if (kinds.length === 0) return false;
  const candidates = byKind.get(kinds[random.int(kinds.length)] as BreakPoint['kind']) as BreakPoint[];
  const point = candidates[random.int(candidates.length)] as BreakPoint;
  switch (point.kind) {
    case 'missingRequired':
      delete point.container[point.key];
      break;
    case 'outOfRange':
    case 'wrongType':
      (point.container as Record<string | number, unknown>)[point.key] = point.value;
      break;
  }
  return true;
}

// Same-length or shorter replacements, so a rewritten quote still fits the schema's maxLength.
const SWAPS: ReadonlyMap<string, string> = new Map([
  ['shall', 'must'],
  ['must', 'will'],
  ['will', 'must'],
  ['the', 'its'],
  ['any', 'all'],
  ['all', 'any'],
  ['and', 'or'],
  ['or', 'and'],
  ['may', 'can'],
  ['such', 'said'],
  ['this', 'that'],
  ['that', 'this'],
]);

const FABRICATED = 'Notwithstanding the foregoing, all liability of the Supplier shall be unlimited.';

function fits(candidate: string, quote: string, clause: string, maxLength: number | undefined): boolean {
  return (
    candidate !== quote &&
    candidate.length > 0 &&
    !clause.includes(candidate) &&
    (maxLength === undefined || candidate.length <= maxLength)
  );
}

/** A paraphrase of `quote` that is not a substring of `clause`, as a hallucinating model writes. */
export function paraphrase(quote: string, clause: string, maxLength?: number): string {
  const words = quote.split(' ');
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const swap = SWAPS.get(word.toLowerCase());
    if (!swap) continue;
    const replaced = word[0] === word[0]?.toUpperCase() ? swap[0]?.toUpperCase() + swap.slice(1) : swap;
    const candidate = [...words.slice(0, i), replaced, ...words.slice(i + 1)].join(' ');
    if (fits(candidate, quote, clause, maxLength)) return candidate;
  }
  // No swappable word: exchange two different adjacent words (same length, different text).
  for (let i = 0; i + 1 < words.length; i++) {
    if (words[i] === words[i + 1]) continue;
    const candidate = [...words.slice(0, i), words[i + 1], words[i], ...words.slice(i + 2)].join(' ');
    if (fits(candidate, quote, clause, maxLength)) return candidate;
  }
  const fabricated = maxLength === undefined ? FABRICATED : FABRICATED.slice(0, maxLength);
  return fabricated;
}

/**
 * Rewrites every generated quote so none is a verbatim substring of the clause. When the answer
 * has no findings but a findings array has room, adds one fabricated finding instead. Returns
 * false when the schema has no quotes at all.
 */
export function corruptQuotes(tool: ToolAnswer, clause: string): boolean {
  let changed = false;
  for (const slot of tool.quotes) {
    const quote = slot.container[slot.key];
    if (typeof quote !== 'string' || !Object.hasOwn(slot.container, slot.key)) continue;
    slot.container[slot.key] = paraphrase(quote, clause, slot.maxLength);
    changed = true;
  }
  if (changed) return true;
  const slot = tool.findings.find((candidate) => candidate.array.length < candidate.maxItems);
  if (!slot) return false;
  slot.array.push(slot.makeFinding(paraphrase('', clause, slot.quoteMaxLength)));
  return true;
}
