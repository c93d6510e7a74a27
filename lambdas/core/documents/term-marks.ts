/**
 * The marks a contract uses to give something a name for the rest of the document: a quoted
 * term in parentheses (`("Licensee")`, `(the “Company”)`, `(hereinafter referred to as
 * "Distributor")`), an unquoted one after "the" or "hereinafter" (`(the COMPANY)`), and a
 * "hereinafter called the Supplier" outside parentheses. Both the parties reader and the
 * defined-terms reader stand on these, so a quote style read by one is read by the other.
 *
 * Every scan here is a single forward pass over the span it is given, so no text makes it take
 * time in the square of its length.
 */

/** Terms that name all the parties together or each of them, never one party. */
const COLLECTIVE = new Set([
  'party',
  'parties',
  'contracting party',
  'contracting parties',
  'signatory',
  'signatories',
  'member',
  'members',
  'partner',
  'partners',
]);

/** True when `term` names the parties together ("Parties") or any one of them ("Party"). */
export function isCollectiveTerm(term: string): boolean {
  return COLLECTIVE.has(term.toLowerCase());
}

/**
 * A quoted term: straight or curly double quotes, curly single quotes, or straight single quotes
 * around a capitalised term; bold or italic markers (`**`, `__`) around or inside the quotes.
 */
const QUOTED =
  /[*_]{0,2}(?:["“”„«]\s?[*_]{0,2}([^"“”„«»\n]{1,80}?)[*_]{0,2}\s?["”“»]|‘[*_]{0,2}([^‘’\n]{1,80}?)[*_]{0,2}’|(?<![A-Za-z])'[*_]{0,2}([A-Z][^'\n]{0,79}?)[*_]{0,2}'(?![A-Za-z]))[*_]{0,2}/g;

/** A term as a contract quotes it, cleaned: no markers, no trailing punctuation, no leading "the". */
export function cleanTerm(raw: string): string | undefined {
  const term = raw
    .replace(/[*_]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[,.;:]+$/, '')
    .replace(/^(?:the|The|THE)\s+/, '')
    .trim();
  if (!/[A-Za-z]/.test(term) || term.length > 80 || term.split(' ').length > 10) return undefined;
  return term;
}

/** A term found in a span, with the offset of its first character in the whole text. */
export interface FoundTerm {
  readonly term: string;
  readonly at: number;
  /** Offset just past the quote that closes it. */
  readonly end: number;
}

/** The quoted terms of `text` between `from` and `to`, in order. */
export function quotedTerms(text: string, from: number, to: number): FoundTerm[] {
  const span = text.slice(from, to);
  const out: FoundTerm[] = [];
  for (const m of span.matchAll(QUOTED)) {
    const raw = m[1] ?? m[2] ?? m[3] ?? '';
    const term = cleanTerm(raw);
    const start = from + (m.index ?? 0);
    if (!term) continue;
    // The offset of the term as cleaned: past a leading "the" or a marker inside the quotes.
    const inner = Math.max(0, raw.indexOf(term));
    out.push({ term, at: start + m[0].indexOf(raw) + inner, end: start + m[0].length });
  }
  return out;
}

/** What a term in a mark names. */
export type MarkRole = 'name' | 'alias' | 'group' | 'collective';

/** One term of a mark and what it names. */
export interface MarkedTerm extends FoundTerm {
  /**
   * `name`: what the thing before the mark is called from now on; `alias`: another name for it
   * (`("SFDC" or "Salesforce")`, `(in such capacity, the "Servicer")`); `group`: a name for it
   * with others (`together with …, the "Sellers"`); `collective`: the parties together or each.
   */
  readonly role: MarkRole;
}

/** A mark: where it is and the terms it gives. */
export interface TermMark {
  readonly start: number;
  readonly end: number;
  readonly terms: readonly MarkedTerm[];
}

/** The spans of the top-level parentheses (ASCII or full-width) between `from` and `to`. */
export function parentheses(text: string, from: number, to: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  let open = -1;
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = text[i];
    if (c === '(' || c === '（') {
      if (depth === 0) open = i;
      depth++;
    } else if ((c === ')' || c === '）') && depth > 0) {
      depth--;
      // A parenthesis that runs on for paragraphs is a stray bracket, not a mark.
      if (depth === 0 && i - open <= 400) out.push({ start: open, end: i + 1 });
    }
    if (depth > 0 && i - open > 400) depth = 0;
  }
  return out;
}

