/**
 * The kinds of contract a review can tell apart, each with the words that name it in a title
 * and the label a person reads: CUAD's 25 contract types, and the non-disclosure, employment,
 * lease, loan, purchase and settlement agreements a legal team sees as often. A kind names what
 * the contract is, whatever a playbook covers; which playbook applies is decided elsewhere.
 */

/** A kind of contract. */
export type ContractKind =
  | 'affiliate'
  | 'agency'
  | 'co-branding'
  | 'collaboration'
  | 'consulting'
  | 'development'
  | 'distribution'
  | 'endorsement'
  | 'franchise'
  | 'hosting'
  | 'intellectual-property'
  | 'joint-venture'
  | 'licence'
  | 'maintenance'
  | 'manufacturing'
  | 'marketing'
  | 'non-compete'
  | 'outsourcing'
  | 'promotion'
  | 'reseller'
  | 'services'
  | 'sponsorship'
  | 'strategic-alliance'
  | 'supply'
  | 'transportation'
  | 'nda'
  | 'employment'
  | 'lease'
  | 'loan'
  | 'purchase'
  | 'settlement';

/** One kind: its label and the words that name it. */
export interface KindSpec {
  readonly kind: ContractKind;
  /** What a person reads: "Franchise Agreement". */
  readonly label: string;
  /** Words of a title (or of "This … Agreement") that name the kind, case aside. */
  readonly words: RegExp;
}

/**
 * Every kind. Where two kinds' words start at the same place in a title, the earlier entry
 * wins, so the more particular words come first ("co-branding" before "branding", "sub-reseller"
 * before "seller").
 */
export const CONTRACT_KINDS: readonly KindSpec[] = [
  {
    kind: 'nda',
    label: 'Non-Disclosure Agreement',
    words: /\bnon[-\s]?disclosure\b|\bconfidentiality\s+agreement\b|\bsecrecy\b|\bNDA\b/i,
  },
  {
    kind: 'non-compete',
    label: 'Non-Competition Agreement',
    words: /\bnon[-\s]?compet(?:e|ition)\b|\bnon[-\s]?solicit(?:ation)?\b|\brestrictive\s+covenants?\b/i,
  },
  { kind: 'co-branding', label: 'Co-Branding Agreement', words: /\bco[-\s]?brand(?:ing|ed)?\b/i },
  { kind: 'joint-venture', label: 'Joint Venture Agreement', words: /\bjoint[-\s]venture\b/i },
  {
    kind: 'strategic-alliance',
    label: 'Strategic Alliance Agreement',
    words: /\bstrategic\s+alliance\b|\balliance\s+agreement\b/i,
  },
  {
    kind: 'intellectual-property',
    label: 'Intellectual Property Agreement',
    words:
      /\bintellectual\s+property\b|\b(?:patent|trademark|copyright|IP)\s+(?:assignment|purchase|transfer)\b/i,
  },
  { kind: 'franchise', label: 'Franchise Agreement', words: /\bfranchis(?:e|ing)\b/i },
  { kind: 'licence', label: 'Licence Agreement', words: /\b(?:sub-?)?licen[cs](?:e|ing)\b/i },
  {
    kind: 'reseller',
    label: 'Reseller Agreement',
    words: /\b(?:sub-?)?resell(?:er|ing)\b|\bresale\b|\bvalue[-\s]added\s+reseller\b/i,
  },
  { kind: 'distribution', label: 'Distribution Agreement', words: /\bdistribut(?:ion|or|orship)\b/i },
  { kind: 'hosting', label: 'Hosting Agreement', words: /\bhosting\b|\bweb\s*host\b/i },
  { kind: 'maintenance', label: 'Maintenance Agreement', words: /\bmaintenance\b/i },
  { kind: 'outsourcing', label: 'Outsourcing Agreement', words: /\boutsourc(?:e|ing)\b/i },
  { kind: 'manufacturing', label: 'Manufacturing Agreement', words: /\bmanufactur(?:e|ing|er)\b/i },
  { kind: 'supply', label: 'Supply Agreement', words: /\bsupply\b|\bsupplier\s+agreement\b/i },
  {
    kind: 'purchase',
    label: 'Purchase Agreement',
    words: /\bpurchase\b|\bsales?\s+agreement\b|\bsale\s+of\s+goods\b|\bprocurement\b/i,
  },
  { kind: 'marketing', label: 'Marketing Agreement', words: /\bmarketing\b/i },
  { kind: 'promotion', label: 'Promotion Agreement', words: /\b(?:co-?)?promotion(?:al)?\b/i },
  { kind: 'sponsorship', label: 'Sponsorship Agreement', words: /\bsponsor(?:ship)?\b/i },
  { kind: 'endorsement', label: 'Endorsement Agreement', words: /\bendorse(?:ment|r)\b/i },
  {
    kind: 'affiliate',
    label: 'Affiliate Agreement',
    words: /\baffiliate\s+(?:program|agreement|marketing|management|terms)\b/i,
  },
  {
    kind: 'agency',
    label: 'Agency Agreement',
    words: /\bagency\b|\bagent\s+agreement\b|\bsales\s+agent\b|\brepresentative\s+agreement\b/i,
  },
  {
    kind: 'collaboration',
    label: 'Collaboration Agreement',
    words: /\bcollaborat(?:ion|ive)\b|\bco-?operation\s+agreement\b/i,
  },
  { kind: 'development', label: 'Development Agreement', words: /\bdevelopment\b/i },
  { kind: 'consulting', label: 'Consulting Agreement', words: /\bconsult(?:ing|ancy|ant)\b/i },
  {
    kind: 'transportation',
    label: 'Transportation Agreement',
    words: /\btransport(?:ation)?\b|\bshipping\b|\bfreight\b|\bcarriage\b|\blogistics\b|\bhaulage\b/i,
  },
  { kind: 'employment', label: 'Employment Agreement', words: /\bemployment\b|\bexecutive\s+agreement\b/i },
  { kind: 'lease', label: 'Lease', words: /\b(?:sub)?lease\b|\btenancy\b|\brental\b/i },
  {
    kind: 'loan',
    label: 'Loan or Credit Agreement',
    words: /\bloan\b|\bcredit\s+(?:agreement|facility)\b|\bfacility\s+agreement\b|\bpromissory\s+note\b/i,
  },
  { kind: 'settlement', label: 'Settlement Agreement', words: /\bsettlement\b|\brelease\s+agreement\b/i },
  { kind: 'services', label: 'Services Agreement', words: /\bservices?\b|\bservicing\b/i },
];

/** Every kind's id, in the order of {@link CONTRACT_KINDS}. */
export const CONTRACT_KIND_IDS: readonly ContractKind[] = CONTRACT_KINDS.map((k) => k.kind);

/** The label of a kind: "Franchise Agreement". */
export function kindLabel(kind: ContractKind): string {
  return CONTRACT_KINDS.find((k) => k.kind === kind)?.label ?? kind;
}

/**
 * The kinds a phrase names, in the order it names them: "Co-Branding, Marketing and
 * Distribution Agreement" names co-branding, marketing, distribution.
 */
export function kindsNamedIn(phrase: string): ContractKind[] {
  const found: { kind: ContractKind; at: number; order: number }[] = [];
  CONTRACT_KINDS.forEach((spec, order) => {
    const m = spec.words.exec(phrase);
    if (m) found.push({ kind: spec.kind, at: m.index, order });
  });
  return found.sort((a, b) => a.at - b.at || a.order - b.order).map((f) => f.kind);
}
