/**
 * The parties one passage of a preamble names, in order: each defined name (`("Licensee")`,
 * `hereinafter called the Supplier`) closes a party, whose name is read from the words before
 * it; the words between one party's mark and the next separator ("and", ";", "AND:") describe
 * the party before. A party with no defined name is read between separators; a mark that follows
 * its party's description without a separator ("…, as servicer (the "Servicer")") is another name
 * for that party.
 */
import { describesOnly, leadingName, looksLikeParty, trailingName } from './party-names.js';
import { sideOfName } from './party-sides.js';
import { parentheses, quotedTerms, type TermMark } from './term-marks.js';

/** A party as one passage names it. */
export interface PartyDraft {
  readonly name: string;
  readonly defined?: string;
  readonly aliases: string[];
}

/** How a passage names its parties: after "between" (`list`), or in a sentence of its own (`opening`). */
export type ListMode = 'list' | 'opening';

/** Defined names that name the agreement, a date or a thing, never a party. */
const NOT_A_PARTY =
  /^(?:agreement|this agreement|contract|amendment|addendum|schedule|exhibit|order|event|term|territory|products?|services?|program|plan|act|premises|property|shares|business|purpose|venture|project|effective date|.*\b(?:date|agreement|amendment|addendum|stock|shares|period|fees?))$/i;

