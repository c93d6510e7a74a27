/**
 * The twelve risk categories every clause is scored against, as data. Each one groups
 * CUAD clause categories (the labels of the development corpus) so that the evaluation
 * can compare the analysts' findings with the lawyers' labels.
 *
 * The ids are JSON property names in the analysts' tool schema and keys of the call
 * ledger, so they must never change once reports exist. The descriptions go into the
 * prompt and the tool schema; they are deliberately rich in the words such clauses use,
 * because the offline heuristic analyst of the local Bedrock stand-in derives its
 * keywords from the schema's property names and descriptions. The stand-in's learned
 * analyst was trained on the CUAD labels this mapping groups, and knows the categories by id.
 */

/** Shape of one risk category. */
export interface RiskCategoryDefinition {
  /** Stable kebab-case id, used as a JSON property name in the tool schema. */
  readonly id: string;
  /** Short human name for reports. */
  readonly name: string;
  /** What a lawyer checks for, in the vocabulary such clauses use. */
  readonly description: string;
  /** CUAD category names it covers, spelled exactly as in the corpus README table. */
  readonly cuad: readonly string[];
}

/**
 * The twelve risk categories, in report order.
 *
 * Every CUAD category except those in {@link CUAD_UNMAPPED} belongs to exactly one of them.
 */
