/**
 * The changes and comments read from a document's parts, put together: moves paired (where text
 * went with where it stood), ids given in text order, each change and comment attributed to the
 * clauses it falls in, replies threaded under the comments they answer, and the lists bounded.
 */
import type { RedlineEdit } from '../../text/redline-edits.js';
import type { Clause } from '../clause.js';
import { type CommentEntry, readComments, readThreads } from './docx-comments.js';
import { type LoggedChange, loggedText } from './revision-log.js';
import {
  boundedText,
  type DocumentRevisions,
  MAX_CHANGES,
  MAX_COMMENTS,
  type RevisionChange,
  type RevisionComment,
} from './revision-types.js';
import type { CommentRange, PartRevisions } from './revision-walk.js';

/** One part as read; the body carries its restore edits (undefined when too long to keep). */
export interface PartRead extends PartRevisions {
  readonly part: string;
  readonly restore?: RedlineEdit[] | undefined;
}

/** What {@link assembleRevisions} puts together. */
export interface AssemblyInput {
  readonly text: string;
  readonly clauses: readonly Clause[];
  /** The body first (the one with restore edits), then the other parts read. */
  readonly parts: readonly PartRead[];
  readonly comments?: Document | undefined;
  readonly threads?: Document | undefined;
  readonly unread: readonly string[];
}

/** The document's revisions, or undefined when it has no change and no comment. */
export function assembleRevisions(input: AssemblyInput): DocumentRevisions | undefined {
  const { changes, omitted: omittedChanges } = changesOf(input);
  const { comments, omitted: omittedComments } = commentsOf(input);
  const body = input.parts.find((p) => 'restore' in p);
  const restore = body?.restore;
  if (changes.length + comments.length + omittedChanges + omittedComments === 0 && input.unread.length === 0)
    return undefined;
  return {
    changes,
    comments,
    ...(restore && restore.length > 0 ? { restore } : {}),
    ...(omittedChanges + omittedComments > 0
      ? { omitted: { changes: omittedChanges, comments: omittedComments } }
      : {}),
    ...(input.unread.length > 0 ? { unread: [...input.unread] } : {}),
  };
}

function changesOf({ text, clauses, parts }: AssemblyInput): { changes: RevisionChange[]; omitted: number } {
  const changes: RevisionChange[] = [];
  let omitted = 0;
  for (const read of parts) {
    const inBody = 'restore' in read;
    const logged = pairMoves(read.changes);
    if (inBody) logged.sort((a, b) => (a.start ?? 0) - (b.start ?? 0) || a.seq - b.seq);
    const ids = new Map<number, string>();
    for (const c of logged) {
      if (changes.length + ids.size >= MAX_CHANGES) {
        omitted++;
        continue;
      }
      ids.set(c.seq, `t${changes.length + ids.size + 1}`);
    }
    for (const c of logged) {
      const id = ids.get(c.seq);
      if (id === undefined) continue;
      const change = changeOf(c, id, read.part, inBody ? text : undefined, clauses);
      // An insertion names the deletion it replaces by that one's id.
      const replaces = c.replaces !== undefined ? ids.get(c.replaces) : undefined;
      changes.push(replaces && change.kind === 'insertion' ? { ...change, replaces } : change);
    }
  }
  return { changes, omitted };
}

function changeOf(
  c: LoggedChange,
  id: string,
  part: string,
  text: string | undefined,
  clauses: readonly Clause[],
): RevisionChange {
  const kind = c.kind === 'move-to' ? 'move' : c.kind === 'move-from' ? 'deletion' : c.kind;
  const placed = text !== undefined && c.start !== undefined && c.end !== undefined;
  return {
    id,
    source: 'tracked',
    kind,
    author: c.author,
    ...(c.date !== undefined ? { date: c.date } : {}),
    ...loggedText(c, text),
    part,
    ...(placed
      ? { start: c.start, end: c.end, clauseIds: clauseIdsAt(clauses, c.start ?? 0, c.end ?? 0) }
      : {}),
    ...(placed && c.from !== undefined ? { from: c.from } : {}),
    ...(c.insertedBy ? { insertedBy: c.insertedBy } : {}),
    ...(c.properties ? { properties: c.properties } : {}),
  };
}

