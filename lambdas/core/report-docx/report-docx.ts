/**
 * report.docx: the contract with a Word comment on every clause at medium risk or above, and
 * each redline not rejected as tracked changes. An uploaded DOCX gets them in the original
 * document, its text and formatting as they were; any other upload gets a plain document of the
 * contract's text, commented and changed the same way.
 */

import type { RedlinedClause, UnplacedRedline } from '../playbooks/review-types.js';
import type { NegotiationDocx } from '../records/negotiation.js';
import type { Report } from '../report-types.js';
import { after, before, commentMarks, type Placement, place } from './anchor.js';
import { authorOf, changeAuthorOf, hasAuthors, relabelOurName } from './authors.js';
import { commented, commentParagraphs, type RedlineMention } from './comment-text.js';
import { DocxPackageError } from './errors.js';
import { plainDocument } from './generate.js';
import { type DocxClauseInsert, insertClauses } from './inserted-clauses.js';
import { DocxPackage, elements, isW, newXml, W_NS, wElement } from './ooxml.js';
import { type DocxRedline, planRedlines } from './redlines.js';
import { Answers } from './replies.js';
import { alignText, documentAtoms, spanAtoms } from './text-map.js';
import { type MarkedEdit, spanMarker, writeChange } from './tracked-changes.js';

/** What report.docx is made of. */
export interface ReportDocxInput {
  readonly report: Report;
  /** The normalised text the report's offsets index (the stored document's `text`). */
  readonly text: string;
  /** The uploaded DOCX, when the upload was one. */
  readonly original?: Uint8Array;
  /** Redlines to write as tracked changes (`rejected` ones are not written). */
  readonly redlines?: readonly DocxRedline[];
  /** Required clauses the contract lacks, each written once as a paragraph of its own. */
  readonly clauses?: readonly DocxClauseInsert[];
}

/** What was written: the bytes, and how the comments and changes were placed. */
export interface ReportDocx {
  readonly bytes: Uint8Array;
  /** `original`: comments in the uploaded DOCX; `generated`: a plain document of the text. */
  readonly source: 'original' | 'generated';
  readonly comments: number;
  /**
   * The ids of the redlines written as tracked changes, those that could not be placed, and
   * what accepting every change of a clause makes of it.
   */
  readonly redlines: {
    readonly placed: readonly string[];
    readonly notPlaced: readonly UnplacedRedline[];
    readonly clauses: readonly RedlinedClause[];
  };
  /** Tracked changes written: each `w:ins`, `w:del` and deleted paragraph mark. */
  readonly changes: number;
  /** The required clauses written as paragraphs of their own, by finding id. */
  readonly inserted: readonly string[];
  /** Comments and changes of the upload under this tool's name, relabelled as the original's. */
  readonly relabelled: number;
  /** Our answers to the other side's changes and comments, when the report has any (`replies.ts`). */
  readonly negotiation?: NegotiationDocx;
}

