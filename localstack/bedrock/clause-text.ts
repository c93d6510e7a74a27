/**
 * Clause text handling for the heuristic analyst: find the clause in a Converse request, cut it
 * into sentences with exact offsets (so quotes are verbatim substrings; the cut is the relevance
 * screen's own, core/screen/sentences.ts), and tokenise it once into an index that keyword
 * matching can probe cheaply.
 */

import { isWordChar, type Segment, segmentClause } from '../../lambdas/core/screen/index.js';

export { type Segment, segmentClause } from '../../lambdas/core/screen/index.js';

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