/**
 * Moves paired by name: where the text went becomes the move, with the point it stood at; where
 * it stood is dropped. Half a move (its other half missing) is an insertion or a deletion, as
 * ECMA-376 reads it.
 */
function pairMoves(changes: readonly LoggedChange[]): LoggedChange[] {
  const from = new Map<string, LoggedChange>();
  const to = new Set<string>();
  for (const c of changes) {
    if (c.kind === 'move-from' && c.move !== undefined && !from.has(c.move)) from.set(c.move, c);
    if (c.kind === 'move-to' && c.move !== undefined) to.add(c.move);
  }
  const out: LoggedChange[] = [];
  for (const c of changes) {
    if (c.kind === 'move-from') {
      if (c.move !== undefined && to.has(c.move)) continue;
      c.kind = 'deletion';
    } else if (c.kind === 'move-to') {
      const source = c.move !== undefined ? from.get(c.move) : undefined;
      if (source?.start !== undefined) c.from = source.start;
      else if (!source) c.kind = 'insertion';
    }
    out.push(c);
  }
  return out;
}

function commentsOf(input: AssemblyInput): { comments: RevisionComment[]; omitted: number } {
  if (!input.comments) return { comments: [], omitted: 0 };
  const entries = readComments(input.comments);
  const threads = input.threads ? readThreads(input.threads) : new Map();
  const byParaId = new Map(entries.filter((e) => e.paraId).map((e) => [e.paraId as string, e]));
  const rangeOf = (id: string): { part: string; range: CommentRange } | undefined => {
    for (const read of input.parts) {
      const range = read.ranges.get(id);
      if (range) return { part: read.part, range };
    }
    return undefined;
  };
  const comments: RevisionComment[] = [];
  for (const entry of entries.slice(0, MAX_COMMENTS)) {
    const thread = entry.paraId ? threads.get(entry.paraId) : undefined;
    const parent = thread?.parent ? byParaId.get(thread.parent) : undefined;
    // A reply Word wrote with no range of its own sits on its comment's.
    const found = rangeOf(entry.id) ?? (parent ? rangeOf(parent.id) : undefined);
    comments.push(commentOf(entry, found, input, parent, thread?.done === true));
  }
  return { comments, omitted: Math.max(0, entries.length - MAX_COMMENTS) };
}

function commentOf(
  entry: CommentEntry,
  found: { part: string; range: CommentRange } | undefined,
  input: AssemblyInput,
  parent: CommentEntry | undefined,
  done: boolean,
): RevisionComment {
  const { start, end } = found?.range ?? {};
  const placed = start !== undefined && end !== undefined;
  return {
    id: entry.id,
    author: entry.author,
    ...(entry.initials !== undefined ? { initials: entry.initials } : {}),
    ...(entry.date !== undefined ? { date: entry.date } : {}),
    text: boundedText(entry.text).text,
    ...(found ? { part: found.part } : {}),
    ...(placed ? { start, end, clauseIds: clauseIdsAt(input.clauses, start, end) } : {}),
    ...(parent ? { parentId: parent.id } : {}),
    ...(done ? { done } : {}),
  };
}

/**
 * The ids of the clauses a span of the normalised text falls in. A point (or a span in no
 * clause) belongs to the clause holding it, else to the clause ending there (text deleted at a
 * clause's end), else to the next clause (text deleted between two), else to the last.
 */
export function clauseIdsAt(clauses: readonly Clause[], start: number, end: number): string[] {
  // The first clause that ends after `start` (clauses are in order and do not overlap).
  let lo = 0;
  let hi = clauses.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((clauses[mid]?.end ?? 0) <= start) lo = mid + 1;
    else hi = mid;
  }
  const ids: string[] = [];
  for (let i = lo; i < clauses.length && (clauses[i]?.start ?? 0) < end; i++) ids.push(clauses[i]?.id ?? '');
  if (ids.length > 0) return ids;
  const holding = clauses[lo];
  if (holding && holding.start <= start && start < holding.end) return [holding.id];
  const ending = clauses[lo - 1];
  if (ending && ending.end === start) return [ending.id];
  const next = clauses[lo] ?? clauses[clauses.length - 1];
  return next ? [next.id] : [];
}
