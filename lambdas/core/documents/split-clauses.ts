import type { Clause } from '../model.js';
import { type Marker, parseMarkerAt } from './clause-marker.js';
import { isHeadingLine, isLabelTitle, runInHeading } from './heading-text.js';
import { Numbering } from './numbering.js';
import { findPageArtefacts } from './page-artefacts.js';
import { type Span, splitLongSpan } from './split-long-span.js';
import { findTableOfContents } from './table-of-contents.js';

/** Size bounds of a clause, in characters of normalised text. */
export interface SplitOptions {
  /** Longer clauses are cut at sentence ends into parts (`7.2 (part 2)`). Default 4000. */
  readonly maxClauseChars?: number;
  /** Shorter fragments (a bare heading, a page number) join the next clause. Default 40. */
  readonly minClauseChars?: number;
}

/** Longest clause by default: about a page, as much as an analyst can judge as one clause. */
export const DEFAULT_MAX_CLAUSE_CHARS = 4000;
/** Shortest clause by default: a bare heading, label or page number is not a clause on its own. */
export const DEFAULT_MIN_CLAUSE_CHARS = 40;

/** One line of the text with content, trimmed. */
interface Line {
  readonly start: number;
  readonly text: string;
  /** A blank line separates it from the previous line with content. */
  readonly blankBefore: boolean;
  readonly artefact: boolean;
}

/** How the previous line with content ended, which says whether a label may start this one. */
type Ending = 'start' | 'terminal' | 'conjunction' | 'reference' | 'open';

