/**
 * A clean copy compared with the version it answers: the other side's edits, unmarked in their
 * copy, recorded as if they had been tracked. The clauses are paired first, paragraph by
 * paragraph (`align-clauses.ts`): a paragraph of theirs with no counterpart was inserted, one of
 * ours with none deleted, a pair out of order moved, and inside a pair whose words differ the
 * difference is the smallest word-level edit (`word-diff.ts`), so "thirty (30) days" becoming
 * "one hundred eighty (180) days" is one replacement of two words by four. Renumbering, spacing
 * and quote styles are no change. Words are diffed only inside a pair, never across the whole
 * document.
 */

import type { Clause } from '../clause.js';
import { boundedText, clauseIdsAt, MAX_CHANGES, type RevisionChange } from '../documents/index.js';
import { alignClauses, type ClauseAlignment, type Passage } from './align-clauses.js';
import { tokensOf } from './clause-tokens.js';
import { diffWords } from './word-diff.js';

/** Who the differences are recorded as made by, and when. */
export interface CompareOptions {
  /** The author each change is recorded under, e.g. `the other side (untracked)`. */
  readonly author: string;
  /** When, as ISO 8601, when the caller knows (their copy's upload). */
  readonly date?: string;
}

/** The differences found, and how the clauses correspond. */
export interface VersionComparison {
  /**
   * Each difference as a change of theirs (`source: 'compared'`), in the order of their text:
   * offsets index their normalised text, deleted text stands at the point where it stood.
   */
  readonly changes: readonly RevisionChange[];
  /** Differences past {@link MAX_CHANGES}, not listed. */
  readonly omitted: number;
  readonly alignment: ClauseAlignment;
}

interface Draft {
  readonly kind: RevisionChange['kind'];
  readonly text: string;
  readonly start: number;
  readonly end: number;
  readonly from?: number;
  /** The draft (by its place in the list) an insertion replaces. */
  readonly replaces?: number;
}

/**
 * Compares our last version's clauses with their clean copy's.
 *
 * @param ours the clauses of our last version (a stored document's, or another file's parsed)
 * @param theirs the clauses of their copy, whose normalised text the offsets index
 * @throws {RangeError} when `options.author` is empty
 * @example compareVersions(earlier.clauses, parsed.clauses, { author: 'the other side (untracked)' })
 */
export function compareVersions(
  ours: readonly Clause[],
  theirs: readonly Clause[],
  options: CompareOptions,
): VersionComparison {
  if (options.author.trim() === '')
    throw new RangeError(
      'compareVersions needs the author the differences are recorded under; got an empty name',
    );
  const alignment = alignClauses(ours, theirs);
  const drafts = draftsOf(alignment);
  const order = drafts
    .map((_, i) => i)
    .sort((x, y) => (drafts[x]?.start ?? 0) - (drafts[y]?.start ?? 0) || x - y);
  const kept = order.slice(0, MAX_CHANGES);
  const ids = new Map(kept.map((d, n) => [d, `v${n + 1}`]));
  const changes = kept.map((d) => {
    const draft = drafts[d] as Draft;
    const replaces = draft.replaces !== undefined ? ids.get(draft.replaces) : undefined;
    return {
      id: ids.get(d) ?? '',
      source: 'compared' as const,
      kind: draft.kind,
      author: options.author,
      ...(options.date !== undefined ? { date: options.date } : {}),
      ...boundedText(draft.text),
      start: draft.start,
      end: draft.end,
      clauseIds: clauseIdsAt(theirs, draft.start, draft.end),
      ...(draft.from !== undefined ? { from: draft.from } : {}),
      ...(replaces ? { replaces } : {}),
    };
  });
  return { changes, omitted: drafts.length - kept.length, alignment };
}

/**
 * The differences, passage by passage: moves, the word edits inside pairs that differ,
 * insertions and deletions. Passages of one clause that went together (inserted, deleted or
 * moved side by side) are one change.
 */
