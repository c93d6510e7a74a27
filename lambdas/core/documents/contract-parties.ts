/**
 * Who a contract is between, read from its own preamble: each party's name as the contract
 * writes it, the name the contract calls it by afterwards ("Franchisor", "Company", "Kiromic")
 * and the side of the deal that name puts it on. A review speaks of the parties in the
 * contract's words, so what is read here is what a redline and a report may name.
 *
 * Only the opening of a contract is read (its first {@link PREAMBLE_WINDOW} characters, where
 * the preamble sits even behind a cover page and a table of contents), and each passage tried
 * is bounded, so reading takes time in proportion to that opening, whatever the contract's
 * length.
 */
import { collectiveIn, type ListMode, type PartyDraft, readList } from './party-list.js';
import { leadingName } from './party-names.js';
import { type PartySide, sidesOf } from './party-sides.js';
import { marksIn } from './term-marks.js';

export type { PartySide } from './party-sides.js';

/** One party of a contract. */
export interface ContractParty {
  /** As the contract writes it: "Kiromic, Inc", "John Smith". */
  readonly name: string;
  /** The name the contract uses for it afterwards: "Company", "Franchisor", "Kiromic". */
  readonly defined?: string;
  /** Other names the contract gives it: "Salesforce" beside "SFDC", "Servicer" beside "Cellco". */
  readonly aliases?: readonly string[];
  /** The side its defined name (or its other names, or its name) reads as. */
  readonly side: PartySide;
}

/** What the preamble says about who the contract is between. */
export interface PartiesReading {
  /** In the order the contract names them. */
  readonly parties: readonly ContractParty[];
  /** Where they were read: offsets into the text. */
  readonly sentence?: { readonly start: number; readonly end: number };
  /** The name the contract gives the parties together ("Parties", "Members"), if it gives one. */
  readonly collective?: string;
  /** When fewer than two parties could be read: what was missing, in plain words. */
  readonly problem?: string;
}

/** How much of a contract's opening is read for its parties. */
export const PREAMBLE_WINDOW = 20_000;
/** The longest passage one list of parties is read from. */
const PASSAGE_MAX = 3_000;
/** The most places a list of parties is tried from. */
const MAX_TRIES = 40;

/** Where a list of parties starts: "by and between", "between:", "among", "entered into by". */
const ANCHOR =
  /\b(?:by\s+and\s+(?:between|among)|between|among(?:st)?|(?:entered\s+into|made|executed)\s+by)\b\s*:?/gi;
/** Words that end a preamble: the recitals, the agreement's first clause. */
const END =
  /\b(?:WHEREAS|W\s?I\s?T\s?N\s?E\s?S\s?S\s?E\s?T\s?H|WITNESSES|RECE?ITALS?|BACKGROUND|INTRODUCTION|PREAMBLE|Overview|NOW,?\s+THEREFORE|In\s+consideration\s+of|agrees?\s+as\s+follows|TERMS\s+AND\s+CONDITIONS)\b|\n[ \t]*(?:Dated?\b|Source:|ARTICLE\b|Section\s+1\b|1\.\s+[A-Z])/gi;
