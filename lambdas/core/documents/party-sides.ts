/**
 * Which side of a deal a party's defined name puts it on. A contract names its parties by their
 * role ("Licensee", "Franchisor", "Service Provider") or by a plain name ("Company", "Kiromic");
 * a plain name takes the side opposite its counterpart's when the counterpart's role is clear (a
 * Company engaging a Consultant is the customer), and is `other` when it is not.
 */

/** The side a party is on, in the words a review of a contract uses. */
export type PartySide =
  | 'customer'
  | 'supplier'
  | 'licensee'
  | 'licensor'
  | 'franchisee'
  | 'franchisor'
  | 'discloser'
  | 'recipient'
  | 'employer'
  | 'employee'
  | 'distributor'
  | 'partner'
  | 'other';

/** Every side, in a fixed order. */
export const PARTY_SIDES: readonly PartySide[] = [
  'customer',
  'supplier',
  'licensee',
  'licensor',
  'franchisee',
  'franchisor',
  'discloser',
  'recipient',
  'employer',
  'employee',
  'distributor',
  'partner',
  'other',
];

/** Role words, by side; matched against a defined name's last words, case and plural aside. */
const ROLE_WORDS: Readonly<Record<Exclude<PartySide, 'other'>, readonly string[]>> = {
  supplier: [
    'supplier',
    'vendor',
    'provider',
    'service provider',
    'contractor',
    'subcontractor',
    'consultant',
    'seller',
    'manufacturer',
    'developer',
    'servicer',
    'processor',
    'transporter',
    'carrier',
    'agent',
    'sales agent',
    'host',
    'producer',
    'maker',
    'promoter',
    'celebrity',
    'endorser',
    'talent',
  ],
  customer: [
    'customer',
    'client',
    'buyer',
    'purchaser',
    'shipper',
    'subscriber',
    'sponsor',
    'advertiser',
    'end-user',
    'end user',
  ],
  licensee: ['licensee', 'sublicensee', 'sub-licensee'],
  licensor: ['licensor', 'sublicensor', 'sub-licensor'],
  franchisee: ['franchisee', 'sub-franchisee'],
  franchisor: ['franchisor'],
  discloser: ['discloser', 'disclosing party'],
  recipient: ['recipient', 'receiving party'],
  employer: ['employer'],
  employee: ['employee', 'executive'],
  distributor: ['distributor', 'sub-distributor', 'reseller', 'sub-reseller', 'dealer', 'wholesaler'],
  partner: ['partner', 'member', 'venturer', 'co-venturer', 'joint venturer', 'collaborator'],
};

/** The side opposite each side, for a plain-named party facing a role-named one. */
const OPPOSITE: Readonly<Record<PartySide, PartySide>> = {
  customer: 'supplier',
  supplier: 'customer',
  licensee: 'licensor',
  licensor: 'licensee',
  franchisee: 'franchisor',
  franchisor: 'franchisee',
  discloser: 'recipient',
  recipient: 'discloser',
  employer: 'employee',
  employee: 'employer',
  // The party a distributor buys from and resells for supplies it.
  distributor: 'supplier',
  partner: 'partner',
  other: 'other',
};

const singular = (w: string) => w.replace(/(?<=[a-z])s$/, '');

/** The side a name reads as by its own words ("Service Provider", "Receiving Party"), or undefined. */
export function sideOfName(name: string): Exclude<PartySide, 'other'> | undefined {
  const words = name
    .toLowerCase()
    .replace(/[^a-z\s-]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map(singular);
  // The role is the name's last word or two: "Service Provider", not "Provider Services".
  const tails = [words.slice(-2).join(' '), words.at(-1) ?? ''];
  for (const tail of tails)
    for (const [side, roles] of Object.entries(ROLE_WORDS))
      if (roles.includes(tail)) return side as Exclude<PartySide, 'other'>;
  return undefined;
}

/** What a side needs to know of a party. */
export interface Sided {
  readonly name: string;
  readonly defined?: string;
  readonly aliases?: readonly string[];
}

/** The side a party reads as by its defined name, then its other names, then its own name. */
function ownSide(party: Sided): Exclude<PartySide, 'other'> | undefined {
  for (const n of [party.defined, ...(party.aliases ?? []), party.name])
    if (n !== undefined) {
      const side = sideOfName(n);
      if (side) return side;
    }
  return undefined;
}

/**
 * The side of each party, in order. A party whose names hold a role word takes that role's
 * side; the one plain-named party among two takes the side opposite the other's; any other
 * plain-named party is `other`.
 */
export function sidesOf(parties: readonly Sided[]): PartySide[] {
  const own = parties.map(ownSide);
  const plain = own.filter((s) => s === undefined).length;
  const roles = [...new Set(own.filter((s) => s !== undefined))];
  return own.map((side) => {
    if (side) return side;
    // Only a lone plain name facing one clear role can be placed: with two plain names, or roles
    // on both sides of the deal, the counterpart is not known.
    if (plain === 1 && roles.length === 1 && roles[0]) return OPPOSITE[roles[0]];
    return 'other';
  });
}
