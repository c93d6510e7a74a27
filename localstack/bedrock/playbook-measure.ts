/**
 * The numbers a clause states for a playbook position's measure, read from its own words:
 * periods ("thirty (30) days", "12 months", "one year"), percentages ("3%", "five per cent"),
 * multiples of the fees ("two times the fees", "200% of the charges", "the fees paid in the
 * six (6) months before the claim") and sums of money ("$500,000"). Each mention keeps its
 * offsets and how it was written, so a redline can write a new number the same way in the same
 * place.
 */
import { NUMBER_WORD, numberWords as wordsOf, wordsValue } from '../../lambdas/text/number-words.js';

/** A unit the stand-in reads in clause text. */
export type TextUnit = 'day' | 'business-day' | 'week' | 'month' | 'year' | 'percent' | 'times' | 'money';

/** How a number was written: `thirty (30)`, `30` or `thirty`. */
export type NumberStyle = 'words-and-digits' | 'digits' | 'words';

/** A number with its unit in the clause text. */
export interface Mention {
  readonly value: number;
  readonly unit: TextUnit;
  /** The whole mention, number and unit, as offsets into the clause text. */
  readonly start: number;
  readonly end: number;
  /** The number alone (`thirty (30)`), as offsets into the clause text. */
  readonly numberStart: number;
  readonly numberEnd: number;
  readonly style: NumberStyle;
}

/** Number words joined by spaces, hyphens or "and": "one hundred and twenty", "thirty-six". */
const WORDS = `${NUMBER_WORD}(?:(?:[ -]|\\s+and\\s+)${NUMBER_WORD})*`;
const DIGITS = '\\d{1,3}(?:,\\d{3})+(?:\\.\\d+)?|\\d+(?:\\.\\d+)?';
const NUMBER = `(?:(${WORDS})\\s*\\(\\s*(${DIGITS})\\s*\\)|(${DIGITS})|(${WORDS}))`;
const UNIT =
  '(calendar\\s+days?|business\\s+days?|working\\s+days?|banking\\s+days?|days?|weeks?|months?|years?|%|per\\s?cent|percent|times)';
const MENTION = new RegExp(`\\b${NUMBER}(\\s*(?:\\(\\s*\\d+\\s*\\)\\s*)?-?\\s*)${UNIT}`, 'gi');
const MONEY = /(?:US\s?)?\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(million|billion|thousand))?/gi;
const TWICE = /\b(twice|double)\b/gi;

function unitOf(text: string): TextUnit {
  const t = text.toLowerCase().replace(/\s+/g, ' ');
  if (t === '%' || t.startsWith('per') || t === 'percent') return 'percent';
  if (t === 'times') return 'times';
  if (/^(business|working|banking) /.test(t)) return 'business-day';
  if (t.startsWith('calendar') || t.startsWith('day')) return 'day';
  if (t.startsWith('week')) return 'week';
  if (t.startsWith('month')) return 'month';
  return 'year';
}

/**
 * Every number with a unit in `text`, in order.
 * @example mentions('within thirty (30) days')[0] // { value: 30, unit: 'day', style: 'words-and-digits', … }
 */
export function mentions(text: string): Mention[] {
  const out: Mention[] = [];
  for (const m of text.matchAll(MENTION)) {
    const [whole, words, digitsInWords, digits, wordsOnly, , unit] = m;
    const value =
      digitsInWords !== undefined
        ? Number(digitsInWords.replace(/,/g, ''))
        : digits !== undefined
          ? Number(digits.replace(/,/g, ''))
          : wordsValue(wordsOnly ?? words ?? '');
    if (value === undefined || !Number.isFinite(value)) continue;
    const start = m.index;
    const numberText = (words ?? '') || (digits ?? '') || (wordsOnly ?? '');
    const numberEnd = digitsInWords !== undefined ? text.indexOf(')', start) + 1 : start + numberText.length;
    out.push({
      value,
      unit: unitOf(unit ?? ''),
      start,
      end: start + whole.length,
      numberStart: start,
      numberEnd,
      style: digitsInWords !== undefined ? 'words-and-digits' : digits !== undefined ? 'digits' : 'words',
    });
  }
  for (const m of text.matchAll(TWICE)) {
    out.push({
      value: 2,
      unit: 'times',
      start: m.index,
      end: m.index + m[0].length,
      numberStart: m.index,
      numberEnd: m.index + m[0].length,
      style: 'words',
    });
  }
  for (const m of text.matchAll(MONEY)) {
    const scale = { million: 1e6, billion: 1e9, thousand: 1e3 }[(m[2] ?? '').toLowerCase()] ?? 1;
    const value = Number((m[1] ?? '').replace(/,/g, '')) * scale;
    out.push({
      value,
      unit: 'money',
      start: m.index,
      end: m.index + m[0].length,
      numberStart: m.index,
      numberEnd: m.index + m[0].length,
      style: 'digits',
    });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Days in one of each period a clause may name; months and years convert exactly between them. */
const DAYS: Partial<Record<TextUnit, number>> = {
  day: 1,
  'business-day': 7 / 5,
  week: 7,
  month: 30,
  year: 365,
};
const MONTHS: Partial<Record<TextUnit, number>> = { month: 1, year: 12 };

/** How many of a playbook unit one of a text unit makes; undefined when they do not convert. */
export function conversion(from: TextUnit, to: string): number | undefined {
  const days = DAYS[from];
  switch (to) {
    case 'days':
      return days;
    case 'business-days':
      return from === 'business-day' ? 1 : days !== undefined ? days * (5 / 7) : undefined;
    case 'months':
      return MONTHS[from] ?? (days !== undefined ? days / 30 : undefined);
    case 'years':
      return MONTHS[from] !== undefined
        ? (MONTHS[from] as number) / 12
        : days !== undefined
          ? days / 365
          : undefined;
    case 'percent':
      return from === 'percent' ? 1 : undefined;
    case 'multiple-of-fees':
      return from === 'times' ? 1 : from === 'percent' ? 1 / 100 : undefined;
    case 'money':
      return from === 'money' ? 1 : undefined;
  }
  return undefined;
}

/** Number words for a whole number below a million, as the offline analyst writes them: 120 → "one hundred and twenty". */
export function numberWords(n: number): string {
  return wordsOf(n, { hundredAnd: true });
}

/** A number written in a style: 30 → "thirty (30)", "30" or "thirty"; fractions in digits. */
export function writeNumber(n: number, style: NumberStyle): string {
  const digits = Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
  if (!Number.isInteger(n) || n >= 1_000_000 || style === 'digits') return digits;
  return style === 'words' ? numberWords(n) : `${numberWords(n)} (${digits})`;
}

/** A quantity in a playbook unit as words a clause would use: 30 days → "thirty (30) days". */
export function writeQuantity(n: number, unit: string, style: NumberStyle = 'words-and-digits'): string {
  const plural = n === 1 ? '' : 's';
  const number = writeNumber(n, style);
  switch (unit) {
    case 'days':
      return `${number} day${plural}`;
    case 'business-days':
      return `${number} business day${plural}`;
    case 'months':
      return `${number} month${plural}`;
    case 'years':
      return `${number} year${plural}`;
    case 'percent':
      return `${number} per cent`;
    case 'multiple-of-fees':
      return n === 2 && style === 'words' ? 'twice' : `${number} times`;
    default:
      return number;
  }
}
