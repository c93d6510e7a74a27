/**
 * The contract type a review takes a playbook's topics for: the one the submitter gave, else the
 * playbook's only type, else one read from the contract's title (or, with no type in the title,
 * the uploaded file's name). The title is read with plain
 * words for the types this project's playbooks use (a "Web Hosting Agreement" is a services
 * contract, a "Distributor Agreement" a supply one); a playbook's own type names are matched as
 * words too. A title that names none of the playbook's types gives no type, and every topic applies.
 */
import type { Playbook } from './schema.js';

/** A contract type and where it came from. */
export interface ContractType {
  readonly type: string;
  readonly source: 'submitted' | 'detected' | 'playbook';
}

/** Words in a title that name a contract type, by the type ids the shipped playbooks use. */
const TITLE_WORDS: Readonly<Record<string, RegExp>> = {
  nda: /\b(non-?disclosure|confidentiality|secrecy)\b/i,
  licence: /\b(licen[cs]e|licen[cs]ing|sublicen[cs]e)\b/i,
  supply: /\b(supply|purchase|procurement|distribut(?:or|ion)|manufactur(?:e|ing)|reseller|sale of goods)\b/i,
  services:
    /\b(services?|consult(?:ing|ancy)|outsourcing|maintenance|hosting|support|professional|development)\b/i,
};

/** Where in the title a type's words first appear, or -1. */
function firstMention(title: string, type: string): number {
  const words = TITLE_WORDS[type] ?? new RegExp(`\\b${type.replace(/-/g, '[- ]')}\\b`, 'i');
  return words.exec(title)?.index ?? -1;
}

/**
 * The contract type for a review against `playbook`.
 *
 * @param submitted the type the submitter gave (checked to be one of the playbook's by the caller)
 * @param title the contract's title, as the document context found it
 * @param fileName the uploaded file's name, read when the title names no type
 * @example contractTypeFor(playbook, undefined, 'WEB HOSTING AGREEMENT') // { type: 'services', source: 'detected' }
 */
export function contractTypeFor(
  playbook: Pick<Playbook, 'contractTypes'>,
  submitted: string | undefined,
  title: string | undefined,
  fileName?: string,
): ContractType | undefined {
  if (submitted !== undefined) return { type: submitted, source: 'submitted' };
  const [only, ...others] = playbook.contractTypes;
  if (only !== undefined && others.length === 0) return { type: only, source: 'playbook' };
  for (const text of [title, fileName?.replace(/[_.]+/g, ' ')]) {
    const type = namedType(playbook.contractTypes, text);
    if (type) return { type, source: 'detected' };
  }
  return undefined;
}

/** The type of `types` a text names first: a "Licence and Services Agreement" is a licence. */
function namedType(types: readonly string[], text: string | undefined): string | undefined {
  if (!text) return undefined;
  let best: { type: string; at: number } | undefined;
  for (const type of types) {
    const at = firstMention(text, type);
    if (at >= 0 && (!best || at < best.at)) best = { type, at };
  }
  return best?.type;
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
