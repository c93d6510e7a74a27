/**
 * The stand-in's redline of a clause below a position's standard: the smallest edit its words
 * allow, as a lawyer would make it. In order: the clause's own number rewritten in its own style
 * ("ninety (90) days" → "thirty (30) days"); a one-sided term made mutual ("Franchisor may
 * terminate" → "Either party may terminate") where the standard binds both parties; an unfettered
 * discretion tempered ("sole discretion" → "reasonable discretion"); and, only when none of those
 * applies, one sentence of the standard's language added after the sentence that deals with the
 * topic (the sentence of it that shares most with the clause), said so by its length. Inserted
 * text names the parties as the request says the contract names them. Deterministic.
 */
import type { Segment } from './clause-text.js';
import type { PositionData, PositionReply, RequestNames } from './playbook-data.js';
import { conversion, type Mention, writeNumber, writeQuantity } from './playbook-measure.js';

type Edit = NonNullable<PositionReply['redline']>['edits'][number];

/** Text in the case of the clause's words it replaces or follows: an all-capitals clause gets capitals. */
export function inCaseOf(context: string, text: string): string {
  const letters = context.replace(/[^A-Za-z]/g, '');
  return letters.length >= 8 && letters === letters.toUpperCase() ? text.toUpperCase() : text;
}

/** How many of the position's unit one of the mention's unit makes (a year of fees is one multiple). */
function clauseFactor(m: Mention, unit: string): number | undefined {
  if (unit === 'multiple-of-fees' && (m.unit === 'month' || m.unit === 'year'))
    return m.unit === 'year' ? 1 : 1 / 12;
  return conversion(m.unit, unit);
}

/** The clause's own number rewritten to the standard's threshold, in the clause's style. */
function numberEdit(clause: string, p: PositionData, at: Segment, m: Mention): Edit | undefined {
  const threshold = p.standard.threshold;
  if (!p.measure || threshold === undefined) return undefined;
  const factor = clauseFactor(m, p.measure.unit);
  if (factor === undefined) return undefined;
  const mentioned = clause.slice(at.start + m.start, at.start + m.end);
  const inClauseUnits = Math.round((threshold / factor) * 100) / 100;
  let start = at.start + m.numberStart;
  let end = at.start + m.numberEnd;
  let insert: string;
  if (/^(twice|double)$/i.test(mentioned)) insert = writeQuantity(threshold, 'multiple-of-fees', 'words');
  else if (Number.isInteger(inClauseUnits) && inClauseUnits !== 1)
    insert = writeNumber(inClauseUnits, m.style);
  else {
    // "one (1) months" or "1.5 months" would not read: the whole mention, in the position's unit.
    start = at.start + m.start;
    end = at.start + m.end;
    insert = writeQuantity(threshold, p.measure.unit, m.style);
  }
  return { start, end, deleted: clause.slice(start, end), insert: inCaseOf(at.text, insert) };
}

const MUTUAL_STANDARD = /\b(each party|either party|neither party|both parties|mutual(?:ly)?)\b/i;

