/**
 * Where clauses start: one pass over the lines of a document, deciding for each label it finds
 * (a number, `(a)`, `Section 4.2`, `ARTICLE IV`, an exhibit) whether it is believable where it
 * stands, and for each line without one whether it is a heading, a new paragraph or the rest of
 * the clause before. The splitter (split-clauses.ts) turns these boundaries into clauses.
 */
import { type Marker, parseMarkerAt } from './clause-marker.js';
import { isHeadingLine, isLabelTitle, runInHeading } from './heading-text.js';
import { Numbering } from './numbering.js';

/** One line of the text with content, trimmed. */
export interface Line {
  readonly start: number;
  readonly text: string;
  /** A blank line separates it from the previous line with content. */
  readonly blankBefore: boolean;
  readonly artefact: boolean;
}

/** How the previous line with content ended, which says whether a label may start this one. */
type Ending = 'start' | 'terminal' | 'conjunction' | 'reference' | 'open';

/** A place where a clause starts, with what is known about it. */
export interface Boundary {
  readonly pos: number;
  readonly label?: string;
  /** Heading this boundary introduces, for itself and what follows at deeper levels. */
  ownHeading?: string;
  /** Depth in the heading hierarchy (0 article or heading line, 1 `4.`, 2 `4.2`, 10+ sub-clauses). */
  readonly level?: number;
  /**
   * Depth of its heading when not `level`: "Term 4. ..." titles the clauses after 4 too, so the
   * title sits just above the number (3.5) and survives until the next title.
   */
  readonly headingLevel?: number;
  /** Only a heading or a bare label: always joins the clause after it. */
  readonly headingOnly: boolean;
  /** A bare label (`ARTICLE IV`): a heading line straight after it is its title, not a new clause. */
  readonly bare?: boolean;
}

/**
 * A document that arrives hard-wrapped (PDF text: one line per printed line, no blank lines) has
 * its paragraph ends only where a line ending a sentence stops well short of the usual width.
 */
