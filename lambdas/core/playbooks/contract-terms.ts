/**
 * A playbook's language in the contract's own terms. A playbook names roles, not people: the
 * shipped ones write "the Customer" and "the Supplier" (a `customer` playbook's two sides), and
 * their defined terms ("Services", "Effective Date", "Customer Data") are generic. Before any of
 * it goes into a contract, each role word becomes the contract's own name for that side (its
 * defined term, "Franchisee", with the article the contract uses), a role word of the lexicon
 * whose side is known becomes that side's name too, and a capitalised term the contract never
 * uses is written with the contract's own term for the same thing where it has one, or else in
 * plain words (not capitalised), so no inserted text reads as defining what the contract does not.
 * A role word whose side is neither of the contract's two is left and reported: the caller
 * withholds such text rather than write a party the contract does not have.
 */
import type { Party } from './schema.js';

/** A side of the contract: the name the contract uses for it after its preamble. */
export interface ContractSide {
  /** The defined name ("Franchisee", "Company"), else the party's name. */
  readonly term: string;
}

/** What rendering needs to know of one contract. */
export interface ContractTerms {
  /** The playbook's side ("customer"), whose role words name `us`. */
  readonly party: Party;
  /** The party the review is for, and the other; absent when the contract's parties were not read. */
  readonly us?: ContractSide;
  readonly them?: ContractSide;
  /** Whether the contract's text has this exact capitalised term anywhere (it defines or uses it). */
  uses(term: string): boolean;
  /** Whether the contract writes `the <term>` more often than the bare term. */
  takesArticle(term: string): boolean;
}

/** A text rendered in a contract's terms, and what could not be. */
export interface Rendered {
  readonly text: string;
  /** Role words left that name neither side of the contract ("Supplier" in a franchise agreement). */
  readonly foreign: readonly string[];
  /** Capitalised terms the contract does not use, as they were and as they were written. */
  readonly rewritten: readonly { readonly from: string; readonly to: string }[];
}

type Side = 'us' | 'them';

/** The words that name each side of a playbook's party, as playbooks write them. */
const ROLE_WORDS: Readonly<
  Record<Party, { readonly us: readonly string[]; readonly them: readonly string[] }>
> = {
  customer: {
    us: ['Customer', 'Client', 'Buyer', 'Purchaser'],
    them: ['Supplier', 'Vendor', 'Provider', 'Seller'],
  },
  supplier: {
    us: ['Supplier', 'Vendor', 'Provider', 'Seller'],
    them: ['Customer', 'Client', 'Buyer', 'Purchaser'],
  },
  licensee: { us: ['Licensee', 'Customer'], them: ['Licensor', 'Supplier'] },
  licensor: { us: ['Licensor', 'Supplier'], them: ['Licensee', 'Customer'] },
  recipient: { us: ['Recipient', 'Receiving Party'], them: ['Discloser', 'Disclosing Party'] },
  discloser: { us: ['Discloser', 'Disclosing Party'], them: ['Recipient', 'Receiving Party'] },
  mutual: { us: [], them: [] },
};

/** Role words a contract may use for a party, by the side of a buyer-seller pair they stand on. */
const BUYING = [
  'Customer',
  'Client',
  'Buyer',
  'Purchaser',
  'Licensee',
  'Franchisee',
  'Distributor',
  'Reseller',
];
const SELLING = [
  'Supplier',
  'Vendor',
  'Seller',
  'Provider',
  'Service Provider',
  'Contractor',
  'Consultant',
  'Licensor',
  'Franchisor',
  'Manufacturer',
];

/** Which side of the review a role word stands for, given the playbook's party. */
function sideOf(word: string, party: Party): Side | undefined {
  const roles = ROLE_WORDS[party];
  if (roles.us.includes(word)) return 'us';
  if (roles.them.includes(word)) return 'them';
  const buys = ['customer', 'licensee', 'recipient'].includes(party);
  const sells = ['supplier', 'licensor', 'discloser'].includes(party);
  if (BUYING.includes(word)) return buys ? 'us' : sells ? 'them' : undefined;
  if (SELLING.includes(word)) return buys ? 'them' : sells ? 'us' : undefined;
  return undefined;
}

/** Every role word the renderer knows, longest first (so "Service Provider" before "Provider"). */
const ALL_ROLES = [
  ...new Set([...Object.values(ROLE_WORDS).flatMap((r) => [...r.us, ...r.them]), ...BUYING, ...SELLING]),
].sort((a, b) => b.length - a.length);

/** Generic defined terms a playbook may use, with the terms contracts often use for the same thing. */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  'Effective Date': ['Commencement Date', 'Start Date', 'Execution Date'],
  Services: ['Work', 'Consulting Services', 'Service', 'Deliverables'],
  Products: ['Goods', 'Product', 'Licensed Products', 'Licensed Product'],
  'Confidential Information': ['Proprietary Information'],
  Agreement: ['Contract'],
  Term: ['Initial Term'],
  Charges: ['Fees', 'Fee', 'Price', 'Prices'],
  Deliverables: ['Work Product', 'Deliverable'],
};