/** An annotation id (`w:id`) anywhere in a part. */
const ANNOTATION_ID = /:id\s*=\s*["'](\d+)["']/g;

/**
 * Ids for new comments and changes: after every `w:id` the package already uses, so each is
 * unique among all the document's annotations (comments, changes, bookmarks), as ECMA-376
 * asks of an annotation's id.
 */
function idsAfterExisting(pkg: DocxPackage): () => number {
  let next = 0;
  for (const name of pkg.names()) {
    if (!name.endsWith('.xml')) continue;
    for (const m of (pkg.text(name) ?? '').matchAll(ANNOTATION_ID)) next = Math.max(next, Number(m[1]) + 1);
  }
  return () => next++;
}

/** Relabels comments and changes under this tool's name in every part but those given. */
function relabelOtherParts(pkg: DocxPackage, skip: readonly string[]): number {
  let count = 0;
  for (const name of pkg.names()) {
    if (skip.includes(name) || !/^word\/.*\.xml$/.test(name) || !hasAuthors(pkg.text(name) ?? '')) continue;
    const part = pkg.xml(name);
    const n = relabelOurName(part);
    if (n > 0) pkg.setXml(name, part);
    count += n;
  }
  return count;
}

/**
 * Writes report.docx.
 * @throws DocxPackageError when the uploaded DOCX has no readable main document part
 */
export function renderReportDocx(input: ReportDocxInput): ReportDocx {
  const { report, text } = input;
  const jobId = report.job.jobId;
  const pkg = input.original ? DocxPackage.read(input.original, jobId) : plainDocument(text, jobId);
  const main = pkg.mainPart();
  const doc = pkg.xml(main);
  const body = elements(doc.documentElement, W_NS, 'body')[0];
  if (!body) throw new DocxPackageError(`the document part '${main}' has no body`, jobId, main);
  const nextId = idsAfterExisting(pkg);
  const part = pkg.commentsPart(main);
  const comments = part.exists ? pkg.xml(part.name) : newXml(W_NS, 'comments', 'w');
  const relabelled =
    relabelOurName(doc) + relabelOurName(comments) + relabelOtherParts(pkg, [main, part.name]);

  const { atoms, chars } = documentAtoms(body);
  const map = alignText(text, chars);
  const redlines = (input.redlines ?? []).filter((r) => r.decision !== 'rejected');
  const author = authorOf(jobId);
  const date = report.timings.finalizedAt.replace(/\.\d+Z$/, 'Z');
  const negotiation = report.negotiation ? { negotiation: report.negotiation } : {};
  const answers = new Answers({ pkg, main, doc, comments, atoms, map, nextId, author, date, ...negotiation });
  // Counter-proposals to the other side go first: a playbook redline that clashes with one is not placed.
  const plan = planRedlines(text, atoms, map, report.clauses, [...answers.counters, ...redlines]);
  const mentions = new Map<string, RedlineMention[]>();
  for (const redline of redlines) {
    const unplaced = plan.notPlaced.find((u) => u.id === redline.id && u.clauseId === redline.clauseId);
    const list = mentions.get(redline.clauseId) ?? [];
    list.push(unplaced ? { redline, notPlaced: unplaced.detail } : { redline });
    mentions.set(redline.clauseId, list);
  }

  const placements: Placement[] = answers.placements();
  let written = 0;
  for (const clause of report.clauses) {
    const notes = mentions.get(clause.id) ?? [];
    if (!commented(clause) && notes.length === 0) continue;
    const span = spanAtoms(map, clause.start, clause.end);
    const from = span ? atoms[span.from] : undefined;
    const to = span ? atoms[span.to] : undefined;
    if (!from || !to) continue;
    const id = nextId();
    const marks = commentMarks(doc, id);
    // A comment's range opens before, and closes after, the changes at its clause's ends.
    placements.push(
      { at: before(from), order: [clause.start, 0], nodes: marks.start },
      { at: after(to), order: [clause.end, 2], nodes: marks.end },
    );
    comments.documentElement.appendChild(
      commentElement(comments, id, author, date, commentParagraphs(report, clause, notes)),
    );
    written++;
  }
  const marked: (MarkedEdit & { readonly author: string })[] = plan.edits.map((edit, seq) => {
    const start = spanMarker(doc);
    const end = spanMarker(doc);
    placements.push(
      { at: edit.from, order: [edit.start, 1, seq, 0], nodes: [start] },
      { at: edit.to, order: [edit.end, 1, seq, 1], nodes: [end] },
    );
    return { start, end, insert: edit.insert, author: changeAuthorOf(jobId, edit.redline.decidedBy) };
  });
  place(placements);
  let changes = 0;
  for (const edit of marked) changes += writeChange(edit, { author: edit.author, date, nextId }).length;
  answers.finish();
  const inserted = writeInsertedClauses(
    { body, comments, report, atoms, map, jobId, date, nextId, author },
    input.clauses ?? [],
  );
  changes += inserted.length * 2;

  pkg.setXml(main, doc);
  pkg.setXml(part.name, comments);
  return {
    bytes: pkg.bytes(),
    source: input.original ? 'original' : 'generated',
    comments: written + answers.written,
    redlines: answers.redlinesOf(plan),
    changes,
    inserted,
    relabelled,
    ...answers.outcome(plan),
  };
}

/** What writing the inserted clauses needs of the document being written. */
interface InsertContext {
  readonly body: Element;
  readonly comments: Document;
  readonly report: Report;
  readonly atoms: ReturnType<typeof documentAtoms>['atoms'];
  readonly map: ReturnType<typeof alignText>;
  readonly jobId: string;
  readonly date: string;
  readonly nextId: () => number;
  /** The job's comment author. */
  readonly author: string;
}

/** Writes the required clauses as paragraphs of their own, each with a comment saying what it is. */
function writeInsertedClauses(c: InsertContext, clauses: readonly DocxClauseInsert[]): string[] {
  if (clauses.length === 0) return [];
  const paragraphAt = (offset: number) => {
    const span = spanAtoms(c.map, offset, offset + 1);
    const atom = span ? c.atoms[span.to] : undefined;
    for (let n: Node | null = atom?.node ?? null; n; n = n.parentNode) if (isW(n, 'p')) return n as Element;
    return undefined;
  };
  const written = insertClauses(c.body, c.report.clauses, clauses, paragraphAt, (insert) => ({
    author: changeAuthorOf(c.jobId, insert.decidedBy),
    date: c.date,
    nextId: c.nextId,
  }));
  const doc = c.body.ownerDocument as Document;
  for (const insert of clauses) {
    const p = written.get(insert.id);
    if (!p) continue;
    const id = c.nextId();
    const marks = commentMarks(doc, id);
    const ins = elements(p, W_NS, 'ins')[0];
    for (const n of marks.start) p.insertBefore(n, ins ?? null);
    for (const n of marks.end) p.appendChild(n);
    const why = insert.decidedBy
      ? `decided by ${insert.decidedBy}: the contract must have it`
      : 'proposed, undecided: nobody has accepted it';
    c.comments.documentElement.appendChild(
      commentElement(c.comments, id, c.author, c.date, [
        `Required clause ${insert.id}: the contract has none, so the playbook's clause is inserted here as a clause of its own (${why}).`,
        'Reject the change to leave the contract without it.',
      ]),
    );
  }
  return [...written.keys()];
}

/** One `w:comment`: a paragraph per line, the first carrying the annotation mark Word expects. */
function commentElement(
  doc: Document,
  id: number,
  author: string,
  date: string,
  lines: readonly string[],
): Element {
  const comment = wElement(doc, 'comment', { id: String(id), author, initials: 'CR', date });
  for (const [i, line] of lines.entries()) {
    const p = wElement(doc, 'p');
    if (i === 0) {
      const mark = wElement(doc, 'r');
      mark.appendChild(wElement(doc, 'annotationRef'));
      p.appendChild(mark);
    }
    const r = wElement(doc, 'r');
    if (i === 0) {
      const rPr = wElement(doc, 'rPr');
      rPr.appendChild(wElement(doc, 'b'));
      r.appendChild(rPr);
    }
    const t = wElement(doc, 't');
    t.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
    t.appendChild(doc.createTextNode(line));
    r.appendChild(t);
    p.appendChild(r);
    comment.appendChild(p);
  }
  return comment;
}

/** The paragraphs' texts of a document part, as read back (for tests and checks). */
export function paragraphTexts(doc: Document): string[] {
  const out: string[] = [];
  const walk = (el: Element, into: string[] | undefined) => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const child = n as Element;
      if (isW(child, 'p')) {
        const texts: string[] = [];
        walk(child, texts);
        out.push(texts.join(''));
      } else if (isW(child, 't') && into) into.push(child.textContent ?? '');
      else walk(child, into);
    }
  };
  walk(doc.documentElement, undefined);
  return out;
}
