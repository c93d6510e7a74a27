/**
 * Keyword matching for the heuristic analyst: which passages of a clause touch a risk category, and how
 * alarming their wording is. Categories are whatever the caller's schema names, so keywords come from the
 * category's key and description, topped up by a built-in lexicon of legal risk terms for the categories
 * contracts usually have. Everything is compiled once (per category signature, per clause) and reused:
 * no regular expressions are built on the request path.
 */
import { type ClauseIndex, indexKey, type Segment } from './clause-text.js';
import { HIGH_RISK_TERMS, LEXICON, STOPWORDS } from './risk-terms.js';

/** One token of a keyword: a prefix stem, or an exact word (plural `s`/`es` allowed). */
interface TokenPattern {
  readonly stem: string;
  readonly prefix: boolean;
}

/** A word or phrase to look for. */
interface Keyword {
  readonly tokens: readonly TokenPattern[];
  /** Single-word keyword that `non` in front negates ("non-exclusive" is not exclusive). */
  readonly negatable: boolean;
  /**
   * Derived from a category's own words: it never matches filler words, so "control" (stem
   * "contr") does not fire on every "contract".
   */
  readonly derived: boolean;
}

/** A risk category as the caller's schema names it. */
export interface CategorySpec {
  readonly key: string;
  readonly description: string;
}

/** How one segment matched a category. */
export interface SegmentMatch {
  readonly segment: Segment;
  /** Matched words/phrases as written in the clause (lowercased), first occurrence order. */
  readonly terms: readonly string[];
  /** High-risk wording found in the segment. */
  readonly riskTerms: readonly string[];
  /** 0..3 for this passage alone (heuristic: 1..3); `reason`, here and on a match, is the learned analyst's. */
  readonly level: number;
  readonly reason?: string;
}

/** How a whole clause matched a category. */
export interface CategoryMatch {
  readonly present: boolean;
  /** 0 (not present) .. 3 (present with alarming wording). */
  readonly level: number;
  readonly terms: readonly string[];
  readonly riskTerms: readonly string[];
  /** Matching segments in clause order. */
  readonly segments: readonly SegmentMatch[];
  readonly reason?: string;
}

function parsePattern(word: string): TokenPattern {
  return word.endsWith('*') ? { stem: word.slice(0, -1), prefix: true } : { stem: word, prefix: false };
}

function parseKeyword(text: string, derived = false): Keyword {
  const tokens = text.split(' ').filter(Boolean).map(parsePattern);
  return { tokens, negatable: tokens.length === 1, derived };
}

const tokenMatches = (token: string, pattern: TokenPattern): boolean =>
  pattern.prefix
    ? token.startsWith(pattern.stem)
    : token === pattern.stem || token === `${pattern.stem}s` || token === `${pattern.stem}es`;

const COMPILED_LEXICON = LEXICON.map((group) => ({
  triggers: group.triggers.map((text) => parseKeyword(text)),
  terms: group.terms.map((text) => parseKeyword(text)),
}));
const COMPILED_HIGH_RISK = HIGH_RISK_TERMS.map((text) => parseKeyword(text));

/** Splits a category key or description into lowercase words ("ipOwnership", "ip-ownership" -> ip, ownership). */
function categoryWords(text: string): string[] {
  const spaced = text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const words: string[] = [];
  let current = '';
  for (const ch of spaced) {
    if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) current += ch;
    else if (current) {
      words.push(current);
      current = '';
    }
  }
  if (current) words.push(current);
  return words;
}

/** True when the keyword occurs in a token sequence (used for lexicon triggers on category words). */
function occursIn(tokens: readonly string[], keyword: Keyword): boolean {
  for (let i = 0; i + keyword.tokens.length <= tokens.length; i++) {
    if (keyword.tokens.every((pattern, k) => tokenMatches(tokens[i + k] as string, pattern))) return true;
  }
  return false;
}

/**
 * A cache keyed by a category's key and description. Nested maps rather than one concatenated
 * key: the strings come from a cached compiled schema, so their hashes are computed once,
 * whereas a concatenation would be a new (long) string to hash on every call.
 */
class CategoryCache<V> {
  private readonly byKey = new Map<string, Map<string, V>>();
  private size = 0;

  constructor(private readonly limit: number) {}

  get(category: CategorySpec): V | undefined {
    return this.byKey.get(category.key)?.get(category.description);
  }