function softBreaks(lines: readonly Line[]): (i: number) => boolean {
  const lengths = lines
    .filter((l) => l.text.length >= 30)
    .map((l) => l.text.length)
    .sort((a, b) => a - b);
  const median = lengths[Math.floor(lengths.length / 2)] ?? 0;
  const blanks = lines.filter((l) => l.blankBefore).length;
  const wrapped = lengths.length >= 10 && median >= 40 && median <= 140 && blanks < lines.length * 0.15;
  if (!wrapped) return () => false;
  return (i) => {
    const prev = lines[i - 1];
    const cur = lines[i] as Line;
    return (
      prev !== undefined &&
      prev.text.length < median * 0.8 &&
      /[.:;!?]["”’')\]]*$/.test(prev.text) &&
      /^["“'‘([]?[\p{Lu}\d]/u.test(cur.text)
    );
  };
}

/** A line of a signature block: a conformed signature or a blank to sign on. */
const SIGNATURE_LINE = /\/s\/|[-_]{5}/;

const TERMINAL = /[.;:!?]["”’')\]]*$/;
const CONJUNCTION = /[;:,] ?(?:and|or|and\/or)$/i;
/** Words a sentence does not end with: a number on the next line continues it ("Section\n2.3"). */
const REFERENCE =
  /(?:^|[\s(])(?:sections?|articles?|clauses?|paragraphs?|subsections?|schedules?|exhibits?|annex(?:es)?|appendix|appendices|items?|nos?\.?|numbers?|§+|of|to|in|under|by|with|and|or|than|per|at|the|a|an|within|for|from|including|plus|minus|us\$|\$)$/i;

function endingOf(line: string | undefined): Ending {
  if (line === undefined) return 'start';
  if (CONJUNCTION.test(line)) return 'conjunction';
  if (TERMINAL.test(line)) return 'terminal';
  if (REFERENCE.test(line)) return 'reference';
  return 'open';
}

interface LineContext {
  /** The line starts a paragraph (after a blank line, a soft break, or at the top). */
  readonly paragraphStart: boolean;
  readonly ending: Ending;
  /** The previous line was a heading or a bare label. */
  readonly afterStructure: boolean;
}

/** Whether the label at the very start of a line is believable there. */
function acceptAtLineStart(m: Marker, ctx: LineContext, numbering: Numbering, line: string): boolean {
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
function acceptInline(
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

function titleBefore(text: string, at: number, first: boolean): { start: number; title: string } | undefined {
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

/** Where an inline label may start: after a space, at a digit, `(`, `§` or a capital. */
const INLINE_CANDIDATE = / (?=[\d(§A-Z])/g;

/** Records an accepted label in the numbering and returns its heading level. */
function advance(m: Marker, numbering: Numbering): number | undefined {
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
function isTitleAfter(marker: Marker, segment: string): boolean {
  return marker.kind === 'sub' ? isHeadingLine(segment) : isLabelTitle(segment);
}

/** Drops the separator between a label and its title: `ARTICLE I - DEFINITIONS`, `1.: Term`. */
const stripSeparator = (s: string): string =>
  s
    .trim()
    .replace(/^[-–—:.]+ ?/, '')
    .trim();

/** A label accepted on a line: where its clause starts (`pos`, a title run in before it included). */
interface Accepted {
  readonly pos: number;
  /** Where the label itself is. */
  readonly at: number;
  readonly marker: Marker;
  readonly level: number | undefined;
  readonly title?: string;
}

/** The line with content before the current one, as the next line's decisions need it. */
interface Previous {
  readonly text: string;
  /** It was a heading, or ended with a bare label or a title. */
  readonly structural: boolean;
}

/**
 * Walks the lines once, in order, deciding where clauses start: for each line, the labels on it
 * ({@link labelsOn}), what the text before the first of them is ({@link headBoundary}), and a
 * boundary per label ({@link labelBoundaries}).
 */
export function findBoundaries(lines: readonly Line[]): Boundary[] {
  const numbering = new Numbering();
  const isSoftBreak = softBreaks(lines);
  const out: Boundary[] = [];
  let prev: Previous | undefined;
  let artefactSincePrev = false;

  for (const [i, line] of lines.entries()) {
    if (line.artefact) {
      artefactSincePrev = true;
      continue;
    }
    const ctx: LineContext = {
      paragraphStart: prev === undefined || line.blankBefore || isSoftBreak(i),
      ending: endingOf(prev?.text),
      afterStructure: prev?.structural ?? true,
    };
    const accepted = labelsOn(line.text, ctx, numbering);
    const headStructural = headBoundary(
      lines,
      i,
      accepted[0]?.pos ?? line.text.length,
      ctx,
      prev,
      artefactSincePrev,
      out,
    );
    const labelStructural = labelBoundaries(lines, i, accepted, out);
    prev = { text: line.text, structural: labelStructural ?? headStructural };
    artefactSincePrev = false;
  }
  return out;
}

/**
 * The labels a line holds that are believable where they stand: one at its start, then inline
 * ones, each with the title run in before it when there is one. Accepting a label advances the
 * numbering.
 */
function labelsOn(text: string, ctx: LineContext, numbering: Numbering): Accepted[] {
  const accepted: Accepted[] = [];
  const first = parseMarkerAt(text, 0);
  if (first !== undefined && acceptAtLineStart(first, ctx, numbering, text)) {
    accepted.push({ pos: 0, at: 0, marker: first, level: advance(first, numbering) });
  }
  INLINE_CANDIDATE.lastIndex = accepted.length > 0 ? (first as Marker).length : 0;
  for (let m = INLINE_CANDIDATE.exec(text); m !== null; m = INLINE_CANDIDATE.exec(text)) {
    const at = m.index + 1;
    const marker = parseMarkerAt(text, at);
    if (marker === undefined) continue;
    const last = accepted[accepted.length - 1];
    const lastEnd = last === undefined ? 0 : last.at + last.marker.length;
    // A title is short: what lies further back than this is body text, and not worth slicing.
    const near = at - lastEnd <= 120;
    const between = near ? stripSeparator(text.slice(lastEnd, at)) : undefined;
    const afterTitle =
      last !== undefined && between !== undefined && (between === '' || isTitleAfter(last.marker, between));
    const before = text.slice(Math.max(0, at - 40), at).trimEnd();
    const after = text.slice(at + marker.length, at + marker.length + 80);
    // A heading of the clause's own after the number ("3. Successors and Assigns.") makes a title
    // before it unlikely; "... Attn: J. Wheeler 3." is the end of an address, not a heading.
    const titled =
      marker.kind === 'number' && !afterTitle && runInHeading(stripSeparator(after)) === undefined
        ? titleBefore(text, at, marker.path?.length === 1 && marker.path[0] === 1)
        : undefined;
    // The title must not be all there is after the previous label: then it is that label's title.
    const usable =
      titled !== undefined &&
      (last === undefined || !near || stripSeparator(text.slice(lastEnd, titled.start)) !== '')
        ? titled
        : undefined;
    if (!acceptInline(marker, before, after, afterTitle, usable !== undefined, numbering)) continue;
    accepted.push({
      pos: usable?.start ?? at,
      at,
      marker,
      level: advance(marker, numbering),
      ...(usable === undefined ? {} : { title: usable.title }),
    });
    INLINE_CANDIDATE.lastIndex = at + marker.length;
  }
  return accepted;
}

/**
 * The text of line `i` before its first label (all of it when there is none) is a heading, a
 * paragraph, or the continuation of the previous clause. Adds the boundary it makes, if any, and
 * returns whether the line is structural (a heading).
 */
function headBoundary(
  lines: readonly Line[],
  i: number,
  headEnd: number,
  ctx: LineContext,
  prev: Previous | undefined,
  artefactSincePrev: boolean,
  out: Boundary[],
): boolean {
  if (headEnd === 0) return false;
  const line = lines[i] as Line;
  const text = line.text;
  const head = text.slice(0, headEnd).trim();
  const newUnit =
    ctx.paragraphStart || ctx.ending === 'terminal' || ctx.ending === 'start' || ctx.afterStructure;
  const nextLine = lines[i + 1];
  const standsAlone =
    headEnd < text.length || nextLine === undefined || nextLine.blankBefore || nextLine.artefact;
  // A heading introduces text; one followed by another short line is a table cell or an address.
  let nextIndex = i + 1;
  while (lines[nextIndex]?.artefact === true) nextIndex++;
  const next = lines[nextIndex]?.text;
  const introduces =
    headEnd < text.length ||
    (next !== undefined && (next.length >= 40 || parseMarkerAt(next, 0) !== undefined));
  const continuation =
    /^[\p{Ll},;)\]]/u.test(head) ||
    (artefactSincePrev && prev !== undefined && !prev.structural && ctx.ending !== 'terminal') ||
    // Signature lines ("/s/ Jane Doe ------ Date") form one block, not a clause per signatory.
    (SIGNATURE_LINE.test(head) && prev !== undefined && SIGNATURE_LINE.test(prev.text));
  if (
    newUnit &&
    !continuation &&
    introduces &&
    isHeadingLine(head) &&
    (standsAlone || /^\P{Ll}+$/u.test(head))
  ) {
    const bare = out[out.length - 1];
    if (bare?.bare === true && prev?.structural === true && ctx.afterStructure) {
      // ARTICLE IV / PAYMENT on two lines: the second is the first's title.
      bare.ownHeading = head.replace(/[.:]$/, '');
    } else {
      out.push({ pos: line.start, ownHeading: head.replace(/[.:]$/, ''), level: 0, headingOnly: true });
    }
    return true;
  }
  if ((ctx.paragraphStart || ctx.afterStructure) && !continuation) {
    // After a heading or bare label the text starts afresh, even without a blank line (PDF text).
    out.push({ pos: line.start, headingOnly: false });
  }
  return false;
}

/**
 * A boundary per accepted label of line `i`, with its heading: the title run in before the
 * number ("Formation 1. By this Agreement ..."), else the text after the label when it is only a
 * title, else a heading run into the clause's text. Returns whether the line ends structural (its
 * last label bare or only a title), or undefined when it has no label.
 */
function labelBoundaries(
  lines: readonly Line[],
  i: number,
  accepted: readonly Accepted[],
  out: Boundary[],
): boolean | undefined {
  const line = lines[i] as Line;
  const text = line.text;
  let structural: boolean | undefined;
  for (const [k, { pos, at, marker, level, title: titleFirst }] of accepted.entries()) {
    const segEnd = accepted[k + 1]?.pos ?? text.length;
    const segment = stripSeparator(text.slice(at + marker.length, segEnd));
    const bare = segment === '';
    // "(a) Comply\nwith all laws;" is a wrapped sentence, not a title on a line of its own.
    const wrapsOn = segEnd === text.length && /^\p{Ll}/u.test(lines[i + 1]?.text ?? '');
    const title = !bare && !wrapsOn && isTitleAfter(marker, segment);
    const isDivision = marker.kind === 'division' || marker.kind === 'annex';
    let ownHeading =
      titleFirst ?? (title ? segment.replace(/[.:]$/, '') : bare ? undefined : runInHeading(segment));
    if (ownHeading === undefined && isDivision) ownHeading = marker.label;
    out.push({
      pos: line.start + pos,
      ...(marker.kind === 'keyword' ? {} : { label: marker.label }),
      ...(ownHeading === undefined ? {} : { ownHeading }),
      ...(level === undefined ? {} : { level }),
      ...(titleFirst !== undefined && level !== undefined ? { headingLevel: level - 0.5 } : {}),
      headingOnly: bare || title,
      bare,
    });
    structural = bare || title;
  }
  return structural;
}
