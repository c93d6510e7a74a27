import { type Marker, parseMarkerAt } from './clause-marker.js';

/** What the finder needs of a line: its trimmed text and whether it is page furniture. */
export interface ContentsLine {
  readonly text: string;
  readonly artefact: boolean;
}

/** Lines `[from, to)` that form a table of contents, counted in the lines passed in. */
export interface ContentsRange {
  readonly from: number;
  readonly to: number;
}

/** The heading a table of contents is printed under. */
const CONTENTS_HEADING = /^(?:table of contents|contents|index)(?:[ :]+page)?:?$/i;
/** Headings that carry on a table of contents ("List of Exhibits" after the sections), or its column titles. */
const CONTENTS_SUBHEADING =
  /^(?:list of (?:exhibits|schedules|annexes|appendices|attachments)|exhibits|schedules|annexes|appendices|attachments|(?:article|section)s?(?: +page)?|page)$/i;
/** A table of contents sits in the front of the document: never further in than this share of the lines. */
const FRONT_SHARE = 0.3;
/** A table of contents without a heading must list at least this many sections. */
const MIN_HEADLESS_ENTRIES = 5;
/** Under a heading, fewer entries than this is not a table of contents. */
const MIN_ENTRIES = 3;
/** Longest title of an entry, in words: "Originators' Reacquisition of Bankruptcy Surrendered Receivables". */
const MAX_TITLE_WORDS = 12;
/**
 * Under a heading, titles may run longer: a label printed without its space ("15.5.1Transfer of ...")
 * joins two titles into one.
 */
const MAX_TITLE_WORDS_UNDER_HEADING = 16;

/** Dot leaders and the page number at the end of an entry: "Definitions ........ 3", "Term 12", "Recitals ii". */
const PAGE_REFERENCE = /(?:\s*(?:\.\s*){2,}|\s+)(?:\d{1,3}|[ivxlc]{1,6})$/i;
/**
 * What a title does not contain: a second sentence of three words or more ("Licenses, Permits. Etc."
 * is a title), a clause after a colon or semicolon in lower case
 * ("Term: one year"; "Entire Agreement; Amendments" is a title), a defined term, or the verbs of an obligation.
 */
