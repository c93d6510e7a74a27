/**
 * Cost ceiling of a job whose upload names none, in micro-dollars ($20): intake, the status API,
 * the local ground, the CLI's `--ceiling` default and the app's and the add-in's ceiling field
 * all read it here.
 */
export const DEFAULT_CEILING_MICROS = 20_000_000;

/**
 * Micro-dollars as a person reads them: cents from a cent up (`$12.40`), four decimals below a
 * cent (`$0.0041`), where a small contract's whole review now lands, and six below a hundredth of
 * a cent (`$0.000012`), so a ceiling or a quote of a fraction of a cent is never shown as `$0.00`.
 * Pure and browser-safe: the reviewer app, the add-in, intake and the CLI print money with it.
 */
export function money(micros: number): string {
  const usd = micros / 1_000_000;
  const abs = Math.abs(usd);
  const decimals = abs === 0 || abs >= 0.01 ? 2 : abs >= 0.0001 ? 4 : 6;
  return `${usd < 0 ? '-' : ''}$${abs.toFixed(decimals)}`;
}

/** Dollars as {@link money} shows them. */
export const dollars = (usd: number): string => money(Math.round(usd * 1_000_000));
