import { ONES } from '../../text/number-words.js';
import { romanValue } from './roman.js';

/**
 * What a clause label looks like in print:
 * - `division`: `ARTICLE IV`, `Article 4`, `Section 2.3`, `SECTION 5`, `§ 7`;
 * - `annex`: `EXHIBIT A`, `Schedule 2`, `APPENDIX I` (start a new numbering);
 * - `number`: `1.`, `1.1`, `1.1.1`, `12.3(a)`;
 * - `sub`: `(a)`, `(iv)`, `(B)`, `(3)`, and at line start also `a)`, `a.`, `iv.`, `A.`;
 * - `keyword`: the recital and testimonium openers `WHEREAS`, `NOW, THEREFORE`, `IN WITNESS WHEREOF`.
 */
export type MarkerKind = 'division' | 'annex' | 'number' | 'sub' | 'keyword';

/** One way to read a sub-clause token: `(i)` is a letter after `(h)` and a numeral otherwise. */
export interface SubReading {
  /** Numbering style: wrapper plus alphabet, e.g. `()alpha`, `.ROMAN`. */
  readonly style: string;
  /** Position in its sequence, 1-based (`c` = 3, `iv` = 4). */
  readonly value: number;
}

/** A label found at some position of a line. */
export interface Marker {
  readonly kind: MarkerKind;
  /** The label as printed, tidied: `1.` becomes `1`; for a keyword, the keyword itself. */
  readonly label: string;
  /** Characters the label spans, from where it was found. */
  readonly length: number;
  /** Numeric path of `number` and `division` labels: `12.3(a)` -> [12, 3], `ARTICLE IV` -> [4]. */
  readonly path?: readonly number[];
  /** Readings of a `sub` label, or of the sub-labels trailing a number (`12.3(a)(ii)`). */
  readonly subs?: readonly (readonly SubReading[])[];
  /** True for `ARTICLE`/`SECTION` written in capitals: a strong signal wherever it appears. */
  readonly shouting?: boolean;
  /** What follows the label on the line: nothing, an upper-case start, a lower-case word, or other. */
  readonly follow: 'end' | 'upper' | 'lower' | 'other';
  /** True when the label is written in a form accepted only at the start of a line (`a)`, `a.`). */
  readonly lineStartOnly?: boolean;
}

/** Numbers spelled out after ARTICLE or SECTION ("SECTION FOUR. REMUNERATION"). */
const SPELLED: readonly string[] = [...ONES.slice(1), 'twenty'];
const SPELLED_PATTERN = SPELLED.map((w) => `${w.toUpperCase()}|${w[0]?.toUpperCase()}${w.slice(1)}`).join(
  '|',
);

const DIVISION = new RegExp(
  `(ARTICLE|Article|SECTION|Section|§{1,2})[ ]?(${SPELLED_PATTERN}|[IVXLC]{1,7}|\\d{1,6}(?:\\.\\d{1,4}){0,3}|[A-Z])\\.?(?=$|[ :\\-–—,)])`,
  'y',
);
const ANNEX =
  /(EXHIBIT|Exhibit|SCHEDULE|Schedule|APPENDIX|Appendix|ANNEX|Annex|ATTACHMENT|Attachment|ADDENDUM|Addendum)[ ]([A-Z]{1,2}(?:-\d{1,3})?|\d{1,3}(?:\.\d{1,3})?|[IVXLC]{1,6})\.?(?=$|[ :\-–—,)])/y;
// The look-ahead refuses what continues a number rather than ending a label: 1.5%, 12/31, 10:30, 1,000.
const NUMBER = /(\d{1,6})((?:\.\d{1,4}){0,4})(\.)?((?:\([a-zA-Z0-9]{1,4}\)){0,3})(?![\d%/:,\-\w]|\.\d)/y;
const PAREN = /\(([a-zA-Z]{1,7}|\d{1,2})\)(?=$| )/y;
const RIGHT_PAREN = /([a-z]|[ivx]{1,5}|\d{1,2})\)(?=$| )/y;
const LETTER_DOT = /([a-zA-Z]|[ivx]{2,5}|[IVX]{2,6})\.(?=$| )/y;
const KEYWORD = /(WHEREAS|NOW,? THEREFORE|IN WITNESS WHEREOF)(?![A-Za-z])/y;

