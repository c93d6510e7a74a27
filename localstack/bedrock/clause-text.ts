/**
 * Clause text handling for the heuristic analyst: find the clause in a Converse request, cut it
 * into sentences with exact offsets (so quotes are verbatim substrings), and tokenise it once
 * into an index that keyword matching can probe cheaply.
 */

/** A sentence or semicolon-separated part of the clause, with offsets into the clause text. */
export interface Segment {
  readonly start: number;
  readonly end: number;
  /** `clause.slice(start, end)`: verbatim, surrounding whitespace excluded. */
  readonly text: string;
  /** Lowercased word tokens in order (letters and digits; other characters separate tokens). */
  readonly tokens: readonly string[];
}

/** A clause cut into segments plus a token index; built once per distinct clause text. */
export interface ClauseIndex {
  readonly clause: string;
  readonly segments: readonly Segment[];
  /** Index key (first three letters of a token, or the whole token if shorter) -> occurrences. */
  readonly tokenIndex: ReadonlyMap<string, readonly TokenRef[]>;
  /** Per-clause memo for derived results (e.g. category matches), keyed by the caller. */
  readonly memo: Map<string, unknown>;
}

/** Where a token occurs: segment number and position within the segment. */
export interface TokenRef {
  readonly segment: number;
  readonly position: number;
}

/** Index key of a token or stem. */
export const indexKey = (token: string): string => (token.length >= 3 ? token.slice(0, 3) : token);

interface MessageLike {
  role?: unknown;
  content?: unknown;
}

/**
 * The clause a caller asks about: the text of the last user message, narrowed to the inside of
 * its clause block when it has one. Only newlines next to the tags are removed, so offsets in
 * the returned text are offsets in the caller's clause.
 *
 * Two block forms are understood. The marked form this project's analysts send,
 * `<clause-CODE>…</clause-CODE>` with CODE hex digits the clause never contains, ends the
 * message; its closing tag is the last one in the message and its opening tag the last one with
 * the same code before it, so clause text holding fake tags (`</clause>`, `<clause-0123…>`)
 * stays inside. The plain form `<clause>…</clause>` serves other callers.
 *
 * A plain tagged span of fewer than three words is taken for a mention of the tags rather than
 * a clause ("copy quotes from between <clause> and </clause>", as a repair prompt may say), and
 * earlier user messages are searched for the real one.
 */
export function extractClauseText(messages: readonly MessageLike[]): string {
  let fallback: string | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'user' || !Array.isArray(message.content)) continue;
    const parts: string[] = [];
    for (const block of message.content) {
      if (block && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string') {
        parts.push((block as { text: string }).text);
      }
    }
    const text = parts.join('\n');
    const marked = markedClause(text);
    if (marked !== undefined) return marked;
    const tagged = taggedClause(text);
    if (tagged !== undefined && wordCount(tagged) >= MIN_CLAUSE_WORDS) return tagged;
    fallback ??= tagged ?? text;
  }
  return fallback ?? '';
}

const MIN_CLAUSE_WORDS = 3;

/** A closing tag of the marked form. */
const MARKED_CLOSE = /<\/clause-([0-9a-f]{8,64})>/g;

/** The inside of the last `<clause-CODE>…</clause-CODE>` block of `text`, if it has one. */
function markedClause(text: string): string | undefined {
  let last: RegExpExecArray | undefined;
  for (const m of text.matchAll(MARKED_CLOSE)) last = m;
  if (!last) return undefined;
  const open = `<clause-${last[1]}>`;
  const at = text.lastIndexOf(open, last.index);
  if (at === -1) return undefined;
  return trimNewlines(text.slice(at + open.length, last.index));
}

/** The inside of the first `<clause ...>...</clause>` in `text` (an unclosed tag runs to the end). */
function taggedClause(text: string): string | undefined {
  const open = text.indexOf('<clause');
  if (open === -1) return undefined;
  const openEnd = text.indexOf('>', open);
  if (openEnd === -1) return undefined;
  const close = text.indexOf('</clause>', openEnd);
  return trimNewlines(text.slice(openEnd + 1, close === -1 ? text.length : close));
}

