/**
 * The terms a contract defines, each with where its definition is: `"Services" means …`,
 * `("Licensee")`, `(the "Effective Date")`, `hereinafter "Distributor"`, a definitions list's
 * `1.1 TRANSPORTATION QUANTITY - shall mean …`, and the terms it says are defined elsewhere
 * (`Inventions (as defined below)`, `"Software" as defined in Section 11.1`). A redline that
 * uses a capitalised term asks `defines(term)` whether the contract gives it a meaning, in any
 * case and in the singular or the plural.
 *
 * Each pattern is read in one forward pass over the whole text, and each look-back is a fixed
 * number of characters, so a 290 KB contract takes time in proportion to its length.
 */
import { cleanTerm, marksIn, quotedTerms } from './term-marks.js';

/** How a contract defines a term. */
export type DefinitionForm =
  /** `"Term" means …`, `"Term" shall have the meaning …`, `1.1 TERM - shall mean …`. */
  | 'means'
  /** `("Term")`, `(the "Term")`, `hereinafter "Term"`, `hereinafter called the Term`. */
  | 'named'
  /** `Term (as defined below)`, `"Term" as defined in Section 2`: the meaning is given elsewhere. */
  | 'reference';

/** One defined term. */
export interface DefinedTerm {
  /** As the contract writes it where it defines it. */
  readonly term: string;
  /** Offset of the term in its definition (the first one; a reference only when there is no other). */
  readonly at: number;
  readonly form: DefinitionForm;
}

/** The terms a contract defines, and a lookup by any case or number. */
export interface DefinedTerms {
  /** In the order of their definitions. */
  readonly terms: readonly DefinedTerm[];
  /**
   * The definition of `term`, whatever its case and number ("services", "Service" and
   * "SERVICES" find "Services"), or undefined when the contract defines no such term.
   */
  defines(term: string): DefinedTerm | undefined;
}

/** Most terms kept: a contract with more is not a contract a person drafted. */
export const MAX_DEFINED_TERMS = 5_000;
/** Most characters read for terms: five times the longest contract of the development set. */
export const MAX_DEFINED_TERMS_CHARS = 1_500_000;