/** Words a capitalised term may start with that are not a defined term of the contract's. */
const PLAIN_CAPITALS = new Set([
  'I',
  'Agreement',
  'Party',
  'Parties',
  'Section',
  'Clause',
  'Schedule',
  'Exhibit',
  'Annex',
  'Appendix',
  'Article',
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ROLE = new RegExp(`(\\b[Tt]he\\s+)?\\b(${ALL_ROLES.map(escapeRegExp).join('|')})\\b('s|’s)?`, 'g');

/**
 * `text` with the contract's names for the two sides and its own terms.
 *
 * @example
 * renderInContractTerms('The Customer may terminate on notice to the Supplier.', terms)
 * // { text: 'Franchisee may terminate on notice to Franchisor.', foreign: [], rewritten: [] }
 */
export function renderInContractTerms(text: string, terms: ContractTerms): Rendered {
  const foreign = new Set<string>();
  const named = text.replace(ROLE, (whole, article: string | undefined, word: string, possessive = '') => {
    const side = sideOf(word, terms.party);
    const to = side ? terms[side] : undefined;
    if (!to) {
      if (!terms.uses(word)) foreign.add(word);
      return whole;
    }
    // "the Customer" becomes "the Company" or "Franchisee", as the contract writes its names.
    const lead = article && terms.takesArticle(to.term) ? article : '';
    return `${lead}${to.term}${possessive}`;
  });
  const names = new Set([terms.us?.term, terms.them?.term].filter((t): t is string => t !== undefined));
  const rewritten: { from: string; to: string }[] = [];
  const out = rewriteTerms(named, (term) => {
    if (names.has(term) || terms.uses(term) || ALL_ROLES.includes(term)) return undefined;
    const to = SYNONYMS[term]?.find((s) => terms.uses(s)) ?? plainWords(term, names);
    rewritten.push({ from: term, to });
    return to;
  });
  return { text: out, foreign: [...foreign], rewritten };
}

/** Words that open a sentence without being part of the term after them. */
const OPENERS = new Set(
  'The This That These Those Each Either Neither Any All No If Upon On In At For Where When Such Subject Unless Following Notwithstanding'.split(
    ' ',
  ),
);

/**
 * `text` with each capitalised term `rewrite` answers for replaced: a run of capitalised words
 * inside a sentence, or of two or more at its start (after an opener like "The"); a single word
 * opening a sentence is a sentence's first word, not a term.
 */
function rewriteTerms(text: string, rewrite: (term: string) => string | undefined): string {
  const run = /[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*/g;
  let out = '';
  let from = 0;
  for (const m of text.matchAll(run)) {
    let term = m[0];
    let at = m.index;
    const before = text.slice(0, at).trimEnd();
    const opening = before === '' || /[.!?;:]["”)]?$/.test(before);
    if (opening) {
      const [first, ...rest] = term.split(/\s+/);
      if (rest.length === 0) continue;
      if (OPENERS.has(first ?? '')) {
        at += term.indexOf(rest[0] as string);
        term = rest.join(' ');
      }
    }
    const words = term.split(/\s+/);
    if (PLAIN_CAPITALS.has(words[0] ?? '') && words.length === 1) continue;
    const to = rewrite(term);
    if (to === undefined) continue;
    out += text.slice(from, at) + to;
    from = at + term.length;
  }
  return out + text.slice(from);
}

/** A capitalised term in plain words: "Customer Data" of side "Franchisee" → "Franchisee data". */
function plainWords(term: string, names: ReadonlySet<string>): string {
  const name = [...names].find((n) => term.startsWith(`${n} `));
  if (name) return `${name} ${term.slice(name.length + 1).toLowerCase()}`;
  return term.toLowerCase();
}

/** What a contract's text tells the renderer: which capitalised terms it has, and how it writes its names. */
export function termsOfText(
  text: string,
  sides: { readonly party: Party; readonly us?: ContractSide; readonly them?: ContractSide },
): ContractTerms {
  const has = new Map<string, boolean>();
  return {
    ...sides,
    uses(term) {
      let found = has.get(term);
      if (found === undefined) {
        found = new RegExp(`\\b${escapeRegExp(term)}\\b`).test(text);
        has.set(term, found);
      }
      return found;
    },
    takesArticle(term) {
      const the = text.match(new RegExp(`\\bthe ${escapeRegExp(term)}\\b`, 'g'))?.length ?? 0;
      const all = text.match(new RegExp(`\\b${escapeRegExp(term)}\\b`, 'g'))?.length ?? 0;
      return the * 2 >= all;
    },
  };
}
