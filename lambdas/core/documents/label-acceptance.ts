/**
 * Whether a label (a number, `(a)`, `Section 4.2`, `ARTICLE IV`, an exhibit) is believable where it
 * stands: at the start of a line, given how the line before ended, or inside a line of flattened
 * PDF text, given the words around it; and what accepting one does to the numbering. The walk over
 * a document's lines that asks is clause-boundaries.ts.
 */
import type { Marker } from './clause-marker.js';
import { isHeadingLine, isLabelTitle, runInHeading } from './heading-text.js';
import type { Numbering } from './numbering.js';

/** How the previous line with content ended, which says whether a label may start this one. */
export type Ending = 'start' | 'terminal' | 'conjunction' | 'reference' | 'open';

const TERMINAL = /[.;:!?]["”’')\]]*$/;
const CONJUNCTION = /[;:,] ?(?:and|or|and\/or)$/i;
/** Words a sentence does not end with: a number on the next line continues it ("Section\n2.3"). */
const REFERENCE =
  /(?:^|[\s(])(?:sections?|articles?|clauses?|paragraphs?|subsections?|schedules?|exhibits?|annex(?:es)?|appendix|appendices|items?|nos?\.?|numbers?|§+|of|to|in|under|by|with|and|or|than|per|at|the|a|an|within|for|from|including|plus|minus|us\$|\$)$/i;

export function endingOf(line: string | undefined): Ending {
  if (line === undefined) return 'start';
  if (CONJUNCTION.test(line)) return 'conjunction';
  if (TERMINAL.test(line)) return 'terminal';
  if (REFERENCE.test(line)) return 'reference';
  return 'open';
}

/** What a line's decisions know of where it stands. */
export interface LineContext {
  /** The line starts a paragraph (after a blank line, a soft break, or at the top). */
  readonly paragraphStart: boolean;
  readonly ending: Ending;
  /** The previous line was a heading or a bare label. */
  readonly afterStructure: boolean;
}

/** Whether the label at the very start of a line is believable there. */
export function acceptAtLineStart(m: Marker, ctx: LineContext, numbering: Numbering, line: string): boolean {
  if (ctx.ending === 'reference') return false;
  const newUnit = ctx.paragraphStart || ctx.ending !== 'open' || ctx.afterStructure;
  switch (m.kind) {
    case 'keyword':
      return newUnit;
    case 'annex':
      return newUnit && m.follow !== 'lower' && (line.length <= 120 || m.shouting === true);
    case 'division':
      if (m.follow === 'lower') return false;
      return newUnit || m.shouting === true || (m.path !== undefined && numbering.continues(m.path));
    case 'number': {
      if (m.follow !== 'end' && m.follow !== 'upper') return false;
      const path = m.path as readonly number[];
      if (numbering.continues(path)) return true;
      return newUnit && (path[0] as number) <= 100;
    }
    case 'sub': {
      const { continues } = numbering.classify(m.subs?.[0] ?? []);
      if (m.lineStartOnly) {
        return continues && (m.follow === 'upper' || m.follow === 'end' || (m.follow === 'lower' && newUnit));
      }
      return continues || newUnit;
    }
  }
}

/** Whether a label in the middle of a line is believable there (flattened PDF conversions). */
export function acceptInline(
  m: Marker,
  before: string,
  after: string,
  afterTitle: boolean,
  titled: boolean,
  numbering: Numbering,
): boolean {
  // "... Attention: R. Wheeler 3. Successors and Assigns. This ...": the clause's own heading.
  const ownTitle = m.kind === 'number' && runInHeading(stripSeparator(after)) !== undefined;
  if (m.lineStartOnly) return false;
  const opened = afterTitle || TERMINAL.test(before) || CONJUNCTION.test(before);
  // "... for purposes of Section 1(c) [Confidentiality]" is a cross-reference, whatever follows.
  if (!opened && m.kind !== 'keyword' && REFERENCE.test(before)) return false;
  switch (m.kind) {
    case 'keyword':
      // "RECITALS WHEREAS, ..." : a heading in capitals before a recital opens it too.
      return opened || CAPS_WORD_BEFORE.test(before);
    case 'division':
      if (m.follow === 'lower') return false;
      if (m.shouting) return opened || CAPS_WORD_BEFORE.test(before);
      return opened && m.follow === 'upper' && m.path !== undefined && numbering.continues(m.path);
    case 'number': {
      if ((m.follow !== 'end' && m.follow !== 'upper') || m.path === undefined) return false;
      if (titled && !opened) return numbering.continues(m.path);
      // "... the penalty 19. ARBITRATION: All disputes" and "... as follows: Formation 1. By this":
      // a title after or before the number vouches for it as much as a full stop does.
      if (numbering.continues(m.path) && (opened || titled || CAPITALISED_TITLE.test(after) || ownTitle))
        return true;
      // After a full stop, one missed number is tolerated ("... Jody Stewart 8. ... end. 9. The").
      return TERMINAL.test(before) && numbering.continues(m.path, 1);
    }
    case 'sub': {
      if (m.follow !== 'upper') return false;
      const { reading, continues } = numbering.classify(m.subs?.[0] ?? []);
      // "10. MISCELLANEOUS PROVISIONS (a) Amendment ...": a heading in capitals opens a new list.
      return continues && (opened || (reading.value === 1 && CAPS_WORD_BEFORE.test(before)));
    }
    case 'annex':
      return false;
  }
}

/** A word in capitals just before a label: the end of a heading ("RECITALS WHEREAS", "PROVISIONS (a)"). */
const CAPS_WORD_BEFORE = /(?:^|\s)\p{Lu}[\p{Lu}\d()&'’/-]*\p{Lu}$/u;

/** A title in capitals ending in a colon or full stop, e.g. `ARBITRATION:` or `TERM OF AGREEMENT.` */
const CAPITALISED_TITLE = /^ ?\p{Lu}[\p{Lu} &,'’()/-]{2,60}[.:](?: |$)/u;

/**
 * A short Title Case heading run into the text just before a clause number, after the end of the
 * previous sentence: "... as follows: Formation 1. By this Agreement". Reference words are
 * excluded so "... See Section 5. The" is not read as a heading "See Section".
 */
const TITLE_BEFORE =
  /[.;:!?]["”’')\]]* ((?!(?:See|Section|Sections|Article|Clause|Exhibit|Schedule|Paragraph)\b)\p{Lu}[\p{L}'’&-]*(?: [\p{L}'’&-]+){0,4})$/u;

export function titleBefore(
  text: string,
  at: number,
  first: boolean,
): { start: number; title: string } | undefined {
  const from = Math.max(0, at - 80);
  // At the start of the line, a title needs no full stop before it.
  const window = `${from === 0 ? '. ' : ''}${text.slice(from, at).trimEnd()}`;
  const m = TITLE_BEFORE.exec(window);
  if (m === null) return undefined;
  // After a colon only the first clause may carry a title ("... as follows: Formation 1. By");
  // elsewhere a colon ends a label such as "Attention:" and what follows is a name.
  if (m[0].startsWith(':') && !first) return undefined;
  const title = m[1] as string;
  if (/\b(?:See|Section|Sections|Article|Clause|Exhibit|Schedule|Paragraph)\b/.test(title)) return undefined;
  const start = from - (from === 0 ? 2 : 0) + m.index + m[0].length - title.length;
  return { start, title };
}

/** Records an accepted label in the numbering and returns its heading level. */
export function advance(m: Marker, numbering: Numbering): number | undefined {
  switch (m.kind) {
    case 'keyword':
      // The signature block after IN WITNESS WHEREOF belongs to no section.
      return /^IN WITNESS/.test(m.label) ? 0 : undefined;
    case 'annex':
      numbering.reset();
      return 0;
    case 'division':
      if (m.path !== undefined) numbering.acceptNumber(m.path);
      return /^article/i.test(m.label) ? 0 : Math.max(1, m.path?.length ?? 1);
    case 'number': {
      const path = m.path ?? [];
      numbering.acceptNumber(path);
      let level = path.length;
      for (const readings of m.subs ?? []) {
        const { reading, depth } = numbering.classify(readings);
        numbering.acceptSub(reading, depth);
        level = 10 + depth;
      }
      return level;
    }
    case 'sub': {
      const { reading, depth } = numbering.classify(m.subs?.[0] ?? []);
      numbering.acceptSub(reading, depth);
      return 10 + depth;
    }
  }
}

/**
 * Whether the text after a label is just its title. Sentence case passes after a clause number
 * ("1. General provisions"), but a sub-clause needs a real heading ("(a) Transactional Business"):
 * "(5) One copy of insurance coverage" is an item, not a title.
 */
export function isTitleAfter(marker: Marker, segment: string): boolean {
  return marker.kind === 'sub' ? isHeadingLine(segment) : isLabelTitle(segment);
}

/** Drops the separator between a label and its title: `ARTICLE I - DEFINITIONS`, `1.: Term`. */
export const stripSeparator = (s: string): string =>
  s
    .trim()
    .replace(/^[-–—:.]+ ?/, '')
    .trim();
