/**
 * What a passage says, in plain words, and how severe it is, for the learned analyst. The kind
 * of passage comes from the model (the most likely CUAD category of its risk category); the
 * particulars come from the passage's own wording: periods, amounts, the governing law, who is
 * bound, and the cues that make a clause milder (mutual, capped, standard) or harsher
 * (one-sided, uncapped, at will).
 */

/** How a CUAD category reads and how much risk such a clause carries before its wording is read. */
interface Kind {
  readonly says: string;
  /** 0..3 for a plain clause of this kind. */
  readonly base: number;
}

const KINDS: Readonly<Record<string, Kind>> = {
  'effective date': { says: 'sets when the agreement takes effect', base: 0 },
  'expiration date': { says: 'sets how long the agreement runs and when it ends', base: 1 },
  'renewal term': { says: 'renews or extends the agreement after its initial term', base: 1 },
  'notice period to terminate renewal': { says: 'requires notice in advance to stop a renewal', base: 1 },
  'termination for convenience': { says: 'lets a party end the agreement without cause', base: 2 },
  'post-termination services': { says: 'keeps obligations running after the agreement ends', base: 1 },
  'uncapped liability': { says: 'leaves liability unlimited for some breaches', base: 3 },
  'cap on liability': { says: 'limits liability or excludes kinds of damages', base: 1 },
  'liquidated damages': { says: 'sets a fixed sum or fee payable on breach or termination', base: 2 },
  'covenant not to sue': { says: "bars a party from challenging the other's rights or suing", base: 2 },
  'warranty duration': { says: 'gives a warranty for a stated period', base: 1 },
  insurance: { says: 'requires a party to carry insurance', base: 0 },
  'ip ownership assignment': { says: 'hands ownership of intellectual property to the other party', base: 2 },
  'joint ip ownership': { says: 'makes intellectual property jointly owned', base: 1 },
  'source code escrow': { says: 'puts source code in escrow for release on stated events', base: 1 },
  'license grant': { says: 'grants a license to use intellectual property', base: 1 },
  'non-transferable license': { says: 'forbids transferring or sublicensing the license', base: 1 },
  'affiliate license-licensor': {
    says: "extends the license to the licensor's affiliates' property",
    base: 0,
  },
  'affiliate license-licensee': { says: "extends the license to the licensee's affiliates", base: 0 },
  'unlimited/all-you-can-eat-license': { says: 'grants unlimited use under the license', base: 1 },
  'irrevocable or perpetual license': {
    says: 'grants a license that cannot be revoked or never ends',
    base: 2,
  },
  'non-compete': { says: 'restricts a party from competing', base: 2 },
  exclusivity: { says: 'makes the dealing exclusive', base: 2 },
  'no-solicit of customers': { says: "forbids soliciting the other party's customers", base: 2 },
  'competitive restriction exception': {
    says: 'carves exceptions out of a restriction on competing',
    base: 0,
  },
  'no-solicit of employees': { says: "forbids soliciting or hiring the other party's staff", base: 1 },
  'non-disparagement': { says: 'forbids disparaging the other party', base: 1 },
  'anti-assignment': { says: 'requires consent or notice before the agreement is assigned', base: 1 },
  'change of control': { says: 'attaches consent, notice or termination to a change of control', base: 2 },
  'revenue/profit sharing': { says: 'shares revenue, profits or royalties between the parties', base: 1 },
  'price restrictions': { says: 'restricts how prices may change', base: 1 },
  'minimum commitment': { says: 'commits a party to a minimum purchase or payment', base: 2 },
  'volume restriction': { says: 'ties fees or consent to volume thresholds', base: 1 },
  'most favored nation': { says: 'promises terms as good as any third party gets', base: 1 },
  'audit rights': { says: "lets a party audit the other's books or premises", base: 1 },
  'governing law': { says: 'chooses the law that governs the agreement', base: 0 },
  'third party beneficiary': { says: 'deals with rights of people who are not parties', base: 1 },
  'rofr/rofo/rofn': { says: 'gives a party a right of first refusal, offer or negotiation', base: 2 },
};

