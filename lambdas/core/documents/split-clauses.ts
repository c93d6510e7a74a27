import type { Clause } from '../clause.js';
import { type Boundary, findBoundaries, type Line } from './clause-boundaries.js';
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
