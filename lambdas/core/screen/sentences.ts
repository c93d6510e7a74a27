/**
 * A clause cut into sentences, semicolon parts and lines, with exact offsets into the clause
 * text. The relevance screen scores each part as well as the whole clause, and the stand-in's
 * analysts quote the parts verbatim.
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

/** Letters (ASCII and beyond Latin-1's symbols) and digits. */
export const isWordChar = (code: number): boolean =>
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