/** A place where a clause starts, with what is known about it. */
interface Boundary {
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

interface Fragment {
  readonly start: number;
  readonly end: number;
  readonly label?: string;
  readonly heading?: string;
  readonly level?: number;
  readonly headingOnly: boolean;
  /** Consecutive bare labels joined into this fragment so far. */
  readonly bareLabels: number;
}

/**
 * Splits normalised contract text into clauses. Recognises numbered sections (`1.`, `1.1`,
 * `1.1.1`, `12.3(a)`), `Section 4.2`, `ARTICLE IV`/`Article 4`, sub-clauses (`(a)`, `(iv)`, `a.`),
 * exhibits and schedules, recitals, capitalised and Title Case headings, and falls back to
 * paragraphs. A number counts as a label only where a label can stand (line start after a finished
 * sentence, or inline after one when it continues the numbering), so "within\n30 days", dates and
 * amounts do not start clauses. Page numbers and running headers never start a clause.
 *
 * A table of contents at the front (see {@link findTableOfContents}) is front matter: no clause
 * contains it, so its entries are neither analysed nor reported as clauses. A title before it too
 * short to be a clause goes with it.
 *
 * Guarantees, for any input: clauses are in order, do not overlap, have no surrounding
 * whitespace, `text === normalised.slice(start, end)`, and together contain every non-whitespace
 * character of the text outside the table of contents exactly once. Each clause is at most `maxClauseChars` long and, unless
 * the whole text is shorter, at least `minClauseChars`. Text without a letter or digit has no clauses.
 *
 * @throws {RangeError} when the options are out of range.
 */
export function splitClauses(text: string, options: SplitOptions = {}): Clause[] {
  const { max, min } = validateOptions(options);
  if (!/[\p{L}\p{N}]/u.test(text)) return [];
  const { body, frontMatter } = withoutContents(text, toLines(text), min);
  // The table of contents reads as blank space: offsets stay those of `text`, and no clause reaches into it.
  const visible = frontMatter === undefined ? text : blank(text, frontMatter);
  const boundaries = findBoundaries(body);
  const firstAfter = frontMatter === undefined ? undefined : body.find((l) => l.start >= frontMatter.end);
  if (firstAfter !== undefined && !boundaries.some((b) => b.pos === firstAfter.start)) {
    boundaries.push({ pos: firstAfter.start, headingOnly: false });
    boundaries.sort((a, b) => a.pos - b.pos);
  }
  const fragments = toFragments(visible, boundaries);
  // Fragments either side of the table of contents are merged apart, so none spans it.
  const merged =
    frontMatter === undefined
      ? mergeSmall(fragments, min)
      : [
          ...mergeSmall(
            fragments.filter((f) => f.start < frontMatter.start),
            min,
          ),
          ...mergeSmall(
            fragments.filter((f) => f.start >= frontMatter.end),
            min,
          ),
        ];
  const clauses: Clause[] = [];
  for (const fragment of merged) {
    const parts =
      fragment.end - fragment.start > max ? splitLongSpan(visible, fragment, max, min) : [fragment];
    parts.forEach((part, i) => {
      const label =
        fragment.label === undefined || parts.length === 1
          ? fragment.label
          : `${fragment.label} (part ${i + 1})`;
      clauses.push(toClause(text, clauses.length, part, label, fragment.heading));
    });
  }
  return clauses;
}

function validateOptions(options: SplitOptions): { max: number; min: number } {
  const max = options.maxClauseChars ?? DEFAULT_MAX_CLAUSE_CHARS;
  const min = options.minClauseChars ?? DEFAULT_MIN_CLAUSE_CHARS;
  if (!Number.isInteger(max) || max < 200 || max > 1_000_000) {
    throw new RangeError(`maxClauseChars must be a whole number from 200 to 1000000; got ${max}`);
  }
  if (!Number.isInteger(min) || min < 0 || min > max / 4) {
    throw new RangeError(
      `minClauseChars must be a whole number from 0 to maxClauseChars / 4 (${max / 4}); got ${min}`,
    );
  }
  return { max, min };
}

function toClause(text: string, index: number, span: Span, label?: string, heading?: string): Clause {
  return {
    index,
    id: `c${String(index + 1).padStart(4, '0')}`,
    ...(label === undefined ? {} : { label }),
    ...(heading === undefined ? {} : { heading }),
    start: span.start,
    end: span.end,
    text: text.slice(span.start, span.end),
  };
}

/**
 * The span of normalised text that {@link splitClauses} leaves out as front matter (a table of
 * contents, with a short title before it), or undefined when it leaves nothing out.
 */
export function frontMatterSpan(
  text: string,
  options: SplitOptions = {},
): { readonly start: number; readonly end: number } | undefined {
  const { min } = validateOptions(options);
  if (!/[\p{L}\p{N}]/u.test(text)) return undefined;
  return withoutContents(text, toLines(text), min).frontMatter;
}

/**
 * Finds the table of contents and returns the lines of the rest, with the span it covers. Text before
 * it too short to be a clause of its own (a title, an exhibit number) is front matter as well.
 */
function withoutContents(
  text: string,
  lines: readonly Line[],
  min: number,
): { body: readonly Line[]; frontMatter?: { start: number; end: number } } {
  const range = findTableOfContents(lines);
  let to = range?.to ?? 0;
  // Page furniture at its foot goes with it.
  while (lines[to]?.artefact === true) to++;
  const after = range === undefined ? undefined : lines[to];
  // A text that is all contents keeps them: there is nothing else to review.
  if (range === undefined || after === undefined || text.slice(after.start).trim().length < min) {
    return { body: lines };
  }
  const end = after.start;
  const tocStart = (lines[range.from] as Line).start;
  const before = text.slice(0, tocStart).trim();
  const start = before.length < min ? 0 : tocStart;
  return {
    body: lines.filter((l) => l.start < start || l.start >= end),
    frontMatter: { start, end },
  };
}

/** Replaces a span with spaces (line ends kept), so it has the same offsets but no content. */
function blank(text: string, span: { start: number; end: number }): string {
  return (
    text.slice(0, span.start) + text.slice(span.start, span.end).replace(/[^\n]/g, ' ') + text.slice(span.end)
  );
}

function toLines(text: string): Line[] {
  const raw: { start: number; text: string; blankBefore: boolean }[] = [];
  let blank = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const lead = line.length - line.trimStart().length;
    const trimmed = line.trim();
    if (trimmed === '') blank = true;
    else {
      raw.push({ start: offset + lead, text: trimmed, blankBefore: blank });
      blank = false;
    }
    offset += line.length + 1;
  }
  const artefacts = findPageArtefacts(raw.map((l) => l.text));
  return raw.map((l, i) => ({ ...l, artefact: artefacts[i] as boolean }));
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

/** Walks the lines once, in order, deciding where clauses start. */
function findBoundaries(lines: readonly Line[]): Boundary[] {
  const numbering = new Numbering();
  const isSoftBreak = softBreaks(lines);
  const out: Boundary[] = [];
  let prev: { text: string; structural: boolean } | undefined;
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
    const text = line.text;
    // `pos` is where the clause starts: the label, or the title run in before it.
    const accepted: { pos: number; at: number; marker: Marker; level: number | undefined; title?: string }[] =
      [];

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

    // The text before the first label (all of it when there is none) is a heading, a paragraph,
    // or the continuation of the previous clause.
    const headEnd = accepted[0]?.pos ?? text.length;
    let structural = false;
    if (headEnd > 0) {
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
        structural = true;
        if (bare?.bare === true && prev?.structural === true && ctx.afterStructure) {
          // ARTICLE IV / PAYMENT on two lines: the second is the first's title.
          bare.ownHeading = head.replace(/[.:]$/, '');
        } else {
          out.push({ pos: line.start, ownHeading: head.replace(/[.:]$/, ''), level: 0, headingOnly: true });
        }
      } else if ((ctx.paragraphStart || ctx.afterStructure) && !continuation) {
        // After a heading or bare label the text starts afresh, even without a blank line (PDF text).
        out.push({ pos: line.start, headingOnly: false });
      }
    }