const GROUP_LEAD = /\b(?:collectively|together|each|individually|separately|severally)\b/i;
const EACH_FIRST = /^\s*(?:[(（]\s*)?(?:each|individually|separately|severally)\b/i;

/** The roles of the quoted terms of one parenthesis. */
function rolesIn(text: string, paren: { start: number; end: number }): MarkedTerm[] {
  const found = quotedTerms(text, paren.start, paren.end);
  const eachFirst = EACH_FIRST.test(text.slice(paren.start, paren.end));
  const out: MarkedTerm[] = [];
  let from = paren.start + 1;
  let named = false;
  for (const f of found) {
    const lead = text.slice(from, f.at);
    from = f.end;
    let role: MarkRole;
    if (isCollectiveTerm(f.term) || eachFirst) role = 'collective';
    else if (!named) role = 'name';
    else role = GROUP_LEAD.test(lead) ? 'group' : 'alias';
    if (role === 'name') named = true;
    out.push({ ...f, role });
  }
  return out;
}

/** `(the COMPANY)`, `(hereinafter Licensee)`: an unquoted name after "the" or "hereinafter". */
const UNQUOTED_PAREN =
  /^[(（]\s*(?:(?:here(?:in)?after|herein)\s*,?\s*(?:(?:referred\s+to|called|known|designated)\s+(?:as\s+)?)?(?:the\s+)?|the\s+)([A-Z][A-Za-z0-9&.'’-]*(?:\s+[A-Z][A-Za-z0-9&.'’-]*){0,3})\s*[)）]$/;

/** The mark a parenthesis makes, or undefined when it names nothing. */
function parenMark(text: string, paren: { start: number; end: number }): TermMark | undefined {
  const terms = rolesIn(text, paren);
  if (terms.length > 0) return { ...paren, terms };
  const m = UNQUOTED_PAREN.exec(text.slice(paren.start, paren.end));
  const term = m?.[1] && cleanTerm(m[1]);
  if (!m?.[1] || !term) return undefined;
  const at = paren.start + m[0].lastIndexOf(m[1]);
  const role = isCollectiveTerm(term) ? 'collective' : 'name';
  return { ...paren, terms: [{ term, at, end: at + m[1].length, role }] };
}

/** "hereinafter (referred to as | called) (the)", "referred to (herein) as": a name follows. */
const HEREINAFTER =
  /\b(?:(?:here(?:in)?after|herein)\s*,?\s*(?:(?:referred\s+to|called|known|designated|named)\s+(?:herein\s+)?(?:as\s+)?)?|(?:referred\s+to|known)\s+(?:herein\s+)?as\s+)(?:the\s+)?/gi;
/** An unquoted name after "hereinafter called the": capitalised words. */
const BARE_NAME = /^([A-Z][A-Za-z0-9&'’-]*(?:\s+[A-Z][A-Za-z0-9&'’-]*){0,3})/;
const QUOTED_AT_START = new RegExp(`^${QUOTED.source}`);

/** The "hereinafter …" marks outside parentheses between `from` and `to`. */
function hereinafterMarks(
  text: string,
  from: number,
  to: number,
  inside: (at: number) => boolean,
): TermMark[] {
  const out: TermMark[] = [];
  const span = text.slice(from, to);
  for (const m of span.matchAll(HEREINAFTER)) {
    const start = from + (m.index ?? 0);
    if (inside(start)) continue;
    const rest = span.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 100);
    const q = QUOTED_AT_START.exec(rest);
    const raw = q ? (q[1] ?? q[2] ?? q[3]) : BARE_NAME.exec(rest)?.[1];
    const term = raw && cleanTerm(raw);
    if (!raw || !term) continue;
    const at = start + m[0].length + rest.indexOf(raw);
    const end = start + m[0].length + (q ? q[0].length : raw.length);
    out.push({
      start,
      end,
      terms: [{ term, at, end, role: isCollectiveTerm(term) ? 'collective' : 'name' }],
    });
  }
  return out;
}

/** Every mark between `from` and `to`, in order. */
export function marksIn(text: string, from: number, to: number): TermMark[] {
  const parens = parentheses(text, from, to);
  const inside = (at: number) => {
    // The parentheses are in order and do not overlap: find the last one opening before `at`.
    let lo = 0;
    let hi = parens.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((parens[mid]?.start ?? 0) < at) lo = mid;
      else hi = mid - 1;
    }
    const p = parens[lo];
    return !!p && at > p.start && at < p.end;
  };
  const marks = [
    ...parens.flatMap((p) => parenMark(text, p) ?? []),
    ...hereinafterMarks(text, from, to, inside),
  ];
  return marks.sort((a, b) => a.start - b.start);
}
