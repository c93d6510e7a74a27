/**
 * A clause's words as two versions of a contract are compared: each word (a run of non-space
 * characters) with its place in the clause and a key that ignores what a reader would not call
 * a change. Quote and dash styles compare equal, spaces are not words, a clause's number at the
 * start of a line (`3.2`, `(b)`, `Section 4`, `ARTICLE IV`) compares equal to any other number
 * there, and a reference to a renumbered clause (`Section 3.2` where that clause is now 4.2)
 * compares equal to the reference to its new number.
 */

/** One word of a clause. */
export interface Token {
  /** Where it is in the clause's text. */
  readonly start: number;
  readonly end: number;
  /** What it is compared by. */
  readonly key: string;
  /** It is the clause's number (or a heading's) at the start of a line. */
  readonly label: boolean;
}

/** What every line-start number compares as. */
const LABEL_KEY = '\u0000label';

/** Words before which a number or letter is a clause's number, at the start of a line or in a reference. */
const SECTION_WORD =
  /^(?:sections?|articles?|clauses?|schedules?|exhibits?|appendix|annex|parts?|paragraphs?|§+)$/i;

/** Numbers that are labels at the start of a line on their own: dotted, lettered or in brackets. */
const LINE_LABEL =
  /^(?:\(?(?:\d{1,3}|[a-zA-Z]{1,2}|[ivxlcdmIVXLCDM]{1,6})\)|\d{1,3}[A-Z]?(?:\.\d{1,3}[A-Z]?)*\.|\d{1,3}[A-Z]?(?:\.\d{1,3}[A-Z]?)+|\d{1,3}[A-Z]?(?:\.\d{1,3}[A-Z]?)*(?:\([a-zA-Z0-9]{1,6}\))+\.?|[a-zA-Z]\.|[IVXLCDM]{1,6}\.)$/;
/** Numbers that are labels after a section word: any short number, letter or Roman numeral. */
const WORD_LABEL =
  /^(?:\d{1,3}[A-Z]?(?:\.\d{1,3}[A-Z]?)*(?:\([a-zA-Z0-9]{1,6}\))*|[a-zA-Z]|[IVXLCDMivxlcdm]{1,6})\.?$/;

/** Quote, apostrophe and dash styles, and the ellipsis, as one form each. */
const STYLES: readonly (readonly [RegExp, string])[] = [
  [/[\u2018\u2019\u201a\u201b\u2032\u0060\u00b4]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g, '"'],
  [/[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]/g, '-'],
  [/\u2026/g, '...'],
];

/** Printable ASCII other than the two quote-like marks folded below. */
const PLAIN = /^[\x21-\x5f\x61-\x7e]*$/;

/** A word in the form it is compared in: its quote, dash and Unicode compatibility forms folded. */
export function canonicalWord(word: string): string {
  // Most words are plain ASCII but for the backtick and the acute accent, which have a plain form.
  if (PLAIN.test(word)) return word;
  let out = word.normalize('NFKC');
  for (const [style, plain] of STYLES) out = out.replace(style, plain);
  return out;
}

/**
 * A clause's number or a reference, bare: without a section word, brackets or punctuation around
 * it, and without a `(part 2)` the splitter adds to a long clause's parts.
 * @example labelCore('Section 4.2(a)') // '4.2(a)'
 * @example labelCore('3.2),') // '3.2'
 */
export function labelCore(label: string): string {
  let core = label
    .replace(/\s*\(part \d+\)$/, '')
    .replace(
      /^(?:sections?|articles?|clauses?|schedules?|exhibits?|appendix|annex|parts?|paragraphs?|§+)\s*/i,
      '',
    )
    .replace(/^["'[]+/, '')
    .replace(/[.,;:"'\]]+$/, '');
  const open = (core.match(/\(/g) ?? []).length;
  const close = (core.match(/\)/g) ?? []).length;
  if (close > open) core = core.replace(/\)+$/, '');
  if (open > close) core = core.replace(/^\(+/, '');
  return core;
}

/**
 * Renumbered clauses: each old number (bare, {@link labelCore}) to its new one. A number given
 * two new ones is left out: which one a reference means cannot be told.
 */
export type Renumbering = ReadonlyMap<string, string>;

/** The renumbering that pairs of clauses (our label, their label) show. */
export function renumberingOf(
  pairs: Iterable<readonly [string | undefined, string | undefined]>,
): Renumbering {
  const map = new Map<string, string | null>();
  for (const [ours, theirs] of pairs) {
    if (ours === undefined || theirs === undefined) continue;
    const from = labelCore(ours);
    const to = labelCore(theirs);
    if (from === '' || to === '' || from === to) continue;
    // "2.4(a)" renumbered "2.5(a)" renumbers the section a reference calls "2.4" too.
    const sub = /(?:\([^()]+\))+$/.exec(from)?.[0];
    const entries: [string, string][] = [[from, to]];
    if (sub && to.endsWith(sub) && from.length > sub.length && to.length > sub.length)
      entries.push([from.slice(0, -sub.length), to.slice(0, -sub.length)]);
    for (const [x, y] of entries) {
      const known = map.get(x);
      map.set(x, known === undefined || known === y ? y : null);
    }
  }
  return new Map([...map].filter((e): e is [string, string] => e[1] !== null));
}

/**
 * The words of a clause's text. With a renumbering, a reference to an old number (a dotted one
 * anywhere, any one after a section word) takes its new number's key.
 */
export function tokensOf(text: string, renumbering?: Renumbering): Token[] {
  const out: Token[] = [];
  let lineFirst = 0;
  for (const m of text.matchAll(/\S+/g)) {
    const start = m.index;
    const word = m[0];
    const previous = out[out.length - 1];
    if (!previous || text.slice(previous.end, start).includes('\n')) lineFirst = out.length;
    const onLine = out.length - lineFirst;
    const afterSectionWord =
      previous !== undefined && SECTION_WORD.test(text.slice(previous.start, previous.end));
    const label =
      (onLine === 0 && LINE_LABEL.test(word)) || (onLine === 1 && afterSectionWord && WORD_LABEL.test(word));
    const key = label ? LABEL_KEY : referenceKey(word, afterSectionWord, renumbering);
    out.push({ start, end: start + word.length, key, label });
  }
  return out;
}

function referenceKey(word: string, afterSectionWord: boolean, renumbering: Renumbering | undefined): string {
  const key = canonicalWord(word);
  if (!renumbering || renumbering.size === 0) return key;
  const core = labelCore(key);
  // "2.4(a)" names a part of section 2.4: renumbered with it when it is not itself in the map.
  const section = /^(.+?)((?:\([^()]+\))*)$/.exec(core);
  const [whole, sub] = renumbering.has(core) ? [core, ''] : [section?.[1] ?? core, section?.[2] ?? ''];
  const renumbered = renumbering.get(whole);
  if (renumbered === undefined) return key;
  if (!afterSectionWord && !/^\d+[A-Z]?(?:\.\d+[A-Z]?)+/.test(whole)) return key;
  const at = key.indexOf(core);
  return at < 0 ? key : key.slice(0, at) + renumbered + sub + key.slice(at + core.length);
}

/** A clause's key as a whole: its words' keys, its numbers left out. Equal keys, equal clauses. */
export function clauseKey(tokens: readonly Token[]): string {
  let key = '';
  for (const t of tokens) if (!t.label) key += key === '' ? t.key : ` ${t.key}`;
  return key;
}
