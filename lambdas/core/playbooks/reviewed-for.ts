/**
 * Whose side a review against a playbook takes, in the contract's own words. A job may name its
 * party (`party`: one of the contract's names or defined names); else the playbook's side (a
 * `customer` playbook) is matched to the party that plays it: the one whose defined name reads as
 * a customer, licensee or franchisee (the buyer's side), or, with two parties, the counterpart of
 * the one that reads as the seller's. The answer says how it was chosen; a contract whose parties
 * cannot be read, or a party that cannot be told, says so instead and lists what was read.
 */
import type { ContractNames } from '../analysts/positions.js';
import type { ContractParty, PartiesReading, PartySide } from '../documents/index.js';
import type { JobParties, JobParty, Party } from '../records/job-terms.js';

export type { JobParties, JobParty };

/** The sides of a contract each playbook side plays: the buyer's for a customer playbook. */
const PLAYS: Readonly<Record<Party, readonly PartySide[]>> = {
  customer: ['customer', 'licensee', 'franchisee', 'distributor'],
  supplier: ['supplier', 'licensor', 'franchisor'],
  licensee: ['licensee', 'customer', 'franchisee'],
  licensor: ['licensor', 'supplier', 'franchisor'],
  recipient: ['recipient'],
  discloser: ['discloser'],
  mutual: [],
};

/** The sides facing each playbook side's: the seller's for a customer playbook. */
const FACES: Readonly<Record<Party, readonly PartySide[]>> = {
  customer: PLAYS.supplier,
  supplier: PLAYS.customer,
  licensee: PLAYS.licensor,
  licensor: PLAYS.licensee,
  recipient: ['discloser'],
  discloser: ['recipient'],
  mutual: [],
};

/** What a person calls a playbook's side: "the customer's side". */
export const sideWords = (party: Party) => (party === 'mutual' ? 'both sides' : `the ${party}'s side`);

