/**
 * Our answers to the other side, written in their document beside their markup, which stays as it
 * is (their changes under their name and date, neither accepted nor rejected by us):
 *
 * - each change of theirs in the body gets a comment of ours anchored on it (its inserted text,
 *   with the deletion it replaces; a deletion alone, the place where its text stood), saying the
 *   verdict and the answer;
 * - each comment of theirs gets a reply threaded under it, as Word threads replies: its range
 *   beside theirs, and in `commentsExtended.xml` the reply naming its parent (`comment-threads.ts`);
 * - a counter-proposal is a tracked change of ours on top of theirs, written as any redline is
 *   (`redlines.ts`, `tracked-changes.ts`); an insertion of ours inside their insertion splits it,
 *   as Word does when one reviewer types inside another's, so a lawyer may accept theirs, reject
 *   theirs, or accept ours, and rejecting only ours gives back their version exactly.
 */
import type { Negotiation, NegotiationChange, NegotiationDocx } from '../records/negotiation.js';
import type { Report } from '../report-types.js';
import { after, before, commentMarks, type Placement } from './anchor.js';
import { CommentThreads, ignorable, lastParaId, paraIdsAfterExisting, W14_NS } from './comment-threads.js';
import { type DocxPackage, isW, W_NS, wElement } from './ooxml.js';
import type { DocxRedline } from './redlines.js';
import { type Atom, spanAtoms } from './text-map.js';

/** The counter-proposals of a report's answers, as redlines for the writer to place first. */
export function counterRedlines(report: Pick<Report, 'negotiation'>): DocxRedline[] {
  return (report.negotiation?.changes ?? []).flatMap((c) =>
    c.counter
      ? [
          {
            id: c.counter.id,
            clauseId: c.counter.clauseId,
            edits: c.counter.edits,
            decision: 'proposed' as const,
          },
        ]
      : [],
  );
}

/** Where the answers are written, and by whom. */
export interface AnswerContext {
  readonly pkg: DocxPackage;
  readonly main: string;
  readonly doc: Document;
  readonly comments: Document;
  readonly atoms: readonly Atom[];
  readonly map: Int32Array;
  readonly nextId: () => number;
  readonly author: string;
  readonly date: string;
  readonly negotiation?: Negotiation;
}

/** A comment of ours whose paragraphs carry paragraph ids, so a thread can name it. */
function replyComment(
  ctx: AnswerContext,
  id: number,
  lines: readonly string[],
  paraId: () => string,
): Element {
  const doc = ctx.comments;
  const comment = wElement(doc, 'comment', {
    id: String(id),
    author: ctx.author,
    initials: 'CR',
    date: ctx.date,
  });
  for (const [i, line] of lines.entries()) {
    const p = wElement(doc, 'p');
    p.setAttributeNS(W14_NS, 'w14:paraId', paraId());
    if (i === 0) {
      const mark = wElement(doc, 'r');
      mark.appendChild(wElement(doc, 'annotationRef'));
      p.appendChild(mark);
    }
    const r = wElement(doc, 'r');
    const t = wElement(doc, 't');
    t.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
    t.appendChild(doc.createTextNode(line));
    r.appendChild(t);
    p.appendChild(r);
    comment.appendChild(p);
  }
  return comment;
}

const VERDICT_WORDS: Record<NegotiationChange['verdict'], string> = {
  accept: 'accept',
  reject: 'reject',
  counter: 'counter-proposal',
  'not-judged': 'not judged',
};

/** The atoms either side of a point of the text: the last aligned before it, the first at or after it. */
function around(map: Int32Array, p: number): { prev?: number; next?: number } {
  let prev: number | undefined;
  let next: number | undefined;
  for (let i = Math.min(p, map.length) - 1; i >= 0; i--)
    if ((map[i] ?? -1) >= 0) {
      prev = map[i];
      break;
    }
  for (let i = Math.max(p, 0); i < map.length; i++)
    if ((map[i] ?? -1) >= 0) {
      next = map[i];
      break;
    }
  return { prev, next };
}

/**
 * A comment of ours on each change of theirs in the body: the placements of its range (to be put
 * in with the rest, so ranges and changes nest as they should) and the comments appended.
 */
export function answerChanges(
  ctx: AnswerContext,
  paraId: () => string,
): { placements: Placement[]; written: number; ids: string[] } {
  const placements: Placement[] = [];
  const ids: string[] = [];
  let written = 0;
  for (const change of ctx.negotiation?.changes ?? []) {
    if (change.start === undefined || change.end === undefined) continue;
    const { prev, next } = around(ctx.map, change.start);
    const span = change.end > change.start ? spanAtoms(ctx.map, change.start, change.end) : undefined;
    // A deletion's text stands before the point: the range opens after the character before it.
    const opensBefore = change.deleted !== undefined || !span;
    const from =
      opensBefore && prev !== undefined
        ? after(ctx.atoms[prev] as Atom)
        : span
          ? before(ctx.atoms[span.from] as Atom)
          : undefined;
    const to = span
      ? after(ctx.atoms[span.to] as Atom)
      : next !== undefined
        ? before(ctx.atoms[next] as Atom)
        : undefined;
    if (!from || !to) continue;
    const id = ctx.nextId();
    const marks = commentMarks(ctx.doc, id);
    placements.push(
      { at: from, order: [change.start, 0, 1], nodes: marks.start },
      { at: to, order: [change.end, 2, 1], nodes: marks.end },
    );
    const heading = `Their ${change.kind} (${change.id}, ${change.author}): ${VERDICT_WORDS[change.verdict]}`;
    ctx.comments.documentElement.appendChild(replyComment(ctx, id, [heading, change.answer], paraId));
    ids.push(String(id));
    written++;
  }
  return { placements, written, ids };
}

