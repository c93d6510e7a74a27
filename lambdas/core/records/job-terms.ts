/**
 * What a job records of its contract and its playbook: the playbook it was reviewed against, the
 * contract's type and parties and whose side the review takes, and the analysts the playbook
 * left out. The job record (state), the playbooks that fill these in and the report read them.
 */

/** Which side of the contract the playbook takes. */
export const PARTIES = [
  'customer',
  'supplier',
  'licensee',
  'licensor',
  'discloser',
  'recipient',
  'mutual',
] as const;
export type Party = (typeof PARTIES)[number];

/** A resolved playbook: the exact content a job was reviewed against. */
export interface PlaybookRef {
  readonly name: string;
  readonly version: number;
  /** sha256 (hex) of the playbook's canonical JSON. */
  readonly sha256: string;
}

/** What a job records of its playbook: the reference, and the title a report shows. */
export interface JobPlaybook extends PlaybookRef {
  readonly title: string;
}

/** A contract type, where it came from, and whether the playbook covers it. */
export interface ContractType {
  readonly type: string;
  readonly source: 'submitted' | 'detected' | 'playbook';
  /** The kind the contract was read as, and where ("Franchise Agreement", from the title). */
  readonly kind?: {
    readonly id: string;
    readonly label: string;
    readonly from: 'title' | 'body' | 'file-name';
  };
  /**
   * False when the playbook lists no such type: only its general topics apply. Absent on jobs
   * recorded before coverage was read, which took every type as covered.
   */
  readonly covered?: boolean;
  /** The playbook's own types, when it does not cover this one: what it is written for. */
  readonly covers?: readonly string[];
}

/** A party as the contract names it, read from its preamble. */
export interface JobParty {
  /** As the contract writes it: "Kiromic BioPharma, Inc.". */
  readonly name: string;
  /** The name the contract uses for it after the preamble: "Company", "Franchisee". */
  readonly defined?: string;
  /** The side its name reads as: `customer`, `supplier`, `franchisee`, … (`other` when it says none). */
  readonly side?: string;
}

/**
 * The contract's parties and whose side a review against a playbook takes: `us` the party the
 * review is for, `them` the other, each by the name the contract uses for it (`term`).
 */
export interface JobParties {
  /** Every party intake read, in the contract's order. */
  readonly found: readonly JobParty[];
  /** Why the parties could not be read (none, or only one). */
  readonly problem?: string;
  readonly us?: { readonly name: string; readonly term: string };
  readonly them?: { readonly name: string; readonly term: string };
  /** `submitted`: the job named its party; `inferred`: the playbook's side was matched to a party. */
  readonly source?: 'submitted' | 'inferred';
  /** How `us` was chosen, in plain words, for the report. */
  readonly how?: string;
  /** The side the playbook takes (`customer`), for which `us` was chosen; absent without a playbook. */
  readonly side?: Party;
}

/** An analyst the playbook gives nothing to judge, and why it was not asked. */
export interface NotAskedAnalyst {
  readonly analystId: string;
  readonly reason: 'playbook';
  readonly detail: string;
}