function wordCount(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const word = isWordChar(text.charCodeAt(i));
    if (word && !inWord) words++;
    inWord = word;
  }
  return words;
}

function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === '\n' || text[start] === '\r')) start++;
  while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return text.slice(start, end);
}

// Words after which a full stop does not end a sentence.
const ABBREVIATIONS = new Set([
  'inc',
  'ltd',
  'llc',
  'co',
  'corp',
  'no',
  'nos',
  'sec',
  'art',
  'para',
  'cl',
  'vs',
  'etc',
  'mr',
  'ms',
  'dr',
  'st',
  'approx',
  'incl',
]);

const isWordChar = (code: number): boolean =>
  (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code > 191;

const isSpace = (code: number): boolean =>
  code === 32 || code === 9 || code === 10 || code === 13 || code === 160;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const word = i < text.length && isWordChar(text.charCodeAt(i));
    if (word && start === -1) start = i;
    else if (!word && start !== -1) {
      tokens.push(text.slice(start, i).toLowerCase());
      start = -1;
    }
  }
  return tokens;
}

/** Whether the full stop at `at` ends an abbreviation ("Inc.", "e.g.", "U.S.", "a.") rather than a sentence. */
function isAbbreviation(text: string, at: number): boolean {
  let i = at;
  while (i > 0 && (isWordChar(text.charCodeAt(i - 1)) || text[i - 1] === '.')) i--;
  const word = text.slice(i, at);
  return word.length === 1 || word.includes('.') || ABBREVIATIONS.has(word.toLowerCase());
}

/** Cuts a clause into sentences / semicolon parts / lines, keeping exact offsets. */
export function segmentClause(clause: string): Segment[] {
  const segments: Segment[] = [];
  const push = (from: number, to: number): void => {
    let start = from;
    let end = to;
    while (start < end && isSpace(clause.charCodeAt(start))) start++;
    while (end > start && isSpace(clause.charCodeAt(end - 1))) end--;
    if (end <= start) return;
    const text = clause.slice(start, end);
    const tokens = tokenize(text);
    if (tokens.length === 0) return;
    segments.push({ start, end, text, tokens });
  };
  let from = 0;
  for (let i = 0; i < clause.length; i++) {
    const ch = clause[i];
    if (ch === '\n') {
      push(from, i);
      from = i + 1;
      continue;
    }
    if (ch !== '.' && ch !== ';' && ch !== '!' && ch !== '?') continue;
    const next = i + 1 < clause.length ? clause.charCodeAt(i + 1) : 32;
    if (!isSpace(next)) continue;
    if (ch === '.' && isAbbreviation(clause, i)) continue;
    push(from, i + 1);
    from = i + 1;
  }
  push(from, clause.length);
  return segments;
}

/** Builds the segment list and token index of a clause. */
export function indexClause(clause: string): ClauseIndex {
  const segments = segmentClause(clause);
  const tokenIndex = new Map<string, TokenRef[]>();
  segments.forEach((segment, s) => {
    segment.tokens.forEach((token, position) => {
      const key = indexKey(token);
      const refs = tokenIndex.get(key);
      if (refs) refs.push({ segment: s, position });
      else tokenIndex.set(key, [{ segment: s, position }]);
    });
  });
  return { clause, segments, tokenIndex, memo: new Map() };
}

const CLAUSE_CACHE_LIMIT = 512;
const clauseCache = new Map<string, ClauseIndex>();

/**
 * `indexClause` with a small LRU cache: the eleven analysts of a review all ask about the same
 * clause, so the tokenising work is done once per clause rather than once per call.
 */
export function clauseIndexFor(clause: string): ClauseIndex {
  const cached = clauseCache.get(clause);
  if (cached) {
    clauseCache.delete(clause);
    clauseCache.set(clause, cached);
    return cached;
  }
  const index = indexClause(clause);
  clauseCache.set(clause, index);
  if (clauseCache.size > CLAUSE_CACHE_LIMIT) {
    const oldest = clauseCache.keys().next().value;
    if (oldest !== undefined) clauseCache.delete(oldest);
  }
  return index;
}
