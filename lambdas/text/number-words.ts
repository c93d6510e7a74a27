/**
 * Whole numbers in English words, both ways: 36 ↔ "thirty-six", 120 ↔ "one hundred (and) twenty".
 * Contracts write numbers so ("thirty (30) days", "SECTION FOUR"); the negotiation restates them,
 * the clause splitter reads spelled section numbers, and the offline analyst measures positions
 * with them.
 */

/** "zero" to "nineteen", each at its value. */
export const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
] as const;

/** The tens, each at its tenth ("twenty" at 2). */
export const TENS = [
  '',
  '',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'sixty',
  'seventy',
  'eighty',
  'ninety',
] as const;

/** Every number word below a hundred that stands alone, to its value ("thirty" → 30). */
export const WORD_VALUES: ReadonlyMap<string, number> = new Map<string, number>([
  ...ONES.map((w, i) => [w, i] as const),
  ...TENS.flatMap((w, i) => (w ? [[w, i * 10] as const] : [])),
]);

/** A regular-expression alternation matching one number word ("thirty", "hundred", "thousand"). */
export const NUMBER_WORD = `(?:${[...WORD_VALUES.keys(), 'hundred', 'thousand'].join('|')})`;

/**
 * A whole number below a million in words: 180 → "one hundred eighty", or with `hundredAnd`
 * "one hundred and eighty" (the British style some contracts use).
 */
export function numberWords(n: number, options: { readonly hundredAnd?: boolean } = {}): string {
  if (n < 20) return ONES[n] ?? String(n);
  if (n < 100) {
    const rest = n % 10;
    return `${TENS[Math.floor(n / 10)]}${rest ? `-${ONES[rest]}` : ''}`;
  }
  if (n < 1000) {
    const rest = n % 100;
    const and = options.hundredAnd ? ' and' : '';
    return `${ONES[Math.floor(n / 100)]} hundred${rest ? `${and} ${numberWords(rest, options)}` : ''}`;
  }
  const rest = n % 1000;
  return `${numberWords(Math.floor(n / 1000), options)} thousand${rest ? ` ${numberWords(rest, options)}` : ''}`;
}

/** The value of a number written in words ("one hundred and eighty", "twenty-four"), or undefined. */
export function wordsValue(words: string): number | undefined {
  let total = 0;
  let current = 0;
  let seen = false;
  for (const w of words.toLowerCase().split(/[\s-]+/)) {
    if (w === '' || w === 'and') continue;
    const v = WORD_VALUES.get(w);
    if (v !== undefined) current += v;
    else if (w === 'hundred') current = (current || 1) * 100;
    else if (w === 'thousand') {
      total += (current || 1) * 1000;
      current = 0;
    } else return undefined;
    seen = true;
  }
  return seen ? total + current : undefined;
}