/** The first element of the main part with this local name and `w:id`. */
function marker(doc: Document, local: string, id: string): Element | undefined {
  const all = doc.getElementsByTagNameNS(W_NS, local);
  for (let i = 0; i < all.length; i++) {
    const el = all.item(i) as Element;
    if (el.getAttributeNS(W_NS, 'id') === id) return el;
  }
  return undefined;
}

/** The run holding a comment's reference, or undefined. */
function referenceRun(doc: Document, id: string): Element | undefined {
  const ref = marker(doc, 'commentReference', id);
  return ref && isW(ref.parentNode, 'r') ? (ref.parentNode as Element) : undefined;
}

/**
 * A reply of ours threaded under each comment of theirs whose range the main part marks: its own
 * range beside theirs (start after their start, end after their end), its reference after theirs,
 * and the thread in `commentsExtended.xml`. Returns how many were written.
 */
export function threadReplies(ctx: AnswerContext, paraId: () => string): number {
  const replies = ctx.negotiation?.comments ?? [];
  if (replies.length === 0) return 0;
  const byId = new Map<string, Element>();
  for (const c of Array.from({ length: ctx.comments.documentElement.childNodes.length }, (_, i) =>
    ctx.comments.documentElement.childNodes.item(i),
  ))
    if (isW(c, 'comment')) byId.set((c as Element).getAttributeNS(W_NS, 'id') ?? '', c as Element);
  let threads: CommentThreads | undefined;
  let written = 0;
  for (const reply of replies) {
    const parent = byId.get(reply.id);
    const start = marker(ctx.doc, 'commentRangeStart', reply.id);
    const end = marker(ctx.doc, 'commentRangeEnd', reply.id);
    if (!parent || !start || !end) continue;
    threads ??= CommentThreads.of(ctx.pkg, ctx.main);
    const parentPara = lastParaId(parent, paraId);
    const id = String(ctx.nextId());
    const comment = replyComment(ctx, Number(id), [reply.reply], paraId);
    ctx.comments.documentElement.appendChild(comment);
    start.parentNode?.insertBefore(wElement(ctx.doc, 'commentRangeStart', { id }), start.nextSibling);
    end.parentNode?.insertBefore(wElement(ctx.doc, 'commentRangeEnd', { id }), end.nextSibling);
    const reference = wElement(ctx.doc, 'r');
    reference.appendChild(wElement(ctx.doc, 'commentReference', { id }));
    const theirs = referenceRun(ctx.doc, reply.id);
    const at = theirs ?? (end.nextSibling as Node);
    at.parentNode?.insertBefore(reference, at.nextSibling);
    threads.add(parentPara);
    threads.add(lastParaId(comment, paraId), parentPara);
    written++;
  }
  threads?.save();
  return written;
}

/**
 * Lifts each insertion written inside another reviewer's insertion out of it: their insertion is
 * split around ours (the part after it a new `w:ins` with their author, their date and an id of
 * its own), as Word writes one reviewer typing inside another's insertion.
 */
export function liftNestedInsertions(doc: Document, nextId: () => number): void {
  const all = doc.getElementsByTagNameNS(W_NS, 'ins');
  const nested: Element[] = [];
  for (let i = 0; i < all.length; i++) {
    const ins = all.item(i) as Element;
    const parent = ins.parentNode as Element | null;
    if (parent && isW(parent, 'ins') && !isW(parent.parentNode, 'rPr')) nested.push(ins);
  }
  for (const ins of nested) {
    const parent = ins.parentNode as Element;
    const tail = parent.cloneNode(false) as Element;
    tail.setAttributeNS(W_NS, tail.getAttributeNodeNS(W_NS, 'id')?.name ?? 'w:id', String(nextId()));
    while (ins.nextSibling) tail.appendChild(ins.nextSibling);
    const container = parent.parentNode as Node;
    container.insertBefore(ins, parent.nextSibling);
    if (tail.firstChild) container.insertBefore(tail, ins.nextSibling);
    if (!parent.firstChild) container.removeChild(parent);
  }
}

/** Elements that hold another reviewer's tracked text. */
const REVISIONS = ['ins', 'del', 'moveTo', 'moveFrom'];
const inRevision = (n: Node | null): n is Element => REVISIONS.some((local) => isW(n, local));

