/** number-words.ts: whole numbers to English words and back. */
import { describe, expect, it } from 'vitest';
import { numberWords, ONES, WORD_VALUES, wordsValue } from '../../../lambdas/text/number-words.js';

describe('number words', () => {
  it.each([
    [7, 'seven', 'seven'],
    [36, 'thirty-six', 'thirty-six'],
    [90, 'ninety', 'ninety'],
    [180, 'one hundred eighty', 'one hundred and eighty'],
    [200, 'two hundred', 'two hundred'],
    [2024, 'two thousand twenty-four', 'two thousand twenty-four'],
    [120_500, 'one hundred twenty thousand five hundred', 'one hundred and twenty thousand five hundred'],
  ])('%d in words: "%s", or with "and" after hundred "%s"', (n, plain, british) => {
    expect(numberWords(n)).toBe(plain);
    expect(numberWords(n, { hundredAnd: true })).toBe(british);
    expect(wordsValue(plain)).toBe(n);
    expect(wordsValue(british)).toBe(n);
  });

  it('reads no number where a word is not a number word', () => {
    expect(wordsValue('ninety days')).toBeUndefined();
    expect(wordsValue('')).toBeUndefined();
    expect(wordsValue('and')).toBeUndefined();
  });

  it('holds each word at its value', () => {
    expect(ONES[13]).toBe('thirteen');
    expect(WORD_VALUES.get('forty')).toBe(40);
    expect(WORD_VALUES.has('hundred')).toBe(false);
  });
});
