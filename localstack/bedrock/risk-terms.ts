/**
 * The heuristic analyst's words: the built-in lexicon of legal risk terms by the category words
 * that select them, the wording that makes any passage riskier, and the words that say nothing
 * about a category. Data only; risk-lexicon.ts compiles and matches them.
 */

// Notation: `word*` is a prefix stem, a bare word matches itself and its plural, spaces make a
// phrase of adjacent tokens. Punctuation in the clause separates tokens ("non-compete" is two).
export interface LexiconGroup {
  readonly triggers: readonly string[];
  readonly terms: readonly string[];
}

export const LEXICON: readonly LexiconGroup[] = [
  {
    triggers: ['liab*', 'damag*', 'indemn*', 'limitation*', 'cap'],
    terms: [
      'liabilit*',
      'liable',
      'damages',
      'indemn*',
      'hold harmless',
      'cap',
      'capped',
      'uncapped',
      'consequential',
      'punitive',
      'in no event',
    ],
  },
  {
    triggers: ['termin*', 'cancel*', 'convenien*', 'breach*'],
    terms: ['terminat*', 'cancel*', 'convenience', 'breach*', 'cure', 'without cause', 'insolven*'],
  },
  {
    triggers: ['renew*', 'term', 'expir*', 'duration', 'evergreen'],
    terms: ['renew*', 'term', 'expir*', 'evergreen', 'successive', 'automatic*'],
  },
  {
    triggers: ['assign*', 'control', 'merger*', 'acqui*'],
    terms: [
      'assign*',
      'change of control',
      'change in control',
      'merger*',
      'acqui*',
      'successor*',
      'transfer*',
    ],
  },
  {
    triggers: ['exclusiv*', 'compet*', 'solicit*', 'restrict*'],
    terms: ['exclusiv*', 'compet*', 'solicit*', 'restrict*', 'most favored', 'most favoured'],
  },
  {
    triggers: ['confiden*', 'secre*', 'disclos*', 'nda'],
    terms: ['confiden*', 'disclos*', 'trade secret', 'proprietary information'],
  },
  {
    triggers: ['licen*', 'sublicen*'],
    terms: ['licen*', 'sublicen*', 'perpetual', 'irrevocable', 'royalty free', 'worldwide'],
  },
  {
    triggers: ['intellect*', 'ip', 'owner*', 'patent*', 'copyright*', 'invent*', 'work product'],
    terms: [
      'intellectual property',
      'owner*',
      'own',
      'owns',
      'work product',
      'made for hire',
      'patent*',
      'copyright*',
      'trademark*',
      'invention*',
      'derivative*',
      'title',
    ],
  },
  {
    triggers: ['pay*', 'fee', 'pric*', 'royalt*', 'minimum', 'commit*', 'invoic*', 'revenue'],
    terms: [
      'pay*',
      'paid',
      'fee',
      'pric*',
      'royalt*',
      'minimum',
      'invoic*',
      'refund*',
      'commit*',
      'purchase*',
    ],
  },
  {
    triggers: ['audit*', 'record*', 'inspect*'],
    terms: ['audit*', 'record*', 'inspect*', 'books', 'examin*'],
  },
  {
    triggers: ['insur*', 'warrant*'],
    terms: ['insur*', 'warrant*', 'represent*', 'as is', 'merchantab*', 'fitness'],
  },
  {
    triggers: ['govern*', 'law', 'arbitra*', 'jurisdic*', 'dispute*', 'venue', 'beneficiar*'],
    terms: [
      'governing law',
      'governed by',
      'laws of',
      'arbitrat*',
      'jurisdiction*',
      'venue',
      'court*',
      'dispute*',
      'third party beneficiar*',
      'beneficiar*',
      'jury',
    ],
  },
  {
    triggers: ['refusal', 'rofr', 'rofo', 'negotiat*', 'first offer', 'preferen*'],
    terms: [
      'first refusal',
      'first offer',
      'first negotiation',
      'negotiat*',
      'rofr',
      'rofo',
      'matching right',
    ],
  },
];

// Wording that makes a passage riskier whatever its category.
export const HIGH_RISK_TERMS: readonly string[] = [
  'unlimited',
  'uncapped',
  'sole discretion',
  'absolute discretion',
  'without cause',
  'for any reason',
  'at any time',
  'perpetual',
  'irrevocable',
  'exclusiv*',
  'liquidated',
  'in no event',
  'shall not',
  'waive*',
  'indemnif*',
  'hold harmless',
  'non refundable',
  'unilateral*',
  'penalt*',
  'forfeit*',
];

// Words that say nothing about a category: English stopwords plus contract and schema filler.
export const STOPWORDS = new Set(
  `a an and are as at be been being but by can could did do does for from had has have how if in into is it its
  may might must no nor not of on or our shall should so than that the their them then there these they this those
  to under upon was we were what when where whether which while who will with within without would you your
  about above after against all also any before between both each either other over same some such through
  agreement agreements contract contracts party parties clause clauses section sections provision provisions
  right rights obligation obligations including include includes related regarding concerning relating covers
  cover covering applies apply whereby thereof herein hereunder score scores scoring risk risks risky category
  categories present absent null none level high low medium severity assessment assess text mention mentions
  mentioned address addresses addressed language describes described describe contains contain value values
  field fields number integer string list item items whether means meaning note notes etc contractor
  contractors contractual submit report output result results return analysis analyze analyse review
  reviewer evaluate evaluation tool check checks whether either side sides clear unclear reasonable enforceable
  breadth broad short long missing easy miss happens afterwards starts ends continues someone else gives away
  leaves exposed allocation supplier suppliers customer customers company companies day days month months
  year years product products hold change written prior promised promises what who which vice versa plain lawyer lawyers counterparty
  entry entries assigned keyed verbatim excerpt copied exactly`.split(/\s+/),
);