export const CATEGORIES = [
  {
    id: 'term-renewal',
    name: 'Term and renewal',
    description:
      'When the agreement starts and ends and how it continues: effective date, commencement date, initial term, ' +
      'expiration or expiry date, term of years or months, automatic renewal, auto-renew, evergreen or perpetual ' +
      'term, successive renewal terms, extension options, and the notice period (days of prior written notice ' +
      'before the end of the then-current term) required to terminate or prevent renewal. Check for lock-in ' +
      'through long initial terms, automatic renewals that are easy to miss, and short or one-sided non-renewal ' +
      'notice windows.',
    cuad: ['Effective Date', 'Expiration Date', 'Renewal Term', 'Notice Period to Terminate Renewal'],
  },
  {
    id: 'termination',
    name: 'Termination and exit',
    description:
      'Rights to end the agreement and what happens afterwards: termination for convenience or without cause on ' +
      'written notice, termination for breach or material default with or without a cure period, termination on ' +
      'insolvency, bankruptcy or receivership, effects of termination or expiration, wind-down and transition ' +
      'assistance, post-termination services, sell-off periods, return or destruction of materials, last-time ' +
      'buy, survival of obligations, and payments due after termination. Check whether exit rights are mutual, ' +
      'how long the notice is, and which obligations continue after the agreement ends.',
    cuad: ['Termination for Convenience', 'Post-Termination Services'],
  },
  {
    id: 'liability',
    name: 'Liability, damages and indemnity',
    description:
      'Allocation of loss between the parties: limitation of liability, caps on aggregate liability (limited to ' +
      'fees paid or a maximum amount), exclusion of indirect, incidental, consequential, special, punitive or ' +
      'exemplary damages and lost profits, carve-outs that leave liability uncapped or unlimited (gross ' +
      'negligence, willful misconduct, fraud, confidentiality, infringement, indemnification), indemnify, defend ' +
      'and hold harmless obligations, liquidated damages, penalties and termination fees, time limits for ' +
      'bringing claims, sole and exclusive remedy, and covenants not to sue or not to challenge or contest the ' +
      "validity of the other party's intellectual property. Check whether the allocation is mutual and whether " +
      'either side is exposed without limit.',
    cuad: ['Uncapped Liability', 'Cap on Liability', 'Liquidated Damages', 'Covenant Not to Sue'],
  },
  {
    id: 'warranty-insurance',
    name: 'Warranties and insurance',
    description:
      'Promises about quality and the cover behind them: product, service and performance warranties, warranty ' +
      'period or duration (months or years from delivery or acceptance), defects in materials and workmanship, ' +
      'conformity to specifications, repair, replacement or refund remedies, disclaimers of implied warranties of ' +
      'merchantability, fitness for a particular purpose and non-infringement, "as is" provisions, and ' +
      'requirements to maintain insurance (general liability, product liability, professional or errors and ' +
      'omissions) with minimum coverage amounts, additional insured status, certificates of insurance and notice ' +
      'of cancellation. Check for short or missing warranties, broad disclaimers, and insurance that does not back ' +
      'the promised indemnities.',
    cuad: ['Warranty Duration', 'Insurance'],
  },
  {
    id: 'ip-ownership',
    name: 'Intellectual property ownership',
    description:
      'Who owns intellectual property rights (patents, copyrights, trademarks, trade secrets, know-how, ' +
      'inventions, work product, deliverables, improvements, developments, derivative works): assignment of ' +
      'intellectual property to the counterparty ("hereby assigns", work made for hire, vests in), joint or ' +
      'shared ownership of jointly developed intellectual property, background versus foreground technology, ' +
      'waiver of moral rights, further assurances, and source code escrow with release conditions on bankruptcy ' +
      'or insolvency. Check whether a party gives away rights in its own pre-existing technology or improvements, ' +
      'and whether joint ownership leaves exploitation or enforcement unclear.',
    cuad: ['IP Ownership Assignment', 'Joint IP Ownership', 'Source Code Escrow'],
  },
  {
    id: 'licensing',
    name: 'License grants',
    description:
      'Licenses of intellectual property, software, content, trademarks or technology granted by one party to ' +
      'the other: scope of the license grant (field of use, territory, exclusive or non-exclusive), right to ' +
      'sublicense, non-transferable and non-assignable licenses, licenses extended to or granted by affiliates, ' +
      'enterprise, unlimited or all-you-can-eat usage, irrevocable, perpetual, fully paid-up or royalty-free ' +
      'licenses, and termination of the license. Check whether the scope is clear, whether rights outlive the ' +
      'agreement, and whether the licensee can use affiliates, contractors or successors.',
    cuad: [
      'License Grant',
      'Non-Transferable License',
      'Affiliate License-Licensor',
      'Affiliate License-Licensee',
      'Unlimited/All-You-Can-Eat-License',
      'Irrevocable or Perpetual License',
    ],
  },
  {
    id: 'competition',
    name: 'Restrictive covenants and exclusivity',
    description:
      'Limits on competing and on dealing with others: non-compete and non-competition covenants (business, ' +
      'geography, territory, duration), exclusivity and exclusive dealing, requirements to buy all needs from one ' +
      'party, prohibitions on selling to or working with third parties or competitors, non-solicitation and ' +
      'no-hire of customers, clients, suppliers, employees or contractors, non-disparagement, and the exceptions ' +
      'or carve-outs to these restrictions. Check breadth, duration after termination, whether restrictions are ' +
      'mutual, and whether they are reasonable and enforceable.',
    cuad: [
      'Non-Compete',
      'Exclusivity',
      'No-Solicit of Customers',
      'Competitive Restriction Exception',
      'No-Solicit of Employees',
      'Non-Disparagement',
    ],
  },
  {
    id: 'assignment-control',
    name: 'Assignment and change of control',
    description:
      'Whether the contract can move to someone else: anti-assignment clauses requiring prior written consent or ' +
      'notice to assign, delegate or transfer the agreement, assignment by operation of law, permitted assignment ' +
      'to affiliates or to a successor in a merger or sale of all or substantially all assets, change of control ' +
      '(merger, acquisition, stock sale, transfer of voting control) as a trigger for consent, notice or ' +
      'termination, and consent not to be unreasonably withheld. Check whether one side can assign freely while ' +
      'the other cannot, and whether a future sale of the business could end the contract.',
    cuad: ['Anti-Assignment', 'Change of Control'],
  },
  {
    id: 'payment-pricing',
    name: 'Payment, pricing and volume',
    description:
      'Money terms: fees, prices, payment terms (net days, invoices, late payment interest), revenue sharing, ' +
      'profit sharing and royalties split between the parties, price restrictions, price caps, fixed prices and ' +
      'price increases, most favored nation or most favoured customer pricing (better terms given to a third ' +
      'party), minimum commitments, minimum purchase or order quantities, take-or-pay, volume thresholds or usage ' +
      'limits that trigger extra fees or consent, set-off and taxes. Check whether a party is committed to pay ' +
      'regardless of need and whether pricing can change unilaterally.',
    cuad: [
      'Revenue/Profit Sharing',
      'Price Restrictions',
      'Minimum Commitment',
      'Volume Restriction',
      'Most Favored Nation',
    ],
  },
  {
    id: 'audit-compliance',
    name: 'Audit, records and compliance',
    description:
      'Oversight and regulatory duties: audit rights to inspect books, records, accounts, facilities or physical ' +
      'locations, frequency and notice of audits, independent accountants, who pays audit costs and adjustments ' +
      'for underpayment, record-keeping and reporting obligations, compliance with applicable laws and ' +
      'regulations, permits, anti-bribery and anti-corruption, export control, data protection and privacy, and ' +
      'confidentiality of information seen in an audit. Check how intrusive and frequent audits may be, and who ' +
      'bears their cost and the regulatory risk.',
    cuad: ['Audit Rights'],
  },
  {
    id: 'governing-law-disputes',
    name: 'Governing law, disputes and third parties',
    description:
      'How disputes are decided and who may enforce the contract: governing law and choice of law (laws of a ' +
      'state or country), jurisdiction, venue and forum selection, submission to courts, arbitration rules and ' +
      "seat, waiver of jury trial, injunctive and equitable relief, attorneys' fees, and third party " +
      'beneficiaries (persons who are not parties but may enforce rights, or an express exclusion of third party ' +
      'beneficiary rights). Check for an inconvenient or one-sided forum, waived rights, and non-parties who can ' +
      'enforce obligations.',
    cuad: ['Governing Law', 'Third Party Beneficiary'],
  },
  {
    id: 'preferential-rights',
    name: 'Preferential rights (ROFR, ROFO, ROFN)',
    description:
      'Rights giving one party priority over third parties: right of first refusal (to match a third-party ' +
      'offer), right of first offer, right of first negotiation, first look, and options to purchase, license, ' +
      'market or distribute equity, technology, assets, products or services, with their notice and exercise ' +
      'periods. Check how long the right lasts, how long the holder has to decide, and how much it deters deals ' +
      'with others.',
    cuad: ['Rofr/Rofo/Rofn'],
  },
] as const satisfies readonly RiskCategoryDefinition[];

