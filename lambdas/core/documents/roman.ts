const ROMAN = /^(?=[mdclxvi])(m{0,3})(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$/i;
const DIGITS: Readonly<Record<string, number>> = { i: 1, v: 5, x: 10, l: 50, c: 100, d: 500, m: 1000 };

/** Value of a well-formed Roman numeral (either case), or undefined for anything else (`iiii`, `vx`). */
export function romanValue(numeral: string): number | undefined {
  if (!ROMAN.test(numeral)) return undefined;
  const s = numeral.toLowerCase();
  let total = 0;
  for (let i = 0; i < s.length; i++) {
    const v = DIGITS[s[i] as string] as number;
    const next = DIGITS[s[i + 1] as string] ?? 0;
    total += v < next ? -v : v;
  }
  return total;
}
