/**
 * What every output says of a review against a playbook, in the same words: whose side it was
 * reviewed for, whether the playbook covers the contract's kind, and where a redline's words came
 * from. Written once for the reports, the CLI, the reviewer app and the Word add-in.
 */

/** The parties as a job records them (structurally: this folder imports nothing else). */
export interface PartiesView {
  readonly found: readonly { readonly name: string; readonly defined?: string }[];
  readonly problem?: string;
  readonly us?: { readonly name: string; readonly term: string };
  readonly them?: { readonly name: string; readonly term: string };
  readonly source?: 'submitted' | 'inferred';
  readonly how?: string;
  /** The playbook's side, for which `us` was chosen. */
  readonly side?: string;
}

/** The contract type as a job records it. */
export interface ContractTypeView {
  readonly type: string;
  readonly kind?: { readonly label: string; readonly from: string };
  readonly covered?: boolean;
  /** The playbook's types, when it does not cover this one. */
  readonly covers?: readonly string[];
}

/**
 * "Reviewed for: Franchisee, the customer's side; the other side is Pretzel Time (inferred: …)",
 * in one line, with how it was chosen; or what kept the review from taking a party's side.
 *
 */
export function reviewedForText(parties: PartiesView | undefined): string | undefined {
  if (!parties?.side) return undefined;
  const side = parties.side === 'mutual' ? 'both sides' : `the ${parties.side}'s side`;
  const us = parties.us;
  if (!us) {
    const why = parties?.problem ? `: ${parties.problem}` : '';
    return `Reviewed for: ${side}, as the playbook is written; the contract's own party for it was not chosen${why}`;
  }
  const named = us.name !== us.term ? `${us.term} (${us.name})` : us.term;
  const other = parties?.them ? `; the other side is ${parties.them.term}` : '';
  const how =
    parties?.source === 'submitted'
      ? 'named by the submitter'
      : `inferred: ${parties?.how ?? 'from the playbook'}`;
  return `Reviewed for: ${named}, ${side}${other} (${how})`;
}

/**
 * Nothing for a contract the playbook covers; for one it does not, what that means: "This is a
 * Franchise Agreement, which playbook 'default' does not cover (services, supply, licence): only
 * its general positions were applied."
 */
export function coverageText(
  type: ContractTypeView | undefined,
  playbook: { readonly name: string },
): string | undefined {
  if (type?.covered !== false) return undefined;
  const label = type.kind?.label ?? `${type.type} contract`;
  const covers = type.covers?.length ? ` (it covers ${type.covers.join(', ')})` : '';
  return `This is a ${label}, which playbook '${playbook.name}' does not cover${covers}: only its general positions were applied, and no position written for another kind of contract proposes a change.`;
}

/** Where a redline's words came from, as a reader is told it. */
export function sourceText(source: 'playbook' | 'model' | undefined): string {
  return source === 'model'
    ? "Drafted by the model, not the playbook's language: read it against the playbook's beside it"
    : "The playbook's language, in the contract's names";
}

/** Whether a redline edits the clause's words or adds language to it, as a reader is told it. */
export function shapeText(shape: 'in-place' | 'appended' | undefined): string {
  return shape === 'appended'
    ? "Adds the playbook's language to the clause: no smaller edit of its own words reaches the position"
    : "Changes the clause's own words";
}
