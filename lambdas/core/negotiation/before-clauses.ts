/**
 * The clauses the other side changed, as they read before their changes: what the analysts judge
 * beside the clause as it reads now, so each change can be weighed. A clause's text before comes
 * from the document's own record of its tracked changes (`restore`, placed by `spanBefore`), or,
 * for the differences a comparison found (and tracked changes with no restore), from the changes
 * themselves: their insertions taken out, their deletions put back where they stood.
 *
 * A clause as it read before is a clause of its own, `b0007` for `c0007`, with its after-clause's
 * index, label, heading and offsets (offsets of the text now: what it read before is not in it),
 * so the pipeline plans, prices, screens and counts its calls as any clause's, in chunks after
 * the contract's.
 */
import { applyEdits, type RedlineEdit } from '../../text/redline-edits.js';
import type { Chunk, Clause } from '../clause.js';
import { chunkClauses, type RevisionChange, spanBefore, textBefore } from '../documents/index.js';

/** A clause id of the contract (`c0007`) or of a clause as it read before (`b0007`). */
const BEFORE_ID = /^b(\d{4,})$/;

/** The id of a clause as it read before its changes: `b0007` for `c0007`. */
export const beforeClauseId = (clauseId: string): string => `b${clauseId.slice(1)}`;

/** Whether a clause id names a clause as it read before (`b…`), not one of the contract. */
export const isBeforeClause = (clauseId: string): boolean => BEFORE_ID.test(clauseId);

/** The contract's clause a clause as it read before stands for: `c0007` for `b0007`. */
export const afterClauseId = (beforeId: string): string => `c${beforeId.slice(1)}`;

/** The contract's clauses of a list holding both kinds, in order. */
export const contractClauses = (clauses: readonly Clause[]): Clause[] =>
  clauses.filter((c) => !isBeforeClause(c.id));

/** What a document says of its changes, as far as the clauses' text before needs it. */
export interface ChangeRecord {
  readonly changes: readonly RevisionChange[];
  readonly restore?: readonly RedlineEdit[];
}

/** Whether a change alters the words of a clause (not formatting alone, not outside the body). */
export const changesWords = (c: RevisionChange): boolean =>
  c.kind !== 'formatting' && c.start !== undefined && (c.clauseIds?.length ?? 0) > 0;

/**
 * Each clause the changes alter, with its text as it read before them. A clause whose text before
 * is empty (the other side inserted it whole) or the same as now has none.
 *
 * @param text the normalised text the clauses and changes index
 * @example beforeClauses(doc.text, clauses, doc.revisions) // [{ id: 'b0003', text: '…thirty (30) days…', … }]
 */
export function beforeClauses(text: string, clauses: readonly Clause[], record: ChangeRecord): Clause[] {
  const changed = new Set(record.changes.filter(changesWords).flatMap((c) => c.clauseIds ?? []));
  const out: Clause[] = [];
  const before = record.restore ? textBefore(text, record.restore) : undefined;
  for (const clause of clauses) {
    if (!changed.has(clause.id) || isBeforeClause(clause.id)) continue;
    const mine = record.changes.filter((c) => changesWords(c) && c.clauseIds?.includes(clause.id));
    const tracked = mine.every((c) => c.source === 'tracked');
    let was: string;
    if (tracked && before !== undefined && record.restore) {
      const span = spanBefore(text, record.restore, clause.start, clause.end);
      was = before.slice(span.start, span.end);
    } else was = applyEdits(clause.text, clauseEdits(text, clause, mine));
    was = was.trim();
    if (was === '' || was === clause.text.trim()) continue;
    out.push({ ...clause, id: beforeClauseId(clause.id), text: was });
  }
  return out;
}

/**
 * The edits of a clause's own text that undo the changes in it: an insertion's text (or a move's)
 * taken out, a deletion's put back at its point, a deletion an insertion replaced put back in its
 * place. Word-level changes keep one space between words; a deleted paragraph goes back as one.
 */