/** Separators of parties, at the top level of a passage. */
const SEPARATOR =
  /;\s*(?:(?:and|AND|And)\b\s*:?)?|\b(?:AND|And|and)\s*:|\n[ \t]*(?:and|AND|And)[ \t]*(?=\n)|,\s*and\s+(?=[A-Z0-9"“(])|\btogether\s+with\s+(?=[A-Z])|\s(?:and|And)\s+(?:the\s+)?(?=[A-Z0-9"“])|\sAND\s+(?=[A-Z0-9"“])/g;

interface Separator {
  readonly start: number;
  readonly end: number;
  /**
   * `strong` always separates; `weak` ("and") only after a party described or suffixed; `upper`
   * ("AND" in capitals) as `weak`, but never inside a plain list ("RESEARCH AND ENGINEERING COMPANY").
   */
  readonly strength: 'strong' | 'weak' | 'upper';
}

/** The separators between `from` and `to` outside parentheses. */
function separatorsIn(text: string, from: number, to: number): Separator[] {
  const parens = parentheses(text, from, to);
  const out: Separator[] = [];
  for (const m of text.slice(from, to).matchAll(SEPARATOR)) {
    const start = from + (m.index ?? 0);
    if (parens.some((p) => start > p.start && start < p.end)) continue;
    const strength = /^\sAND\s/.test(m[0]) ? 'upper' : /^\s(?:and|And)\s/.test(m[0]) ? 'weak' : 'strong';
    out.push({ start, end: start + m[0].length, strength });
  }
  return out;
}

/**
 * Whether a piece reads as a complete party, so a bare "and" after it starts the next one: a name
 * and nothing more, or a name with a description of a company or person ("ACME Corp., a Delaware
 * corporation"); not "A Seminole Indian Company to be formed by … James E. Billie" before "and Craig Talesman".
 */
function complete(piece: string): boolean {
  const name = leadingName(piece);
  if (!name) return false;
  const rest = piece.slice(piece.indexOf(name) + name.length);
  return /^[\s,]*$/.test(rest) ? looksLikeParty(name) : looksLikeParty('', rest);
}

/** The pieces of `from`..`to` between separators; a weak one splits only after a complete piece. */
function pieces(text: string, from: number, to: number, seps: readonly Separator[], all = false): string[] {
  const out: string[] = [];
  let start = from;
  for (const sep of seps) {
    if (sep.start < from || sep.end > to) continue;
    const piece = text.slice(start, sep.start);
    if (all ? sep.strength === 'upper' : sep.strength !== 'strong' && !complete(piece)) continue;
    out.push(piece);
    start = sep.end;
  }
  out.push(text.slice(start, to));
  return out;
}

/** "The party specified as the Franchisee on SCHEDULE 1 attached hereto": a party described, not named. */
function describedName(piece: string): string | undefined {
  const s = piece
    .replace(/^[\s,;:]*(?:(?:and|AND|And)\b[\s:]*)?/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return /^the\s+(?:party|parties|person|persons|entity|company|individual)\b/i.test(s)
    ? s.slice(0, 120)
    : undefined;
}

/** The name a piece holding a party's mark gives it. */
function markedName(piece: string, mode: ListMode, defined: string): string | undefined {
  const lead = leadingName(piece);
  const rest = lead ? piece.slice(piece.indexOf(lead) + lead.length) : '';
  if (lead && (mode === 'list' || looksLikeParty(lead, rest))) return lead;
  if (mode === 'opening') {
    const trail = trailingName(piece);
    if (trail && (looksLikeParty(trail) || sideOfName(defined))) return trail;
    return undefined;
  }
  return describedName(piece);
}

const SUFFIX_NEXT =
  /^(?:inc|ltd|llc|l\.l\.c|lp|l\.p|co|corp|limited|incorporated|plc|gmbh|n\.v|b\.v|s\.a)\b/i;

/**
 * A party named after the previous party's mark with no separator: listed after its description
 * with a comma (", Gulf Houghton Ltd., a company …"), or opening the words (`("Manufacturer")
 * ELECTRAMECCANICA VEHICLES CORP., ("EMV")`, the first party named again).
 */
function commaListed(text: string, from: number, to: number): string | undefined {
  const seg = text.slice(from, to);
  const parens = parentheses(text, from, to).map((p) => ({ start: p.start - from, end: p.end - from }));
  const lead = /^\s*/.exec(seg)?.[0].length ?? 0;
  const starts = [...seg.matchAll(/,\s+(?=[A-Z])/g)].map((m) => (m.index ?? 0) + m[0].length);
  if (/^[A-Z]/.test(seg.slice(lead))) starts.unshift(lead);
  for (const at of starts) {
    if (parens.some((p) => at > p.start && at < p.end) || SUFFIX_NEXT.test(seg.slice(at))) continue;
    const name = leadingName(seg.slice(at));
    if (name && looksLikeParty(name, seg.slice(at + name.length))) return name;
  }
  return undefined;
}

/** Adds the parties without a mark of a run of pieces: names that read as parties or roles. */
function unmarked(drafts: PartyDraft[], list: readonly string[], known: readonly PartyDraft[]): void {
  for (const piece of list) {
    const name = leadingName(piece);
    if (!name) continue;
    const same = known.find((k) => k.defined === name || k.name === name);
    if (same) drafts.push({ ...same, aliases: [...same.aliases] });
    else if (looksLikeParty(name, piece.slice(piece.indexOf(name) + name.length)) || sideOfName(name))
      drafts.push({ name, defined: sideOfName(name) ? name : undefined, aliases: [] });
  }
}

/** A passage to read parties from: where it is, how it names them and who it may name again. */
export interface Passage {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly mode: ListMode;
  /** Parties named earlier in the same paragraph, which a passage may name again by their defined names. */
  readonly known: readonly PartyDraft[];
}

/** Reads the words from `cursor` up to a party's mark, adding the parties they name. */
function readUpTo(p: Passage, drafts: PartyDraft[], cursor: number, mark: TermMark, seps: Separator[]): void {
  const named = mark.terms.find((t) => t.role === 'name');
  if (!named) return;
  const aliases = mark.terms.filter((t) => t.role === 'alias').map((t) => t.term);
  const inner = seps.filter((s) => s.start >= cursor && s.end <= mark.start);
  const previous = drafts.at(-1);
  // After a party's mark, the words up to the first separator still describe that party.
  const after = !!previous && cursor !== p.start;
  if (previous && after && inner.length === 0) {
    const listed = commaListed(p.text, cursor, mark.start);
    const name =
      listed ??
      (p.mode === 'opening'
        ? markedName(p.text.slice(cursor, mark.start), 'opening', named.term)
        : undefined);
    if (name) drafts.push({ name, defined: named.term, aliases });
    else if (p.mode === 'list') previous.aliases.push(named.term, ...aliases);
    return;
  }
  const from = after ? (inner[0] as Separator).end : cursor;
  const list = pieces(p.text, from, mark.start, after ? inner.slice(1) : inner);
  const before = drafts.length;
  unmarked(drafts, list.slice(0, -1), p.known);
  const piece = list.at(-1) ?? '';
  // "MERIDIAN MEDICAL TECHNOLOGIES, INC., a Pfizer company, and Delaware corporation … ("MMT")":
  // the mark names the party before the "and", which the last piece only describes.
  const last = drafts.at(-1);
  if (drafts.length > before && last && !last.defined && describesOnly(piece)) {
    drafts[drafts.length - 1] = { name: last.name, defined: named.term, aliases };
    return;
  }
  const name = markedName(piece, p.mode, named.term);
  if (name) drafts.push({ name, defined: named.term, aliases });
  else if (previous) previous.aliases.push(named.term, ...aliases);
}

/** The parties a passage names, in order, each once. */
export function readList(p: Passage, marks: readonly TermMark[]): PartyDraft[] {
  const seps = separatorsIn(p.text, p.start, p.end);
  const drafts: PartyDraft[] = [];
  let cursor = p.start;
  for (const mark of marks) {
    const named = mark.terms.find((t) => t.role === 'name');
    if (!named || NOT_A_PARTY.test(named.term)) continue;
    readUpTo(p, drafts, cursor, mark, seps);
    cursor = mark.end;
  }
  const tail = seps.filter((s) => s.start >= cursor);
  if (drafts.length === 0 && p.mode === 'list') {
    // No party has a defined name ("by and between Nuance Communications, Inc. and Cerence Inc."):
    // every "and" separates.
    const names = pieces(p.text, p.start, p.end, tail, true).map((s) => leadingName(s));
    // A plain list is short and every piece of it a name: "X and Y", not a sentence of the body.
    if (names.length >= 2 && names.length <= 4 && names.every((n) => n && /^[A-Z0-9]/.test(n)))
      for (const name of names) drafts.push({ name: name as string, aliases: [] });
  } else if (tail.length > 0 && p.mode === 'list') {
    const first = tail[0] as Separator;
    unmarked(drafts, pieces(p.text, first.end, p.end, tail.slice(1)), p.known);
  }
  return merged(drafts);
}

/** The drafts with a party named twice (by the same defined name or name) kept once, its names joined. */
function merged(drafts: readonly PartyDraft[]): PartyDraft[] {
  const out: PartyDraft[] = [];
  for (const d of drafts) {
    const key = (x: PartyDraft) => (x.defined ?? x.name).toLowerCase();
    const same = out.find((o) => key(o) === key(d) || o.name.toLowerCase() === d.name.toLowerCase());
    if (!same) out.push({ ...d, aliases: [...d.aliases] });
    else for (const a of [d.defined, ...d.aliases]) if (a && a !== same.defined) same.aliases.push(a);
  }
  return out.map((d) => ({ ...d, aliases: [...new Set(d.aliases)].filter((a) => a !== d.defined) }));
}

/** The collective name of the parties ("Parties", "Members") given in or just after a passage. */
export function collectiveIn(text: string, from: number, to: number): string | undefined {
  const terms = quotedTerms(text, from, to).filter((t) =>
    /^(?:parties|members|partners|contracting parties)$/i.test(t.term),
  );
  return terms[0]?.term;
}