/**
 * Moves a comment's range marks of ours out of the tracked changes they landed in (a range that
 * starts or ends at an edge of their insertion): a reference run inside their insertion would go
 * with it if they rejected it, and take our comment with it. A start first in its revision goes
 * before it, an end and its reference last in theirs go after it; a revision left empty (the
 * part of theirs a split left holding only our marks) is taken out.
 */
export function hoistMarks(doc: Document, ids: readonly string[]): void {
  for (const id of ids) {
    const start = marker(doc, 'commentRangeStart', id);
    while (start && inRevision(start.parentNode) && !previousContent(start)) {
      const rev = start.parentNode;
      rev.parentNode?.insertBefore(start, rev);
      dropIfEmpty(rev);
    }
    const end = marker(doc, 'commentRangeEnd', id);
    const reference = referenceRun(doc, id);
    const group = [end, reference].filter((n): n is Element => n !== undefined);
    const last = group[group.length - 1];
    while (
      last &&
      inRevision(last.parentNode) &&
      !nextContent(last) &&
      group.every((n) => n.parentNode === last.parentNode)
    ) {
      const rev = last.parentNode;
      for (const n of [...group].reverse()) rev.parentNode?.insertBefore(n, rev.nextSibling);
      dropIfEmpty(rev);
    }
  }
}

/** Whether anything but range marks stands before or after a node among its siblings. */
const isMark = (n: Node) =>
  n.nodeType !== 1 || /^(commentRange|bookmark|proofErr|perm)/.test((n as Element).localName ?? '');
function previousContent(n: Node): boolean {
  for (let p = n.previousSibling; p; p = p.previousSibling) if (!isMark(p)) return true;
  return false;
}
function nextContent(n: Node): boolean {
  for (let p = n.nextSibling; p; p = p.nextSibling) if (!isMark(p)) return true;
  return false;
}
function dropIfEmpty(el: Element): void {
  for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) return;
  el.parentNode?.removeChild(el);
}

/** A redline plan's outcome, as the writer reports it. */
interface Planned {
  readonly placed: readonly string[];
  readonly notPlaced: NegotiationDocx['counters']['notPlaced'];
  readonly clauses: readonly {
    readonly clauseId: string;
    readonly redlines: readonly string[];
    readonly text: string;
  }[];
}

/**
 * Our answers in one report.docx: the counter-proposals to plan first, the comments on their
 * changes to place with the rest, and, once every change is written, the threaded replies and
 * the nesting Word expects.
 */
export class Answers {
  /** The counter-proposals, as redlines to plan before the playbook's. */
  readonly counters: readonly DocxRedline[];
  private readonly mine: ReadonlySet<string>;
  private readonly paraId: () => string;
  private replies = 0;
  private threaded = 0;
  private ids: readonly string[] = [];

  constructor(private readonly ctx: AnswerContext) {
    this.counters = counterRedlines(ctx);
    this.mine = new Set(this.counters.map((c) => c.id));
    if (ctx.negotiation) ignorable(ctx.comments, 'w14', W14_NS);
    this.paraId = ctx.negotiation ? paraIdsAfterExisting(ctx.pkg) : () => '';
  }

  /** The ranges of the comments on their changes (the comments themselves are appended now). */
  placements(): Placement[] {
    const answered = answerChanges(this.ctx, this.paraId);
    this.replies = answered.written;
    this.ids = answered.ids;
    return answered.placements;
  }

  /** Once every change is written: insertions of ours lifted out of theirs, replies threaded. */
  finish(): void {
    if (!this.ctx.negotiation) return;
    liftNestedInsertions(this.ctx.doc, this.ctx.nextId);
    hoistMarks(this.ctx.doc, this.ids);
    this.threaded = threadReplies(this.ctx, this.paraId);
  }

  /** Comments written for the answers. */
  get written(): number {
    return this.replies + this.threaded;
  }

  /** The plan's outcome without the counter-proposals, which report.json lists with the answers. */
  redlinesOf<P extends Planned>(plan: P): Pick<P, 'placed' | 'notPlaced' | 'clauses'> {
    return {
      placed: plan.placed.filter((id) => !this.mine.has(id)),
      notPlaced: plan.notPlaced.filter((u) => !this.mine.has(u.id)),
      clauses: plan.clauses
        .map((c) => ({ ...c, redlines: c.redlines.filter((id) => !this.mine.has(id)) }))
        .filter((c) => c.redlines.length > 0),
    } as Pick<P, 'placed' | 'notPlaced' | 'clauses'>;
  }

  /** What was written, for report.json's `negotiation.docx`; nothing when the report has no answers. */
  outcome(plan: Planned): { negotiation?: NegotiationDocx } {
    if (!this.ctx.negotiation) return {};
    return {
      negotiation: {
        replies: this.replies,
        threaded: this.threaded,
        counters: {
          placed: plan.placed.filter((id) => this.mine.has(id)),
          notPlaced: plan.notPlaced.filter((u) => this.mine.has(u.id)),
        },
      },
    };
  }
}
