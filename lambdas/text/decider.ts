/**
 * How a decision names who made it, wherever it is shown (report.html, report.docx, the app,
 * the CLI): the name the user pool vouched for, beside the person's permanent id; a decision
 * without a user pool sign-in names its principal.
 */

/** The parts of a decision (or a finding's review) that say who decided. */
export interface DeciderFields {
  readonly by?: string;
  readonly bySub?: string;
  readonly byName?: string;
}

/** Who decided: `name` when the pool vouched for one, and `id`, the `sub` or else the principal. */
export function deciderOf(d: DeciderFields): { readonly name?: string; readonly id: string } {
  const id = d.bySub ?? d.by ?? '';
  return d.byName ? { name: d.byName, id } : { id };
}

/**
 * The decider as one line of text: `name (id)`, or the id alone.
 *
 * @example
 * deciderText({ by: 'cognito-identity:us-east-1:ab', bySub: '1f2e…', byName: 'ana@example.com' });
 * // 'ana@example.com (1f2e…)'
 */
export function deciderText(d: DeciderFields): string {
  const { name, id } = deciderOf(d);
  return name ? `${name} (${id})` : id;
}