function clauseEdits(text: string, clause: Clause, changes: readonly RevisionChange[]): RedlineEdit[] {
  const at = (p: number) => Math.min(Math.max(p - clause.start, 0), clause.text.length);
  const replaced = new Map(
    changes.filter((c) => c.replaces !== undefined).map((c) => [c.replaces as string, c]),
  );
  const edits: RedlineEdit[] = [];
  for (const c of changes) {
    const start = c.start as number;
    const end = c.end ?? start;
    if (c.kind === 'insertion' || c.kind === 'move') {
      const deleted = changes.find((d) => d.id === c.replaces);
      let [s, e] = [at(start), at(end)];
      // Alone, an inserted word leaves the spaces either side of it: one goes with it.
      if (!deleted && clause.text[s - 1] === ' ' && /^[ ,.;]?$/.test(clause.text[e] ?? '')) s--;
      edits.push({ start: s, end: e, insert: deleted?.text ?? '' });
      if (c.kind === 'move' && c.from !== undefined && c.from >= clause.start && c.from <= clause.end)
        edits.push(padded(clause.text, at(c.from), c.text));
    } else if (c.kind === 'deletion' && !replaced.has(c.id)) {
      edits.push(padded(clause.text, at(start), c.text, text[start - 1] === '\n' || start <= clause.start));
    }
  }
  return nonClashing(edits);
}

/** Deleted text put back at a point: a paragraph with its break, words with a space. */
function padded(clause: string, p: number, deleted: string, paragraph = false): RedlineEdit {
  if (paragraph || deleted.includes('\n\n')) return { start: p, end: p, insert: `${deleted}\n\n` };
  const left = p > 0 && !/\s/.test(clause[p - 1] ?? '') ? ' ' : '';
  const right = p < clause.length && !/[\s,.;:)]/.test(clause[p] ?? '') ? ' ' : '';
  return { start: p, end: p, insert: `${left}${deleted}${right}` };
}

/** The edits, in place order, leaving out any that would clash with one before it. */
function nonClashing(edits: readonly RedlineEdit[]): RedlineEdit[] {
  const out: RedlineEdit[] = [];
  for (const e of [...edits].sort((x, y) => x.start - y.start || x.end - y.end)) {
    const last = out[out.length - 1];
    if (last && e.start < last.end) continue;
    out.push(e);
  }
  return out;
}

/**
 * The chunks of the clauses as they read before, numbered after the contract's chunks, as the
 * contract's are cut.
 *
 * @param first the index of the first (the number of the contract's chunks)
 */
export function beforeChunks(
  before: readonly Clause[],
  first: number,
  options: { readonly maxClauses?: number; readonly maxChars?: number },
): Chunk[] {
  if (before.length === 0) return [];
  return chunkClauses(before, options).map((c) => ({ index: first + c.index, clauses: c.clauses }));
}

/** A screen's pairs left out, per clause id (the relevance screen's shape). */
type Screened = Readonly<Record<string, readonly { readonly analystId: string }[]>>;

/**
 * A relevance screen with each changed clause and its text before asked the same analysts: one
 * left out of only one of the two is asked about both, so every category is judged on both sides
 * of the change (a cap their change took out is still read where it stood).
 *
 * @example pairedScreen({ c0003: [a, b], b0003: [a] }) // { c0003: [a], b0003: [a] }
 */
export function pairedScreen<S extends { readonly analystId: string }>(
  screened: Readonly<Record<string, readonly S[]>>,
  clauseIds: readonly string[],
): { screened: Record<string, S[]>; calls: number } {
  const out: Record<string, S[]> = {};
  const ids = new Set(clauseIds);
  for (const id of clauseIds) {
    const pair = isBeforeClause(id) ? afterClauseId(id) : beforeClauseId(id);
    const mine = screened[id] ?? [];
    const kept = ids.has(pair) ? mine.filter((s) => isScreenedIn(screened, pair, s.analystId)) : [...mine];
    if (kept.length > 0) out[id] = kept;
  }
  return { screened: out, calls: Object.values(out).reduce((n, l) => n + l.length, 0) };
}

const isScreenedIn = (screened: Screened, clauseId: string, analystId: string) =>
  screened[clauseId]?.some((s) => s.analystId === analystId) ?? false;

/**
 * A read document's clauses with those its own tracked changes alter as they read before, as a
 * quote counts them: intake adds them to the plan (with any comparison's), and a quote of the
 * document alone (POST /quote, `clause-review plan`) must price the same calls. A document that
 * has them already, or records no change, is as it is.
 */
export function quotedClauses(doc: {
  readonly text: string;
  readonly clauses: readonly Clause[];
  readonly chunks: readonly unknown[];
  readonly revisions?: ChangeRecord;
}): { clauses: readonly Clause[]; chunks: number } {
  if (!doc.revisions || doc.clauses.some((c) => isBeforeClause(c.id)))
    return { clauses: doc.clauses, chunks: doc.chunks.length };
  const before = beforeClauses(doc.text, doc.clauses, doc.revisions);
  return {
    clauses: [...doc.clauses, ...before],
    chunks: doc.chunks.length + beforeChunks(before, doc.chunks.length, {}).length,
  };
}