/** Names a contract may give one party, besides the request's: role words. */
const PARTY_WORDS = [
  'Supplier',
  'Customer',
  'Company',
  'Licensor',
  'Licensee',
  'Franchisor',
  'Franchisee',
  'Distributor',
  'Consultant',
  'Contractor',
  'Vendor',
  'Provider',
  'Client',
  'Buyer',
  'Seller',
  'Manufacturer',
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where a sentence has one named party hold a term: "[The] Franchisor may", "X shall not", "X shall". */
function onePartyTerm(at: Segment, names?: RequestNames): RegExpExecArray | null {
  const parties = [names?.us, names?.them, ...PARTY_WORDS].filter((n): n is string => n !== undefined);
  return new RegExp(
    `\\b(?:[Tt]he\\s+)?(?:${parties.map(escapeRegExp).join('|')})\\s+(may|shall\\s+not|shall)\\b`,
  ).exec(at.text);
}

/** Whether the sentence has one named party hold a term (so a mutual standard reads it one-sided). */
export function onePartyHolds(at: Segment, names?: RequestNames): boolean {
  return onePartyTerm(at, names) !== null;
}

/**
 * A term one party holds made both parties': "[The] Franchisor may" → "Either party may",
 * "[The] X shall not" → "Neither party shall", "[The] X shall" → "Each party shall".
 */
function mutualEdit(clause: string, p: PositionData, at: Segment, names?: RequestNames): Edit | undefined {
  if (!MUTUAL_STANDARD.test(p.standard.language)) return undefined;
  const one = onePartyTerm(at, names);
  if (!one) return undefined;
  // A term the other party's failure triggers ("… if Bellicum fails to pay", "If Pretzel Time
  // breaches …, Franchisee may terminate") is not made mutual by changing its subject: the rest
  // of the sentence, before the subject or after it, would still name one side.
  const rest = at.text.slice(0, one.index) + at.text.slice(one.index + one[0].length);
  const parties = [names?.us, names?.them, ...PARTY_WORDS].filter((n): n is string => n !== undefined);
  if (parties.some((n) => new RegExp(`\\b${escapeRegExp(n)}\\b`).test(rest))) return undefined;
  const verb = (one[1] ?? '').replace(/\s+/g, ' ');
  const phrase =
    verb === 'may' ? 'Either party may' : verb === 'shall not' ? 'Neither party shall' : 'Each party shall';
  // Mid-sentence ("Without prejudice to …, Miltenyi shall") it is not capitalised.
  const before = at.text.slice(0, one.index).trim();
  const insert =
    before === '' || /[.:;]$/.test(before) ? phrase : phrase.charAt(0).toLowerCase() + phrase.slice(1);
  const start = at.start + one.index;
  const end = start + one[0].length;
  return { start, end, deleted: clause.slice(start, end), insert: inCaseOf(at.text, insert) };
}

const DISCRETION =
  /\b(?:sole\s+and\s+absolute|sole\s+and\s+exclusive|absolute|sole|unfettered)\s+discretion\b/i;

/** An unfettered discretion tempered: "sole discretion" → "reasonable discretion". */
function discretionEdit(clause: string, at: Segment): Edit | undefined {
  const d = DISCRETION.exec(at.text);
  if (!d) return undefined;
  const start = at.start + d.index;
  const end = start + d[0].length;
  return {
    start,
    end,
    deleted: clause.slice(start, end),
    insert: inCaseOf(at.text, 'reasonable discretion'),
  };
}

/** The playbook's role words for the two sides of a customer's playbook, and a supplier's. */
const ROLE_WORDS = { us: ['Customer', 'Licensee'], them: ['Supplier', 'Licensor'] } as const;

/** Language with the role words for each side replaced by the contract's names for them. */
export function inContractNames(text: string, names: RequestNames | undefined): string {
  if (!names) return text;
  let out = text;
  for (const side of ['us', 'them'] as const) {
    const name = names[side];
    if (!name) continue;
    for (const word of ROLE_WORDS[side])
      out = out.replace(new RegExp(`\\b(?:[Tt]he\\s+)?${word}\\b`, 'g'), name);
  }
  return out;
}

/** The sentence of `language` sharing most words with the clause's topic sentence (the first on a tie). */
function closestSentence(language: string, context: string): string {
  const sentences = language.match(/[^.!?]+[.!?]+(?:\s+|$)/g)?.map((s) => s.trim()) ?? [language];
  const words = (s: string) => new Set(s.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const mine = words(context);
  let best = sentences[0] ?? language;
  let score = -1;
  for (const s of sentences) {
    const shared = [...words(s)].filter((w) => mine.has(w)).length;
    if (shared > score) {
      best = s;
      score = shared;
    }
  }
  return best;
}

/**
 * The redline that brings the clause to the standard: the smallest edit of its words the
 * stand-in can make, else a sentence of the standard's language after the topic's sentence.
 */
export function redlineOf(
  clause: string,
  p: PositionData,
  at: Segment,
  options: {
    readonly numbered?: { mention?: Mention };
    readonly oneSided?: boolean;
    readonly names?: RequestNames;
  },
): PositionReply['redline'] {
  const m = options.numbered?.mention;
  const edit =
    (m ? numberEdit(clause, p, at, m) : undefined) ??
    (options.oneSided ? mutualEdit(clause, p, at, options.names) : undefined) ??
    discretionEdit(clause, at);
  if (edit) return { target: 'standard', edits: [edit] };
  const sentence = closestSentence(inContractNames(p.standard.language, options.names), at.text);
  const point = at.end;
  return {
    target: 'standard',
    edits: [{ start: point, end: point, deleted: '', insert: ` ${inCaseOf(at.text, sentence)}` }],
  };
}