function draftsOf(alignment: ClauseAlignment): Draft[] {
  const { ours, theirs } = alignment;
  const pointOf = stoodAt(alignment);
  const drafts: Draft[] = [];
  const moves = runs(
    alignment.pairs.filter((p) => p.moved),
    (x, y) => y.theirs === x.theirs + 1 && y.ours === x.ours + 1 && sameClause(theirs, x.theirs, y.theirs),
  );
  for (const run of moves) {
    const first = theirs[run[0]?.theirs ?? 0] as Passage;
    const last = theirs[run[run.length - 1]?.theirs ?? 0] as Passage;
    drafts.push({
      kind: 'move',
      text: spanText(
        theirs,
        run.map((p) => p.theirs),
      ),
      start: first.start,
      end: last.end,
      from: pointOf(run[0]?.ours ?? 0),
    });
  }
  for (const pair of alignment.pairs)
    if (!pair.same)
      drafts.push(
        ...wordChanges(ours[pair.ours] as Passage, theirs[pair.theirs] as Passage, alignment, drafts.length),
      );
  for (const run of runs(alignment.inserted, (x, y) => y === x + 1 && sameClause(theirs, x, y))) {
    const first = theirs[run[0] ?? 0] as Passage;
    drafts.push({
      kind: 'insertion',
      text: spanText(theirs, run),
      start: first.start,
      end: (theirs[run[run.length - 1] ?? 0] as Passage).end,
    });
  }
  for (const run of runs(alignment.deleted, (x, y) => y === x + 1 && sameClause(ours, x, y))) {
    const at = pointOf(run[0] ?? 0);
    drafts.push({ kind: 'deletion', text: spanText(ours, run), start: at, end: at });
  }
  return drafts;
}

/** Items split into runs: each item joins the run before when `follows` says so. */
function runs<T>(items: readonly T[], follows: (x: T, y: T) => boolean): T[][] {
  const out: T[][] = [];
  for (const item of items) {
    const run = out[out.length - 1];
    const last = run?.[run.length - 1];
    if (run && last !== undefined && follows(last, item)) run.push(item);
    else out.push([item]);
  }
  return out;
}

const sameClause = (passages: readonly Passage[], x: number, y: number) =>
  passages[x]?.clause === passages[y]?.clause;

/** The text of passages side by side, a blank line between each. */
const spanText = (passages: readonly Passage[], indexes: readonly number[]) =>
  indexes.map((i) => passages[i]?.text ?? '').join('\n\n');

/** The smallest word-level edit of a pair: a deletion and an insertion per stretch that differs. */
function wordChanges(ours: Passage, theirs: Passage, alignment: ClauseAlignment, first: number): Draft[] {
  const a = tokensOf(ours.text, alignment.renumbering);
  const b = tokensOf(theirs.text);
  const out: Draft[] = [];
  for (const h of diffWords(
    a.map((t) => t.key),
    b.map((t) => t.key),
  )) {
    const inserted = h.bEnd > h.bStart;
    const start = inserted
      ? theirs.start + (b[h.bStart]?.start ?? 0)
      : theirs.start + (b[h.bStart]?.start ?? b[b.length - 1]?.end ?? 0);
    if (h.aEnd > h.aStart) {
      const text = ours.text.slice(a[h.aStart]?.start ?? 0, a[h.aEnd - 1]?.end ?? 0);
      out.push({ kind: 'deletion', text, start, end: start });
    }
    if (inserted) {
      const end = theirs.start + (b[h.bEnd - 1]?.end ?? 0);
      const replaces = h.aEnd > h.aStart ? first + out.length - 1 : undefined;
      out.push({
        kind: 'insertion',
        text: theirs.text.slice(start - theirs.start, end - theirs.start),
        start,
        end,
        ...(replaces !== undefined ? { replaces } : {}),
      });
    }
  }
  return out;
}

/**
 * Where each passage of ours stood in their text: before the passage of theirs that pairs, in
 * place, with the next of ours that does; else after the one that pairs with the last before it.
 */
function stoodAt(alignment: ClauseAlignment): (o: number) => number {
  const { ours, theirs } = alignment;
  const inPlace = new Int32Array(ours.length).fill(-1);
  for (const p of alignment.pairs) if (!p.moved) inPlace[p.ours] = p.theirs;
  const next = new Int32Array(ours.length + 1).fill(-1);
  for (let o = ours.length - 1; o >= 0; o--)
    next[o] = (inPlace[o + 1] ?? -1) >= 0 ? o + 1 : (next[o + 1] ?? -1);
  const previous = new Int32Array(ours.length).fill(-1);
  for (let o = 1; o < ours.length; o++)
    previous[o] = (inPlace[o - 1] ?? -1) >= 0 ? o - 1 : (previous[o - 1] ?? -1);
  const end = theirs[theirs.length - 1]?.end ?? 0;
  return (o) => {
    const after = next[o] ?? -1;
    if (after >= 0) return theirs[inPlace[after] ?? 0]?.start ?? end;
    const before = previous[o] ?? -1;
    if (before >= 0) return theirs[inPlace[before] ?? 0]?.end ?? end;
    return theirs[0]?.start ?? 0;
  };
}