  set(category: CategorySpec, value: V): void {
    if (this.size >= this.limit) {
      this.byKey.clear();
      this.size = 0;
    }
    let byDescription = this.byKey.get(category.key);
    if (!byDescription) {
      byDescription = new Map();
      this.byKey.set(category.key, byDescription);
    }
    if (!byDescription.has(category.description)) this.size++;
    byDescription.set(category.description, value);
  }
}

const keywordCache = new CategoryCache<readonly Keyword[]>(4096);

/**
 * Lexicon groups a category draws on: those its key selects ("payment-pricing" -> payment),
 * else those its description selects. Keys first, because rich descriptions mention
 * neighbouring topics ("indemnities" in an insurance description) that would pull in their
 * whole vocabulary.
 */
function lexiconGroupsFor(category: CategorySpec): typeof COMPILED_LEXICON {
  const keyWords = categoryWords(category.key);
  const byKey = COMPILED_LEXICON.filter((group) => group.triggers.some((t) => occursIn(keyWords, t)));
  if (byKey.length > 0) return byKey;
  const words = [...keyWords, ...categoryWords(category.description)];
  return COMPILED_LEXICON.filter((group) => group.triggers.some((t) => occursIn(words, t)));
}

const triggerCache = new CategoryCache<boolean>(4096);

/** Whether a category's words select at least one group of the built-in lexicon (cached). */
export function triggersLexicon(category: CategorySpec): boolean {
  const cached = triggerCache.get(category);
  if (cached !== undefined) return cached;
  const triggers = lexiconGroupsFor(category).length > 0;
  triggerCache.set(category, triggers);
  return triggers;
}

/**
 * The keywords of a category: its own words (stopwords dropped; words of five letters or more
 * match by their first five letters, shorter ones exactly) plus the lexicon groups it selects
 * (see `lexiconGroupsFor`). Cached per category signature.
 */