const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty-five|forty|sixty|ninety|one hundred twenty|one hundred eighty';
const PERIOD = new RegExp(
  `\\b((?:\\d+|${NUMBER_WORDS})(?:\\s*\\(\\d+\\))?\\s+(?:business\\s+|calendar\\s+|consecutive\\s+)?(?:days?|months?|years?))\\b`,
  'i',
);
const MONEY = /(?:US)?\$\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|thousand))?/i;
const LAW =
  /\blaws? of (?:the )?((?:State|Commonwealth|Province|Republic) of )?([A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+)?)/;
const MUTUAL = /\b(either party|each party|neither party|both parties|each of the parties|mutual(?:ly)?)\b/i;
const HARSH =
  /\b(sole (?:and absolute )?discretion|at any time|for any reason|without cause|irrevocabl[ey]|in perpetuity|perpetual|unlimited|without limit(?:ation)? as to amount|shall not apply to)\b/i;
const CAPPED =
  /\b(shall not exceed|will not exceed|in no event shall|limited to|maximum (?:aggregate )?liability|aggregate liability)\b/i;
const STANDARD = /\b(not (?:to )?be unreasonably withheld|reasonable|customary|commercially reasonable)\b/i;

/** Wording that says a dealing is not exclusive ("non-exclusive", "nothing … exclusive"). */
const NOT_EXCLUSIVE = /\bnon-?exclusive\b|\b(?:not|nothing|no)\b[^.;]{0,80}\bexclusiv/i;

/** The reason and severity of one passage. */
export interface PassageReading {
  readonly reason: string;
  /** 0..3. */
  readonly level: number;
}

function particulars(text: string): string[] {
  const out: string[] = [];
  const law = LAW.exec(text);
  if (law) out.push(`the law of ${law[1] ? `the ${law[1]}` : ''}${law[2]}`);
  const period = PERIOD.exec(text);
  if (period) out.push(`a period of ${period[1]?.replace(/\s+/g, ' ')}`);
  const money = MONEY.exec(text);
  if (money) out.push(`an amount of ${money[0]}`);
  return out;
}

/** Reads one passage as a clause of CUAD kind `cuad` (lower case; unknown kinds read as generic). */
export function readPassage(cuad: string | undefined, text: string, riskName: string): PassageReading {
  if (cuad === 'exclusivity' && NOT_EXCLUSIVE.test(text)) {
    return { reason: 'This passage says the dealing is not exclusive.', level: 0 };
  }
  const kind = (cuad && KINDS[cuad]) || { says: `addresses ${riskName.toLowerCase()}`, base: 1 };
  let level = kind.base;
  const notes: string[] = [];
  const mutual = MUTUAL.exec(text);
  const harsh = HARSH.exec(text);
  const capped = CAPPED.exec(text);
  const standard = STANDARD.exec(text);
  if (mutual) {
    notes.push(`it binds both sides ("${mutual[1]}")`);
    level -= 1;
  }
  if (harsh) {
    notes.push(`it says "${harsh[1]}"`);
    level += 1;
  }
  if (capped && cuad !== 'uncapped liability') {
    notes.push(`it is capped ("${capped[1]}")`);
    level -= 1;
  }
  if (standard && !harsh) {
    notes.push(`with a standard qualifier ("${standard[1]}")`);
    level -= 1;
  }
  const facts = particulars(text);
  const what = facts.length > 0 ? `${kind.says}, naming ${facts.join(', ')}` : kind.says;
  const how = notes.length > 0 ? `; ${notes.join('; ')}` : '';
  const sentence = `This passage ${what}${how}.`;
  return { reason: sentence, level: Math.max(0, Math.min(3, level)) };
}