/** Classifies the character after a label (skipping one space). */
function followOf(line: string, at: number): Marker['follow'] {
  let i = at;
  while (line[i] === ' ') i++;
  const c = line[i];
  if (c === undefined) return 'end';
  if (/[\p{Lu}\d"“'‘([]/u.test(c)) return 'upper';
  if (/\p{Ll}/u.test(c)) return 'lower';
  return 'other';
}

/** The readings of a sub-clause token: letter, Roman numeral or number, per case. */
function subReadings(token: string, wrapper: string): SubReading[] {
  if (/^\d+$/.test(token)) return [{ style: `${wrapper}num`, value: Number(token) }];
  const upper = token === token.toUpperCase();
  const readings: SubReading[] = [];
  const lower = token.toLowerCase();
  // Single letters, and doubled letters (aa, bb) that continue a list past z.
  if (/^([a-z])\1?$/.test(lower)) {
    const letter = (lower.charCodeAt(0) - 96) as number;
    readings.push({
      style: `${wrapper}${upper ? 'ALPHA' : 'alpha'}`,
      value: letter + (lower.length - 1) * 26,
    });
  }
  const roman = romanValue(lower);
  if (roman !== undefined) readings.push({ style: `${wrapper}${upper ? 'ROMAN' : 'roman'}`, value: roman });
  return readings;
}

/**
 * Reads a clause label starting exactly at `at` in `line`, or returns undefined. Only the shape is
 * checked here; whether the label is believable where it stands (sequence, context) is decided by
 * the splitter.
 */
export function parseMarkerAt(line: string, at: number): Marker | undefined {
  const c = line[at];
  if (c === undefined) return undefined;
  if (c >= '0' && c <= '9') return parseNumber(line, at);
  if (c === '(') return parseParen(line, at);
  let m = match(KEYWORD, line, at);
  if (m !== null) {
    return { kind: 'keyword', label: m[0], length: m[0].length, follow: followOf(line, at + m[0].length) };
  }
  m = match(DIVISION, line, at);
  if (m !== null) {
    const keyword = m[1] as string;
    const ident = m[2] as string;
    // Section A has no number; a lone I, V or X is read as a numeral (ARTICLE V).
    const spelled = SPELLED.indexOf(ident.toLowerCase()) + 1;
    const roman = spelled > 0 ? spelled : romanValue(ident);
    const path = /^\d/.test(ident) ? ident.split('.').map(Number) : roman === undefined ? undefined : [roman];
    const label = `${keyword} ${ident}`;
    return {
      kind: 'division',
      label,
      length: m[0].length,
      ...(path === undefined ? {} : { path }),
      shouting: keyword === 'ARTICLE' || keyword === 'SECTION',
      follow: followOf(line, at + m[0].length),
    };
  }
  m = match(ANNEX, line, at);
  if (m !== null) {
    return {
      kind: 'annex',
      label: `${m[1]} ${m[2]}`,
      length: m[0].length,
      shouting: m[1] === (m[1] as string).toUpperCase(),
      follow: followOf(line, at + m[0].length),
      lineStartOnly: true,
    };
  }
  m = match(RIGHT_PAREN, line, at);
  if (m !== null) return sub(line, at, m, ')', true);
  m = match(LETTER_DOT, line, at);
  if (m !== null) return sub(line, at, m, '.', true);
  return undefined;
}

function match(re: RegExp, line: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(line);
}

function sub(
  line: string,
  at: number,
  m: RegExpExecArray,
  wrapper: string,
  lineStartOnly: boolean,
): Marker | undefined {
  const token = m[1] as string;
  const readings = subReadings(token, wrapper);
  if (readings.length === 0) return undefined;
  return {
    kind: 'sub',
    label: m[0],
    length: m[0].length,
    subs: [readings],
    follow: followOf(line, at + m[0].length),
    ...(lineStartOnly ? { lineStartOnly } : {}),
  };
}

function parseParen(line: string, at: number): Marker | undefined {
  const m = match(PAREN, line, at);
  if (m === null) return undefined;
  return sub(line, at, m, '()', false);
}

function parseNumber(line: string, at: number): Marker | undefined {
  const m = match(NUMBER, line, at);
  if (m !== null) {
    const [whole, first, rest, dot, trailing] = m as unknown as [string, string, string, string?, string?];
    // A bare integer ("30 days") is never a label; "3." "3.1" and "3(a)" are.
    if (rest !== '' || dot !== undefined || (trailing ?? '') !== '') {
      const path = [first, ...rest.split('.').slice(1)].map(Number);
      const components = [first, ...rest.split('.').slice(1)];
      // 1.000.000 is an amount, 0. is not a clause number.
      if (components.every((p) => p.length < 3 || !p.startsWith('0')) && (path[0] as number) > 0) {
        const subs = [...(trailing ?? '').matchAll(/\(([a-zA-Z0-9]{1,4})\)/g)].map((s) =>
          subReadings(s[1] as string, '()'),
        );
        if (subs.every((r) => r.length > 0)) {
          return {
            kind: 'number',
            label: `${first}${rest}${trailing ?? ''}`,
            length: whole.length,
            path,
            ...(subs.length > 0 ? { subs } : {}),
            follow: followOf(line, at + whole.length),
          };
        }
      }
    }
  }
  const r = match(RIGHT_PAREN, line, at);
  return r === null ? undefined : sub(line, at, r, ')', true);
}