/** Abbreviations whose period ends no sentence. */
const ABBREVIATION =
  /(?:^|[\s(])(?:inc|corp|co|ltd|llc|lp|llp|plc|no|nos|st|ave|blvd|rd|dr|ste|fl|mr|mrs|ms|jr|sr|etc|bldg|pty|pte|vs|v|mt|ft|[a-z]|(?:[a-z]\.)+[a-z])$/i;

/** Where the passage starting at `start` ends: an end word, the next anchor, a sentence's or paragraph's end. */
function passageEnd(text: string, start: number, limit: number): number {
  const to = Math.min(limit, start + PASSAGE_MAX);
  const span = text.slice(start, to);
  let end = to;
  END.lastIndex = 0;
  const word = END.exec(span);
  if (word) end = Math.min(end, start + word.index);
  ANCHOR.lastIndex = 0;
  const next = ANCHOR.exec(span);
  if (next && next.index > 0) end = Math.min(end, start + next.index);
  for (const m of span.slice(0, end - start).matchAll(/[.!?]["”’)]*(?=\s)|\n[ \t]*\n/g)) {
    const at = start + (m.index ?? 0);
    if (closes(text, at, m[0])) return Math.min(end, at + (m[0].startsWith('\n') ? 0 : m[0].length));
  }
  return end;
}

/** Whether a period (or a blank line) at `at` in `text` ends the passage. */
function closes(text: string, at: number, mark: string): boolean {
  const before = text.slice(Math.max(0, at - 12), at);
  const after = text.slice(at + mark.length, at + mark.length + 40).trimStart();
  const nextWord = /^\S+/.exec(after)?.[0] ?? '';
  // A list goes on after a break: "AND:", "and", an opening parenthesis, a line ending in ":", ";", "," or "and".
  if (/^(?:and|AND|And)\b|^[(（"“]/.test(nextWord)) return false;
  if (mark.startsWith('\n'))
    return !/(?:[:;,]|\b(?:and|AND|And|between|among|BETWEEN|AMONG))\s*$/.test(before);
  // "Vancouver. B.C. V6E 4M3": an initialism after the period is still the address.
  if (ABBREVIATION.test(before) || !/^[A-Z]/.test(nextWord) || /^[A-Z]\./.test(nextWord)) return false;
  return true;
}

/** A candidate reading: the parties of one passage. */
interface Candidate {
  readonly start: number;
  readonly end: number;
  readonly drafts: readonly PartyDraft[];
}

function candidate(
  text: string,
  start: number,
  end: number,
  mode: ListMode,
  known: readonly PartyDraft[],
): Candidate {
  const drafts = readList({ text, start, end, mode, known }, marksIn(text, start, end));
  return { start, end, drafts };
}

/** The start of the paragraph holding `at`. */
function paragraphStart(text: string, at: number): number {
  const blank = text.lastIndexOf('\n\n', at);
  return blank < 0 ? 0 : blank + 2;
}

/** Readings from each "between" in the window, each knowing the parties named before it in its paragraph. */
function listCandidates(text: string, window: number): Candidate[] {
  const out: Candidate[] = [];
  for (const m of text.slice(0, window).matchAll(ANCHOR)) {
    if (out.length >= MAX_TRIES) break;
    const from = (m.index ?? 0) + m[0].length;
    const para = Math.max(paragraphStart(text, m.index ?? 0), from - PASSAGE_MAX);
    const known = candidate(text, para, m.index ?? 0, 'opening', []).drafts;
    out.push(candidate(text, from, passageEnd(text, from, window), 'list', known));
  }
  return out;
}

/** Readings from the first paragraphs whose own sentence names parties ("Kiromic, Inc, a Delaware corporation (the "Company"), …"). */
function openingCandidates(text: string, window: number): Candidate[] {
  const out: Candidate[] = [];
  let from = 0;
  // The first paragraphs only: a preamble opens a contract, and blank lines alone are not paragraphs to try.
  for (let tried = 0; from < window && out.length < 3 && tried < MAX_TRIES; tried++) {
    const next = text.indexOf('\n\n', from);
    const to = Math.min(next < 0 ? window : next, window);
    const end = passageEnd(text, from, to);
    const c = candidate(text, from, end, 'opening', []);
    ANCHOR.lastIndex = 0;
    const anchor = ANCHOR.exec(text.slice(from, end));
    // A paragraph whose parties follow a "between" is read from there instead.
    if (c.drafts.length > 0 && !anchor) out.push(c);
    from = to + 2;
  }
  return out;
}

/** "The buyer: …", "Party A: …": parties given as labelled lines of a form. */
const LABEL =
  /(?:^|\s)(?:the\s+)?(party\s+[a-c]|buyer|seller|vendor|purchaser|supplier|customer|client|licensor|licensee|lessor|lessee|landlord|tenant|lender|borrower|employer|employee|contractor|consultant|franchisor|franchisee|distributor)(?:\s*\/\s*[\w-]+)?\s*[:：]/gi;

function labelledCandidate(text: string): Candidate | undefined {
  const span = text.slice(0, 3_000);
  const found = [...span.matchAll(LABEL)];
  if (found.length < 2) return undefined;
  const drafts = found.map((m) => {
    const role = (m[1] ?? '').replace(/\s+/g, ' ');
    const defined = role.charAt(0).toUpperCase() + role.slice(1).toLowerCase();
    const name = leadingName(span.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 200));
    return { name: name ?? defined, defined, aliases: [] };
  });
  const first = found[0]?.index ?? 0;
  const last = found.at(-1);
  return { start: first, end: (last?.index ?? 0) + (last?.[0].length ?? 0), drafts };
}

const defines = (c: Candidate) => c.drafts.some((d) => d.defined !== undefined);

/** The candidate to believe: the first that names two parties with a defined name, else the fullest. */
function chosen(candidates: readonly Candidate[]): Candidate | undefined {
  const ordered = [...candidates].sort((a, b) => a.start - b.start);
  const good = ordered.find((c) => c.drafts.length >= 2 && defines(c));
  if (good) return good;
  return ordered.reduce<Candidate | undefined>(
    (best, c) => (c.drafts.length > (best?.drafts.length ?? 0) ? c : best),
    undefined,
  );
}

/**
 * The parties of a contract, read from its preamble.
 *
 * @example
 * readParties('This Agreement is made between ACME Corp., a Delaware corporation ("ACME"), and ' +
 *   'Beta LLC ("Customer").').parties
 * // [{ name: 'ACME Corp.', defined: 'ACME', side: 'supplier' }, { name: 'Beta LLC', defined: 'Customer', side: 'customer' }]
 */
export function readParties(text: string): PartiesReading {
  const window = Math.min(text.length, PREAMBLE_WINDOW);
  const labelled = labelledCandidate(text);
  const best = chosen([
    ...openingCandidates(text, window),
    ...listCandidates(text, window),
    ...(labelled ? [labelled] : []),
  ]);
  if (!best || best.drafts.length === 0)
    return {
      parties: [],
      problem:
        'No sentence naming the parties was found at the start of the contract (no "between …" ' +
        'or "entered into by …" with the parties\' names, and no party given a defined name).',
    };
  const sides = sidesOf(best.drafts);
  const parties = best.drafts.map((d, i) => ({
    name: d.name,
    ...(d.defined !== undefined ? { defined: d.defined } : {}),
    ...(d.aliases.length > 0 ? { aliases: d.aliases } : {}),
    side: sides[i] ?? 'other',
  }));
  const collective = collectiveIn(text, best.start, Math.min(text.length, best.end + 600));
  return {
    parties,
    sentence: { start: best.start, end: best.end },
    ...(collective ? { collective } : {}),
    ...(parties.length < 2
      ? {
          problem:
            `Only one party could be read (${parties[0]?.name}); the sentence naming the parties ` +
            'names no other that could be told apart.',
        }
      : {}),
  };
}
