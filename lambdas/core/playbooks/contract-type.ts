/**
 * The contract type a review takes a playbook's topics for. The submitter's type comes first;
 * else the kind the contract is read as (`readContractKind`: its title, what it says of itself,
 * the file's name), taken as the playbook's type that kind belongs to (a "Web Hosting Agreement"
 * is a services contract, a "Distributor Agreement" a supply one); else the playbook's only type.
 * A kind no type of the playbook covers (a franchise agreement against a services playbook) is
 * the type itself, `covered: false`: the review then applies the playbook's general topics only,
 * and says so.
 */
import { type ContractKindReading, readContractKind } from '../documents/index.js';
import type { ContractType } from '../records/job-terms.js';
import type { Playbook } from './schema.js';

export type { ContractType };

/** The type of the shipped playbooks each kind of contract belongs to, where one does. */
const TYPE_OF_KIND: Readonly<Record<string, string>> = {
  services: 'services',
  consulting: 'services',
  hosting: 'services',
  maintenance: 'services',
  outsourcing: 'services',
  development: 'services',
  transportation: 'services',
  supply: 'supply',
  manufacturing: 'supply',
  distribution: 'supply',
  reseller: 'supply',
  purchase: 'supply',
  licence: 'licence',
  'intellectual-property': 'licence',
  nda: 'nda',
};

/** The playbook's type a kind reads as: its own name, or the shipped types' mapping. */
function typeOfKind(types: readonly string[], kind: string): string | undefined {
  if (types.includes(kind)) return kind;
  const mapped = TYPE_OF_KIND[kind];
  return mapped !== undefined && types.includes(mapped) ? mapped : undefined;
}

/** What the contract says of itself, for `contractTypeFor`: its text, title and file name. */
export interface ContractWords {
  readonly text?: string;
  readonly title?: string;
  readonly fileName?: string;
}

/**
 * The contract type for a review against `playbook`.
 *
 * @param submitted the type the submitter gave (checked to be one of the playbook's by the caller)
 * @example contractTypeFor(playbook, undefined, { title: 'WEB HOSTING AGREEMENT' }) // { type: 'services', source: 'detected', covered: true, … }
 */
export function contractTypeFor(
  playbook: Pick<Playbook, 'contractTypes'>,
  submitted: string | undefined,
  words: ContractWords,
): ContractType | undefined {
  if (submitted !== undefined) return { type: submitted, source: 'submitted', covered: true };
  const reading: ContractKindReading = readContractKind(words.text ?? '', words.title, words.fileName);
  if (reading.kind && reading.source) {
    const kinds = reading.kinds.length > 0 ? reading.kinds : [reading.kind];
    const kind = { id: reading.kind, label: reading.label ?? reading.kind, from: reading.source };
    // A "Licence and Services Agreement" is a licence; a kind the playbook covers wins over one it does not.
    for (const k of kinds) {
      const type = typeOfKind(playbook.contractTypes, k);
      if (type) return { type, source: 'detected', kind, covered: true };
    }
    return {
      type: reading.kind,
      source: 'detected',
      kind,
      covered: false,
      covers: [...playbook.contractTypes],
    };
  }
  const [only, ...others] = playbook.contractTypes;
  if (only !== undefined && others.length === 0) return { type: only, source: 'playbook', covered: true };
  return undefined;
}

/** Why a submitted contract type cannot be used with the playbook, or undefined when it can. */
export function contractTypeIssue(
  playbook: Pick<Playbook, 'name' | 'contractTypes'>,
  contractType: string | undefined,
): string | undefined {
  if (contractType === undefined || playbook.contractTypes.includes(contractType)) return undefined;
  return (
    `the 'contract-type' option is not valid: playbook '${playbook.name}' applies to ` +
    `${playbook.contractTypes.join(', ')}; got '${contractType}'`
  );
}