export function categoryKeywords(category: CategorySpec): readonly Keyword[] {
  if (category.key === ANY_CATEGORY.key) return ALL_LEXICON_TERMS;
  const cached = keywordCache.get(category);
  if (cached) return cached;
  const keywords: Keyword[] = [];
  const seen = new Set<string>();
  const add = (keyword: Keyword): void => {
    const id = keyword.tokens.map((t) => `${t.stem}${t.prefix ? '*' : ''}`).join(' ');
    if (seen.has(id)) return;
    seen.add(id);
    keywords.push(keyword);
  };
  // Lexicon terms first: a word matched by both counts as a lexicon term.
  for (const group of lexiconGroupsFor(category)) group.terms.forEach(add);
  for (const word of [...categoryWords(category.key), ...categoryWords(category.description)]) {
    if (word.length < 4 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    add(parseKeyword(word.length >= 5 ? `${word.slice(0, 5)}*` : word, true));
  }
  keywordCache.set(category, keywords);
  return keywords;
}

interface Hit {
  segment: number;
  position: number;
  /** Tokens covered. */
  length: number;
  text: string;
  derived: boolean;
}

/** All occurrences of a keyword in the clause, via the token index. */
function findKeyword(index: ClauseIndex, keyword: Keyword): Hit[] {
  const first = keyword.tokens[0];
  if (!first) return [];
  const candidates = index.tokenIndex.get(indexKey(first.stem));
  if (!candidates) return [];
  const hits: Hit[] = [];
  for (const ref of candidates) {
    const tokens = (index.segments[ref.segment] as Segment).tokens;
    if (ref.position + keyword.tokens.length > tokens.length) continue;
    let ok = true;
    for (let k = 0; k < keyword.tokens.length && ok; k++) {
      ok = tokenMatches(tokens[ref.position + k] as string, keyword.tokens[k] as TokenPattern);
    }
    if (!ok) continue;
    if (keyword.derived && STOPWORDS.has(tokens[ref.position] as string)) continue;
    if (keyword.negatable && ref.position > 0 && tokens[ref.position - 1] === 'non') continue;
    const text = tokens.slice(ref.position, ref.position + keyword.tokens.length).join(' ');
    hits.push({
      segment: ref.segment,
      position: ref.position,
      length: keyword.tokens.length,
      text,
      derived: keyword.derived,
    });
  }
  return hits;
}

/** What matched in one segment. */
interface SegmentHits {
  /** Distinct matched texts in clause order; words inside a longer matched phrase are dropped. */
  terms: string[];
  /** How many of them came from the lexicon rather than the category's own words. */
  lexiconTerms: number;
}

/** Hits grouped per segment (see {@link SegmentHits}). */
function groupBySegment(hits: Hit[]): Map<number, SegmentHits> {
  // Longest first at each position, so a phrase claims its words before they match alone.
  hits.sort((a, b) => a.segment - b.segment || a.position - b.position || b.length - a.length);
  const grouped = new Map<number, SegmentHits>();
  let coveredSegment = -1;
  let coveredUntil = -1;
  const lexiconTexts = new Set<string>();
  for (const hit of hits) {
    if (hit.segment === coveredSegment && hit.position + hit.length <= coveredUntil) {
      if (!hit.derived) lexiconTexts.add(`${hit.segment}\u0000${hit.text}`);
      continue;
    }
    if (hit.segment !== coveredSegment || hit.position + hit.length > coveredUntil) {
      coveredSegment = hit.segment;
      coveredUntil = hit.position + hit.length;
    }
    if (!hit.derived) lexiconTexts.add(`${hit.segment}\u0000${hit.text}`);
    const group = grouped.get(hit.segment);
    if (!group) grouped.set(hit.segment, { terms: [hit.text], lexiconTerms: 0 });
    else if (!group.terms.includes(hit.text)) group.terms.push(hit.text);
  }
  for (const [segment, group] of grouped) {
    group.lexiconTerms = group.terms.filter((t) => lexiconTexts.has(`${segment}\u0000${t}`)).length;
  }
  return grouped;
}

const RISK_MEMO_KEY = 'risk';
const MATCH_MEMO_KEY = 'categories';

/** High-risk terms per segment of a clause (memoised on the clause index). */
function riskBySegment(index: ClauseIndex): Map<number, string[]> {
  const memo = index.memo.get(RISK_MEMO_KEY) as Map<number, string[]> | undefined;
  if (memo) return memo;
  const grouped = new Map<number, string[]>();
  const hits = groupBySegment(COMPILED_HIGH_RISK.flatMap((keyword) => findKeyword(index, keyword)));
  for (const [segment, group] of hits) grouped.set(segment, group.terms);
  index.memo.set(RISK_MEMO_KEY, grouped);
  return grouped;
}

/** Level of a passage or category: 1 when mentioned, raised by breadth and alarming wording. */
function levelFor(distinctTerms: number, riskTerms: number): number {
  if (distinctTerms === 0) return 0;
  if (riskTerms >= 2 || (riskTerms >= 1 && distinctTerms >= 4)) return 3;
  if (riskTerms >= 1 || distinctTerms >= 3) return 2;
  return 1;
}

const unique = (lists: Iterable<readonly string[]>): string[] => {
  const out: string[] = [];
  for (const list of lists) for (const item of list) if (!out.includes(item)) out.push(item);
  return out;
};

/** Matches one category against a clause (memoised per clause and category). */
export function matchCategory(index: ClauseIndex, category: CategorySpec): CategoryMatch {
  let matches = index.memo.get(MATCH_MEMO_KEY) as CategoryCache<CategoryMatch> | undefined;
  if (!matches) {
    matches = new CategoryCache<CategoryMatch>(1024);
    index.memo.set(MATCH_MEMO_KEY, matches);
  }
  const memo = matches.get(category);
  if (memo) return memo;
  const termsBySegment = groupBySegment(categoryKeywords(category).flatMap((kw) => findKeyword(index, kw)));
  const risk = riskBySegment(index);
  const segments: SegmentMatch[] = [];
  for (const [s, { terms, lexiconTerms }] of termsBySegment) {
    // One of the category's own (broad, prefix-matched) words alone is too weak a signal.
    if (lexiconTerms === 0 && terms.length < 2) continue;
    const riskTerms = risk.get(s) ?? [];
    segments.push({
      segment: index.segments[s] as Segment,
      terms,
      riskTerms,
      level: Math.min(3, 1 + riskTerms.length),
    });
  }
  const terms = unique(segments.map((m) => m.terms));
  const riskTerms = unique(segments.map((m) => m.riskTerms));
  const match: CategoryMatch = {
    present: segments.length > 0,
    level: levelFor(terms.length, riskTerms.length),
    terms,
    riskTerms,
    segments,
  };
  matches.set(category, match);
  return match;
}

/**
 * A category standing for "any risk at all" (the whole lexicon), used where a schema asks for
 * findings without naming a category.
 */
export const ANY_CATEGORY: CategorySpec = { key: '*', description: 'any legal risk' };

const ALL_LEXICON_TERMS: readonly Keyword[] = COMPILED_LEXICON.flatMap((group) => group.terms);