    for (const [k, { pos, at, marker, level, title: titleFirst }] of accepted.entries()) {
      const segEnd = accepted[k + 1]?.pos ?? text.length;
      const segment = stripSeparator(text.slice(at + marker.length, segEnd));
      const bare = segment === '';
      // "(a) Comply\nwith all laws;" is a wrapped sentence, not a title on a line of its own.
      const wrapsOn = segEnd === text.length && /^\p{Ll}/u.test(lines[i + 1]?.text ?? '');
      const title = !bare && !wrapsOn && isTitleAfter(marker, segment);
      const isDivision = marker.kind === 'division' || marker.kind === 'annex';
      // The title before the number is the heading ("Formation 1. By this Agreement ..."); else the
      // text after the label when it is only a title; else a heading run into the clause's text.
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
      if (k === accepted.length - 1) structural = bare || title;
    }
    prev = { text, structural };
    artefactSincePrev = false;
  }
  return out;
}

/** Turns boundaries into trimmed spans, each with the label it starts with and the heading it is under. */
function toFragments(text: string, boundaries: readonly Boundary[]): Fragment[] {
  const firstContent = text.search(/\S/);
  const starts: Boundary[] =
    boundaries[0]?.pos === firstContent ? [] : [{ pos: firstContent, headingOnly: false }];
  // Boundaries arrive in text order; a repeated position would make an empty clause, so keep the first.
  for (const b of boundaries) if (b.pos > (starts[starts.length - 1]?.pos ?? -1)) starts.push(b);
  const all = starts;
  const stack: { level: number; heading: string }[] = [];
  const fragments: Fragment[] = [];
  for (const [k, b] of all.entries()) {
    const level = b.headingLevel ?? b.level;
    if (level !== undefined) {
      while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
      if (b.ownHeading !== undefined) stack.push({ level, heading: b.ownHeading });
    }
    let end = all[k + 1]?.pos ?? text.length;
    while (end > b.pos && /\s/.test(text[end - 1] as string)) end--;
    const heading = stack[stack.length - 1]?.heading;
    fragments.push({
      start: b.pos,
      end,
      ...(b.label === undefined ? {} : { label: b.label }),
      ...(heading === undefined ? {} : { heading }),
      ...(b.level === undefined ? {} : { level: b.level }),
      headingOnly: b.headingOnly,
      bareLabels: b.bare === true && b.label !== undefined ? 1 : 0,
    });
  }
  return fragments;
}

/**
 * Joins headings and fragments shorter than `min` to the clause after them (the last one to the
 * clause before it). The joined clause is named after its deepest label: "ARTICLE IV" + "4.1 All
 * facilities ..." is 4.1, "12.1" + "(1) Invoice ..." is 12.1(1); between siblings the first wins,
 * so "3. GOODS:" + "4. Specific order ..." is 3, where the text starts.
 */
function mergeSmall(fragments: readonly Fragment[], min: number): Fragment[] {
  const out: Fragment[] = [];
  let pending: Fragment | undefined;
  for (const [k, f] of fragments.entries()) {
    const cur: Fragment = pending === undefined ? f : join(pending, f);
    pending = undefined;
    if (k < fragments.length - 1 && (cur.headingOnly || cur.end - cur.start < min)) {
      pending = cur;
      continue;
    }
    out.push(cur);
  }
  const last = out[out.length - 1];
  const beforeLast = out[out.length - 2];
  if (last !== undefined && beforeLast !== undefined && last.end - last.start < min) {
    out.splice(-2, 2, { ...beforeLast, end: last.end, headingOnly: false });
  }
  return out;
}

function join(first: Fragment, next: Fragment): Fragment {
  const firstLevel = first.level ?? 0;
  const nextLevel = next.level ?? 0;
  const bareLabels = next.bareLabels > 0 ? first.bareLabels + next.bareLabels : 0;
  if (first.bareLabels >= 3) {
    // A column of numbers with the text elsewhere ("1.\n2.\n2.1\n2.2\n..."): no label is right.
    return {
      start: first.start,
      end: next.end,
      ...withDefined('label', next.label),
      ...withDefined('heading', next.heading),
      ...(next.level === undefined ? {} : { level: next.level }),
      headingOnly: next.headingOnly,
      bareLabels,
    };
  }
  let label = next.label ?? first.label;
  let named = next.label === undefined ? first : next;
  if (first.label !== undefined && next.label !== undefined) {
    if (nextLevel >= 10 && nextLevel > firstLevel && /[\d)]$/.test(first.label)) {
      label = `${first.label}${next.label}`;
    } else if (nextLevel <= firstLevel) {
      label = first.label;
      named = first;
    }
  }
  return {
    start: first.start,
    end: next.end,
    ...withDefined('label', label),
    ...withDefined('heading', named === next ? (next.heading ?? first.heading) : first.heading),
    ...(named.level === undefined ? {} : { level: named.level }),
    headingOnly: next.headingOnly,
    bareLabels,
  };
}

function withDefined<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