const PROSE =
  /[.!?]["”’')\]]* +["“(]?\p{L}\S*(?: +\S+){2}|[;:] +\p{Ll}|["“”]|\b(?:shall|means|hereby|agrees?|will)\b/u;

/** Key of a section number, so that `ARTICLE I` printed again in the body is known as a repeat. */
function keyOf(m: Marker): string | undefined {
  if (m.path === undefined || (m.kind !== 'number' && m.kind !== 'division')) return undefined;
  const word = m.kind === 'division' ? (m.label.split(' ')[0] as string).toLowerCase() : '';
  return `${word}${m.path.join('.')}`;
}

interface Entries {
  /** Keys of the section numbers listed on the line, each followed by a title. */
  readonly keys: readonly string[];
  /** The key of the label the line starts with, if any. */
  readonly firstKey?: string;
  readonly markers: number;
  readonly startsWithMarker: boolean;
}

/**
 * Reads a line as entries of a table of contents (labels, each with a short title and perhaps a page
 * number), or returns undefined when any part of it reads like prose.
 */
function readEntries(text: string, maxWords: number): Entries | undefined {
  const found: { at: number; marker: Marker }[] = [];
  const first = parseMarkerAt(text, 0);
  if (first !== undefined && first.kind !== 'keyword') found.push({ at: 0, marker: first });
  const candidate = / (?=[\dA-Z§])/g;
  candidate.lastIndex = first === undefined ? 0 : first.length;
  for (let m = candidate.exec(text); m !== null; m = candidate.exec(text)) {
    const marker = parseMarkerAt(text, m.index + 1);
    if (marker === undefined) continue;
    const inline =
      marker.kind === 'division' ||
      (marker.kind === 'annex' && marker.follow !== 'lower') ||
      (marker.kind === 'number' && (marker.follow === 'upper' || marker.follow === 'end'));
    if (!inline) continue;
    found.push({ at: m.index + 1, marker });
    candidate.lastIndex = m.index + 1 + marker.length;
  }
  const keys: string[] = [];
  let titled = 0;
  const segments = [{ from: 0, to: found[0]?.at ?? text.length }];
  for (const [k, { at, marker }] of found.entries()) {
    segments.push({ from: at + marker.length, to: found[k + 1]?.at ?? text.length });
  }
  for (const [k, { from, to }] of segments.entries()) {
    const title = text
      .slice(from, to)
      .trim()
      .replace(/^[-–—:.)]+ */, '')
      .replace(PAGE_REFERENCE, '')
      .trim();
    if (PROSE.test(title) || title.split(/\s+/).length > maxWords) return undefined;
    if (k === 0 || !/\p{L}/u.test(title)) continue;
    titled++;
    const key = keyOf((found[k - 1] as { marker: Marker }).marker);
    if (key !== undefined) keys.push(key);
  }
  const firstKey = first === undefined ? undefined : keyOf(first);
  const startsWithMarker = found[0]?.at === 0;
  // A line with no label is an entry only when it ends in a page number ("Recitals 1").
  if (found.length === 0 && !PAGE_REFERENCE.test(text)) return undefined;
  if (found.length > 0 && titled === 0 && !PAGE_REFERENCE.test(text)) return undefined;
  return {
    keys,
    ...(firstKey === undefined ? {} : { firstKey }),
    markers: found.length,
    startsWithMarker,
  };
}

/**
 * Whether a section number is the body starting over: one of the first the contents list. A number
 * further down the list printed twice is a misprint ("15.5.2 1" for 15.5.2.1), not the body.
 */
const restarts = (keys: readonly string[], key: string): boolean => keys.slice(0, 3).includes(key);

/**
 * Extends a table of contents from line `from` over entries and page furniture. It ends at the
 * first line that is not an entry, or at one of the first section numbers listed: the body printing it again.
 */
function extend(
  lines: readonly ContentsLine[],
  from: number,
  strict: boolean,
): { to: number; entries: number; keys: string[] } {
  const keys: string[] = [];
  let entries = 0;
  let to = from;
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] as ContentsLine;
    if (line.artefact) continue;
    if (!strict && CONTENTS_SUBHEADING.test(line.text)) {
      to = i + 1;
      continue;
    }
    const read = readEntries(line.text, strict ? MAX_TITLE_WORDS : MAX_TITLE_WORDS_UNDER_HEADING);
    if (read === undefined || (strict && !read.startsWithMarker)) break;
    if (read.firstKey !== undefined && restarts(keys, read.firstKey)) break;
    keys.push(...read.keys);
    entries += read.markers;
    to = i + 1;
  }
  return { to, entries, keys };
}

/** Key of the first section number printed at the start of a line from `from` on. */
function nextKey(lines: readonly ContentsLine[], from: number): string | undefined {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] as ContentsLine;
    if (line.artefact) continue;
    const m = parseMarkerAt(line.text, 0);
    const key = m === undefined ? undefined : keyOf(m);
    if (key !== undefined) return key;
  }
  return undefined;
}

/**
 * Finds the table of contents in the front of a contract, as whole lines: its heading ("Table of
 * Contents", "Contents", "Index") and the entries after it, one per line or flattened many to a line,
 * across page breaks. Without a heading, at least five section numbers in a row, each with only a short
 * title and the next section number in the text listed among them, make one too. Entries are labels
 * with titles of at most twelve words, no second sentence, no defined term in quotes and no "shall" or
 * "means": so a definitions list or a short clause ("12. Counterparts. This Agreement may be ...") is
 * never taken for one. Returns undefined when there is none.
 */
export function findTableOfContents(lines: readonly ContentsLine[]): ContentsRange | undefined {
  const front = Math.max(1, Math.ceil(lines.length * FRONT_SHARE));
  for (let i = 0; i < front; i++) {
    const line = lines[i] as ContentsLine;
    if (line.artefact || !CONTENTS_HEADING.test(line.text)) continue;
    const { to, entries } = extend(lines, i + 1, false);
    if (entries >= MIN_ENTRIES) return { from: i, to };
  }
  for (let i = 0; i < front; i++) {
    const line = lines[i] as ContentsLine;
    if (line.artefact || parseMarkerAt(line.text, 0) === undefined) continue;
    const { to, entries, keys } = extend(lines, i, true);
    const next = nextKey(lines, to);
    if (
      entries >= MIN_HEADLESS_ENTRIES &&
      new Set(keys).size >= 2 &&
      next !== undefined &&
      restarts(keys, next)
    ) {
      return { from: i, to };
    }
    // Lines inside a run that failed start no better run.
    i = Math.max(i, to - 1);
  }
  return undefined;
}
