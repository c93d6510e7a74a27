/**
 * A number in a contract's words restated as another, in the style it was written: "thirty (30)"
 * becomes "sixty (60)", "30" becomes "60", "thirty" becomes "sixty". A counter-proposal on a
 * measured position (a notice period, a cap) is the analysts' own number edit of the clause with
 * the fallback's number in place of the standard's, so it reads as the clause does.
 */
import { NUMBER_WORD, numberWords, wordsValue } from '../../text/number-words.js';

/** "thirty (30)", "one hundred eighty (180)", "two hundred per cent (200%)": words, then the digits in brackets. */
const WORDS_AND_DIGITS = new RegExp(
  `\\b(${NUMBER_WORD}(?:[\\s-]+(?:and[\\s-]+)?${NUMBER_WORD})*)(\\s+per\\s*cent)?\\s*\\((\\d+(?:\\.\\d+)?)(%?)\\)`,
  'i',
);
const DIGITS = /\b\d+(?:\.\d+)?\b/;
const WORDS = new RegExp(`\\b${NUMBER_WORD}(?:[\\s-]+(?:and[\\s-]+)?${NUMBER_WORD})*\\b`, 'i');
const TWICE = /\b(twice|double)\b/i;

/** The number a text states first, with where it is and how it is written. */
interface Stated {
  readonly value: number;
  readonly start: number;
  readonly end: number;
  readonly style: 'words-and-digits' | 'digits' | 'words';
  /** What stands between the words and the bracket ("per cent"), and after the digits ("%"). */
  readonly unit?: string;
  readonly sign?: string;
}

function statedIn(text: string): Stated | undefined {
  const both = WORDS_AND_DIGITS.exec(text);
  if (both) {
    const value = Number(both[3]);
    const at = { start: both.index, end: both.index + both[0].length };
    return { value, ...at, style: 'words-and-digits', unit: both[2] ?? '', sign: both[4] ?? '' };
  }
  const digits = DIGITS.exec(text);
  if (digits) {
    const value = Number(digits[0]);
    return { value, start: digits.index, end: digits.index + digits[0].length, style: 'digits' };
  }
  const words = WORDS.exec(text);
  const value = words ? wordsValue(words[0]) : undefined;
  if (words && value !== undefined)
    return { value, start: words.index, end: words.index + words[0].length, style: 'words' };
  const twice = TWICE.exec(text);
  if (twice) return { value: 2, start: twice.index, end: twice.index + twice[0].length, style: 'words' };
  return undefined;
}

/** A number in a style; a fraction, or a number past words' reach, in digits. */
function written(n: number, stated: Pick<Stated, 'style' | 'unit' | 'sign'>, capitals: boolean): string {
  const digits = Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
  const { style, unit = '', sign = '' } = stated;
  if (!Number.isInteger(n) || n >= 1_000_000 || style === 'digits')
    return `${digits}${unit}${sign && unit === '' ? sign : ''}`;
  const words = capitals ? numberWords(n).toUpperCase() : numberWords(n);
  return style === 'words' ? words : `${words}${unit} (${digits}${sign})`;
}

/**
 * `text` with the first number it states scaled by `factor`, written as that number was; undefined
 * when it states none. "twice" scaled by 0.75 is "1.5 times".
 *
 * @example restateNumber('thirty (30) days', 2) // 'sixty (60) days'
 * @example restateNumber('twenty-four (24) months', 0.75) // 'eighteen (18) months'
 */
export function restateNumber(text: string, factor: number): string | undefined {
  const stated = statedIn(text);
  if (!stated || !Number.isFinite(factor) || factor <= 0) return undefined;
  const value = Math.round(stated.value * factor * 100) / 100;
  const old = text.slice(stated.start, stated.end);
  const capitals = /[A-Z]{3}/.test(old) && old === old.toUpperCase();
  const replacement = TWICE.test(old)
    ? `${written(value, { style: 'digits' }, false)} times`
    : written(value, stated, capitals);
  return text.slice(0, stated.start) + replacement + text.slice(stated.end);
}