const termOf = (p: ContractParty) => p.defined ?? p.name;
const fold = (s: string) =>
  s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[“”"'’.,]/g, '')
    .replace(/^the\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();

/** The parties as a job records them. */
function recorded(parties: readonly ContractParty[]): JobParty[] {
  return parties.map((p) => ({
    name: p.name,
    ...(p.defined ? { defined: p.defined } : {}),
    side: p.side,
  }));
}

/** The party a submitter named, by its name, its defined name or another name the contract gives it. */
function named(parties: readonly ContractParty[], wanted: string): ContractParty | undefined {
  const w = fold(wanted);
  return parties.find((p) =>
    [p.name, p.defined, ...(p.aliases ?? [])].some((n) => n !== undefined && fold(n) === w),
  );
}

/** How the parties read, for a message: "Franchisor (ACME, Inc.), Franchisee (Bob's Burgers LLC)". */
export function partiesText(parties: readonly Pick<JobParty, 'name' | 'defined'>[]): string {
  return parties
    .map((p) => (p.defined && p.defined !== p.name ? `${p.defined} (${p.name})` : p.name))
    .join(', ');
}

/** "once", "2 times". */
const times = (n: number) => (n === 1 ? 'once' : `${n} times`);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How often the contract has a party pay, and how often it has it provide, by its defined name. */
function obligations(text: string, p: ContractParty): { pays: number; provides: number } {
  const name = `(?:the\\s+)?${escapeRegExp(termOf(p))}`;
  const count = (re: RegExp) => text.match(re)?.length ?? 0;
  const pays =
    count(
      new RegExp(
        `\\b${name}\\s+(?:shall|will|agrees\\s+to|must)\\s+(?:promptly\\s+)?(?:pay|reimburse|purchase|buy)\\b`,
        'g',
      ),
    ) + count(new RegExp(`\\b(?:payable|paid)\\s+by\\s+${name}\\b`, 'g'));
  const provides = count(
    new RegExp(
      `\\b${name}\\s+(?:shall|will|agrees\\s+to)\\s+(?:provide|supply|deliver|manufacture|sell|host|perform|furnish|ship|render|license|grant)\\b`,
      'g',
    ),
  );
  return { pays, provides };
}

/**
 * Of two parties whose names say no side, the buyer: the one the contract has pay, where the
 * other is the one it has provide (by at least two mentions either way).
 */
function buyerByObligations(
  text: string,
  parties: readonly ContractParty[],
): { buyer: ContractParty; seller: ContractParty; why: string } | undefined {
  const [a, b] = parties;
  if (!a || !b || parties.length !== 2) return undefined;
  const oa = obligations(text, a);
  const ob = obligations(text, b);
  const lean = oa.pays - oa.provides - (ob.pays - ob.provides);
  if (Math.abs(lean) < 2) return undefined;
  const [buyer, seller, ob2, os] = lean > 0 ? [a, b, oa, ob] : [b, a, ob, oa];
  const deeds = [
    ob2.pays > 0 ? `has ${termOf(buyer)} pay (${times(ob2.pays)})` : '',
    os.provides > 0 ? `has ${termOf(seller)} provide (${times(os.provides)})` : '',
  ].filter(Boolean);
  return { buyer, seller, why: `the contract ${deeds.join(' and ')}` };
}

/** The side the playbook's party plays, inferred; `how` says why, or undefined when it cannot be told. */
function inferred(
  parties: readonly ContractParty[],
  party: Party,
  text: string,
): { us: ContractParty; how: string } | undefined {
  const plays = parties.filter((p) => PLAYS[party].includes(p.side));
  if (plays.length === 1 && plays[0])
    return {
      us: plays[0],
      how: `${termOf(plays[0])} reads as ${sideWords(party)}, the playbook's (${plays[0].side})`,
    };
  const faces = parties.filter((p) => FACES[party].includes(p.side));
  const rest = parties.filter((p) => !faces.includes(p));
  if (parties.length === 2 && faces.length === 1 && rest.length === 1 && rest[0] && faces[0])
    return {
      us: rest[0],
      how: `${termOf(faces[0])} reads as the other side (${faces[0].side}), so ${termOf(rest[0])} is ${sideWords(party)}, the playbook's`,
    };
  const buys = ['customer', 'licensee', 'recipient'].includes(party);
  const byDeeds =
    buys || ['supplier', 'licensor', 'discloser'].includes(party)
      ? buyerByObligations(text, parties)
      : undefined;
  if (byDeeds) {
    const us = buys ? byDeeds.buyer : byDeeds.seller;
    return { us, how: `${termOf(us)} is ${sideWords(party)}, the playbook's: ${byDeeds.why}` };
  }
  return undefined;
}

/**
 * The contract's parties and the side the review takes.
 *
 * @param submitted the job's `party`, when it named one
 * @param party the playbook's side; absent without a playbook (the parties are recorded, no side taken)
 * @returns the job's parties, or `refused` when the named party is not one the contract has
 */
export function reviewedFor(
  reading: PartiesReading,
  submitted: string | undefined,
  party: Party | undefined,
  text = '',
): JobParties | { readonly refused: string } {
  const found = recorded(reading.parties);
  const base = {
    found,
    ...(reading.problem ? { problem: reading.problem } : {}),
    ...(party ? { side: party } : {}),
  };
  let us: ContractParty | undefined;
  let how: string;
  let source: 'submitted' | 'inferred';
  if (submitted !== undefined) {
    us = named(reading.parties, submitted);
    if (!us) {
      const read =
        found.length > 0
          ? `it names ${partiesText(found)}`
          : `its parties could not be read (${reading.problem ?? 'no preamble found'})`;
      return {
        refused: `the 'party' option names '${submitted}', a party this contract does not have: ${read}`,
      };
    }
    how = `named by the submitter ('${submitted}')`;
    source = 'submitted';
  } else {
    if (!party || party === 'mutual') return base;
    const guess = inferred(reading.parties, party, text);
    if (!guess) {
      const why =
        found.length < 2
          ? `its parties could not be read (${reading.problem ?? 'fewer than two named'})`
          : `none of ${partiesText(found)} reads as ${sideWords(party)}`;
      return { ...base, problem: `${why}: name the party the review is for ('party')` };
    }
    ({ us, how } = guess);
    source = 'inferred';
  }
  const them = reading.parties.find((p) => p !== us);
  return {
    ...base,
    us: { name: us.name, term: termOf(us) },
    ...(them ? { them: { name: them.name, term: termOf(them) } } : {}),
    source,
    how,
  };
}

/** The names an analyst writes for the two sides, when the review took one. */
export function contractNamesOf(parties: JobParties | undefined): ContractNames | undefined {
  if (!parties?.us) return undefined;
  return { us: parties.us.term, ...(parties.them ? { them: parties.them.term } : {}) };
}
