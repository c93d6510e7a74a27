/**
 * Finding a clause of the report in the open Word document by its text. The report's clause
 * text is the pipeline's normalised text; Word's paragraphs hold what the person sees, with
 * Word's own characters (smart quotes and dashes from AutoFormat, no-break spaces, tabs, manual
 * line breaks, optional hyphens). Both are folded the same way, character by character, keeping
 * where each folded character came from, so a match in the folded text leads back to exact
 * offsets in Word's paragraphs. A clause is placed only where its folded text occurs exactly
 * once: text that was edited, or that repeats, is reported and never placed somewhere near.
 */

/** Characters that fold to a straight single quote, a straight double quote, a hyphen. */
const SINGLE_QUOTES = new Set(['\u2018', '\u2019', '\u201a', '\u201b', '\u2032', '\u2035']);
const DOUBLE_QUOTES = new Set(['\u201c', '\u201d', '\u201e', '\u201f', '\u2033', '\u2036']);
/** Hyphens and dashes, with Word's non-breaking hyphen (U+001E in its text). */
const DASHES = new Set(['\u001e', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212']);
/** Invisible in print: the soft hyphen, Word's optional hyphen (U+001F), zero-width characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: Word writes its optional hyphen as U+001F.
const INVISIBLE = /^[\u00ad\u001f\u200b-\u200d\u2060\ufeff]$/;
/** Whitespace of any kind, Word's manual line break (U+000B) and paragraph mark (CR) among them. */
const SPACE = /^[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: Word marks fields, objects and cells with control characters.
const CONTROL = /^[\u0000-\u001f\u007f-\u009f]$/;

/** Text folded for matching, with the source offsets of each folded character. */
export interface Folded {
  readonly text: string;
  /** `from[i]`: where the source character of folded character `i` starts. */
  readonly from: readonly number[];
  /** `to[i]`: where it ends (a surrogate pair is two code units). */
  readonly to: readonly number[];
}

/** What one source character becomes: '' when it is dropped, ' ' for any whitespace. */
function foldChar(c: string): string {
  if (SPACE.test(c)) return ' ';
  if (INVISIBLE.test(c)) return '';
  if (SINGLE_QUOTES.has(c)) return "'";
  if (DOUBLE_QUOTES.has(c)) return '"';
  if (DASHES.has(c)) return '-';
  if (CONTROL.test(c)) return '';
  if (c === '\u2026') return '...';
  return c.normalize('NFKC').toLowerCase();
}

/**
 * Folds text for matching: whitespace runs become one space (none at either end), invisible and
 * control characters go, quotes, dashes and the ellipsis become their plain forms, and the rest
 * is NFKC and lower case.
 *
 * @example
 * fold('“Fees”\u00a0due').text; // '"fees" due'
 */
export function fold(source: string): Folded {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  let at = 0;
  for (const c of source) {
    const end = at + c.length;
    const f = foldChar(c);
    if (f === ' ') {
      if (text !== '' && !text.endsWith(' ')) {
        text += ' ';
        from.push(at);
        to.push(end);
      }
    } else {
      for (const part of f) {
        text += part;
        from.push(at);
        to.push(end);
      }
    }
    at = end;
  }
  if (text.endsWith(' ')) {
    text = text.slice(0, -1);
    from.pop();
    to.pop();
  }
  return { text, from, to };
}

/** Every start of `needle` in `haystack`, not overlapping. */
export function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) {
    found.push(i);
  }
  return found;
}

/** A place in Word's text: a paragraph and a UTF-16 offset into its `text`. */
export interface TextPoint {
  readonly paragraph: number;
  readonly offset: number;
}

/** Where a span of a clause lies in Word's paragraphs: [from, to). */
export interface TextSpan {
  readonly from: TextPoint;
  readonly to: TextPoint;
}

/** A clause found once, with the way from offsets in its text to Word's. */
export interface Placed {
  readonly kind: 'placed';
  readonly span: TextSpan;
  /**
   * Where the clause's text from `start` to `end` (offsets into the clause text) lies in Word's
   * paragraphs; undefined for a span of nothing but whitespace and invisible characters, whose
   * place cannot be told.
   */
  readonly spanOf: (start: number, end: number) => TextSpan | undefined;
}

/** The outcome of looking a clause up: placed, or why not. */
export type Location =
  | Placed
  | { readonly kind: 'missing' }
  | { readonly kind: 'repeated'; readonly count: number }
  | { readonly kind: 'empty' };

/** Word's paragraphs as one folded text, paragraph breaks as spaces. */
export class DocumentText {
  private readonly folded: Folded;
  private readonly starts: number[] = [];

  constructor(readonly paragraphs: readonly string[]) {
    let at = 0;
    for (const p of paragraphs) {
      this.starts.push(at);
      at += p.length + 1;
    }
    this.folded = fold(paragraphs.join('\r'));
  }

  /** The paragraph and offset of an offset into the joined text. */
  private point(at: number): TextPoint {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= at) lo = mid;
      else hi = mid - 1;
    }
    return { paragraph: lo, offset: at - (this.starts[lo] ?? 0) };
  }

  /** The span of Word's text that folded characters [i, j) came from (j > i). */
  private spanOfFolded(i: number, j: number): TextSpan {
    return { from: this.point(this.folded.from[i] ?? 0), to: this.point(this.folded.to[j - 1] ?? 0) };
  }

  /** Looks a clause up by its text. */
  locate(clauseText: string): Location {
    const clause = fold(clauseText);
    if (clause.text === '') return { kind: 'empty' };
    const found = occurrences(this.folded.text, clause.text);
    if (found.length === 0) return { kind: 'missing' };
    if (found.length > 1) return { kind: 'repeated', count: found.length };
    const base = found[0] ?? 0;
    const spanOf = (start: number, end: number): TextSpan | undefined => {
      // The folded characters the clause's characters in [start, end) became.
      let i = clause.from.findIndex((f) => f >= start);
      let j = clause.to.findLastIndex((t) => t <= end) + 1;
      if (i < 0) i = clause.text.length;
      // A space that stands for whitespace at either edge of the span is not the span's own.
      while (i < j && clause.text[i] === ' ' && (clause.from[i] ?? 0) < start) i++;
      while (j > i && clause.text[j - 1] === ' ' && (clause.to[j - 1] ?? 0) > end) j--;
      return j > i ? this.spanOfFolded(base + i, base + j) : undefined;
    };
    return { kind: 'placed', span: this.spanOfFolded(base, base + clause.text.length), spanOf };
  }

  /**
   * How many times the text of paragraph `paragraph` from `start` to `end` occurs in that
   * paragraph, folded: a search for it finds it once only when this is 1.
   */
  timesInParagraph(paragraph: number, start: number, end: number): number {
    const text = this.paragraphs[paragraph] ?? '';
    return occurrences(fold(text).text, fold(text.slice(start, end)).text).length;
  }
}

/** Folded texts are equal: what the document holds is what the clause says. */
export function sameText(a: string, b: string): boolean {
  return fold(a).text === fold(b).text;
}
