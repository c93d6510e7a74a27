/**
 * Where clauses start: one pass over the lines of a document, deciding for each label it finds
 * (a number, `(a)`, `Section 4.2`, `ARTICLE IV`, an exhibit) whether it is believable where it
 * stands, and for each line without one whether it is a heading, a new paragraph or the rest of
 * the clause before. The splitter (split-clauses.ts) turns these boundaries into clauses.
 */
import { type Marker, parseMarkerAt } from './clause-marker.js';
import { isHeadingLine, runInHeading } from './heading-text.js';
import {
  acceptAtLineStart,
  acceptInline,
  advance,
  endingOf,
  isTitleAfter,
  type LineContext,
  stripSeparator,
  titleBefore,
} from './label-acceptance.js';
import { Numbering } from './numbering.js';

/** One line of the text with content, trimmed. */
export interface Line {
  readonly start: number;
  readonly text: string;
  /** A blank line separates it from the previous line with content. */
  readonly blankBefore: boolean;
  readonly artefact: boolean;
}

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

/** Where an inline label may start: after a space, at a digit, `(`, `§` or a capital. */
const INLINE_CANDIDATE = / (?=[\d(§A-Z])/g;

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