/** Id of one of the twelve risk categories. */
export type CategoryId = (typeof CATEGORIES)[number]['id'];

/** One risk category, with its id narrowed to {@link CategoryId}. */
export type RiskCategory = RiskCategoryDefinition & { readonly id: CategoryId };

/** Every category id, in report order. */
export const CATEGORY_IDS: readonly CategoryId[] = CATEGORIES.map((c) => c.id);

/**
 * CUAD categories deliberately left out of the risk categories, with the reason. They
 * identify the contract rather than allocate risk; the date that does matter for risk,
 * when obligations start, is `Effective Date` (in `term-renewal`).
 */
export const CUAD_UNMAPPED: readonly { readonly cuad: string; readonly reason: string }[] = [
  { cuad: 'Document Name', reason: 'the title of the contract; metadata, not a risk allocation' },
  { cuad: 'Parties', reason: 'who signed; metadata the report shows, not a risk allocation' },
  {
    cuad: 'Agreement Date',
    reason: 'the signing date; the term runs from the Effective Date, which term-renewal covers',
  },
];

const BY_ID: ReadonlyMap<string, RiskCategory> = new Map(CATEGORIES.map((c) => [c.id, c]));

/** Whether a string is one of the twelve category ids. */
export function isCategoryId(value: string): value is CategoryId {
  return BY_ID.has(value);
}

/**
 * The category with this id.
 *
 * @throws Error naming the known ids, when `id` is not one of them (a programming error:
 * ids come from the registry, never from model output, which is validated first).
 */
export function categoryById(id: CategoryId): RiskCategory {
  const category = BY_ID.get(id);
  if (!category) throw new Error(`unknown risk category '${id}' (known: ${CATEGORY_IDS.join(', ')})`);
  return category;
}