/** The last word of a term in the singular: "Services" → "service", "Parties" → "party". */
function singular(word: string): string {
  if (/ies$/.test(word) && word.length > 4) return `${word.slice(0, -3)}y`;
  if (/(?:ss|us|is)$/.test(word)) return word;
  if (/(?:sses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/s$/.test(word) && word.length > 3) return word.slice(0, -1);
  return word;
}

/**
 * The key a term is looked up by: lower case, single spaces, no "(s)" or possessive, its last
 * word in the singular.
 */
export function termKey(term: string): string {
  const words = term
    .toLowerCase()
    .replace(/[*_"“”‘’]/g, '')
    .replace(/\(s\)|['’]s\b/g, '')
    .replace(/[.,;:]+$/, '')
    .trim()
    .split(/\s+/);
  const last = words.pop() ?? '';
  return [...words, singular(last)].join(' ');
}

/** What may stand between a quoted term and the verb that defines it: a parenthesis, a comma. */
const MEANS_AFTER =
  /^\s*(?:\([^()]{0,80}\)\s*)?[,:]?\s*(?:shall\s+|will\s+|also\s+)?(?:means?\b|(?:has|have|shall\s+have)\s+the\s+meanings?\b|refers?\s+to\b|includes?\b|(?:is|are|shall\s+be)\s+defined\b|[:–—]\s|-\s)/i;
const REFERENCE_AFTER =
  /^\s*[,(]?\s*(?:as\s+(?:such\s+term\s+is\s+|is\s+)?(?:defined|hereinafter\s+defined|set\s+forth)|has\s+the\s+meaning\s+(?:set\s+forth|given|ascribed))\b/i;
/** A definitional verb with no quoted term before it: the look-back reads an unquoted term. */
const VERB = /\b(?:shall\s+mean|means|(?:shall\s+)?ha(?:s|ve)\s+the\s+meaning|shall\s+be\s+as\s+defined)\b/g;
/** An unquoted term ending a look-back, after a list label or a line start: "1.1 TRANSPORTATION QUANTITY -". */
const UNQUOTED_BEFORE =
  /(?:^|\n|\(\w{1,4}\)|\b\d{1,3}(?:\.\d{1,3})*\.?|\b[a-z]{1,2}\))\s+([A-Z][A-Za-z0-9'’/&-]*(?:\s+(?:of|and|or|the|for|in|to|[A-Z][A-Za-z0-9'’/&-]*)){0,6})\s*(?:[-–—:,]\s*)?$/;
/** "Inventions (as defined below)": the capitalised words before "as defined". */
const AS_DEFINED = /\bas\s+(?:such\s+term\s+is\s+)?(?:defined|hereinafter\s+defined)\b/g;
const CAPITALISED_BEFORE = /((?:[A-Z][A-Za-z0-9'’-]*\s+){0,4}[A-Z][A-Za-z0-9'’-]*)\s*$/;

/** Collects terms, keeping each one's first definition over any reference to it. */
class Collector {
  readonly byKey = new Map<string, DefinedTerm>();

  add(term: string | undefined, at: number, form: DefinitionForm): void {
    const clean = term && cleanTerm(term);
    if (!clean || this.byKey.size >= MAX_DEFINED_TERMS) return;
    const key = termKey(clean);
    const had = this.byKey.get(key);
    const better =
      !had || (had.form === 'reference' && form !== 'reference') || (had.form === form && at < had.at);
    if (better) this.byKey.set(key, { term: clean, at, form });
  }
}

/** `"Term" means …` and `"Term" as defined in …`: a quoted term and what follows it. */
function quotedDefinitions(text: string, into: Collector): void {
  for (const found of quotedTerms(text, 0, text.length)) {
    const after = text.slice(found.end, found.end + 140);
    if (MEANS_AFTER.test(after)) into.add(found.term, found.at, 'means');
    else if (REFERENCE_AFTER.test(after)) into.add(found.term, found.at, 'reference');
  }
}

/** `1.1 TRANSPORTATION QUANTITY - shall mean`, `(a) Affiliate means`: unquoted terms of a definitions list. */
function listedDefinitions(text: string, into: Collector): void {
  for (const m of text.matchAll(VERB)) {
    const at = m.index ?? 0;
    const back = text.slice(Math.max(0, at - 90), at);
    if (/["”’]\s*(?:\([^()]*\)\s*)?[,:]?\s*(?:shall\s+)?$/.test(back)) continue; // quoted: read above
    const u = UNQUOTED_BEFORE.exec(back);
    if (u?.[1]) into.add(u[1], at - back.length + (u.index ?? 0) + u[0].indexOf(u[1]), 'means');
  }
}

/** `Inventions (as defined below)`: a term whose meaning the contract gives elsewhere. */
function references(text: string, into: Collector): void {
  for (const m of text.matchAll(AS_DEFINED)) {
    const at = m.index ?? 0;
    // The look-back ends before the "(" of "Inventions (as defined below)".
    const back = text.slice(Math.max(0, at - 80), at).replace(/\(\s*$/, '');
    const c = CAPITALISED_BEFORE.exec(back);
    if (c?.[1] && !/["”’]\s*$/.test(back)) into.add(c[1], at - back.length + (c.index ?? 0), 'reference');
  }
}

/** Words before a quoted term in parentheses that make a lowercase one a definition: `(hereinafter referred to as the "order")`. */
const NAMING_LEAD = /(?:here(?:in)?after|referred\s+to\s+as|called|the|a|an)\s*["“‘']?$/i;

/** `("Term")`, `(the "Term")`, `hereinafter "Term"`: the names a contract gives as it goes. */
function namedTerms(text: string, into: Collector): void {
  for (const mark of marksIn(text, 0, text.length))
    for (const t of mark.terms) {
      const lead = text.slice(mark.start, t.at);
      // `(or "without limitation")` quotes words; a definition names a Term, or says it names one.
      if (!/^[A-Z0-9]/.test(t.term) && !NAMING_LEAD.test(lead)) continue;
      into.add(t.term, t.at, /\bas\s+defined\b/i.test(lead) ? 'reference' : 'named');
    }
}

/**
 * Every term a contract defines, with where.
 *
 * @example
 * const terms = readDefinedTerms('"Services" means the services in Exhibit A.');
 * terms.defines('service')?.term // 'Services'
 */
export function readDefinedTerms(whole: string): DefinedTerms {
  const text = whole.slice(0, MAX_DEFINED_TERMS_CHARS);
  const into = new Collector();
  quotedDefinitions(text, into);
  namedTerms(text, into);
  listedDefinitions(text, into);
  references(text, into);
  const terms = [...into.byKey.values()].sort((a, b) => a.at - b.at);
  const byKey = into.byKey;
  return { terms, defines: (term) => byKey.get(termKey(term)) };
}
