/**
 * report.docx: the contract with a Word comment on every clause at medium risk or above. An
 * uploaded DOCX gets the comments in the original document, its text and formatting as they
 * were; any other upload gets a plain document of the contract's text, commented the same way.
 */
import type { Report } from '../finalize/report-types.js';
import { anchorComments, type CommentAnchor } from './anchor.js';
import { authorOf, hasAuthors, relabelOurName } from './authors.js';
import { commented, commentParagraphs } from './comment-text.js';
import { DocxPackageError } from './errors.js';
import { plainDocument } from './generate.js';
import { DocxPackage, elements, isW, newXml, W_NS, wElement } from './ooxml.js';
import { alignText, documentAtoms, spanAtoms } from './text-map.js';

/** What report.docx is made of. */
export interface ReportDocxInput {
  readonly report: Report;
  /** The normalised text the report's offsets index (the stored document's `text`). */
  readonly text: string;
  /** The uploaded DOCX, when the upload was one. */
  readonly original?: Uint8Array;
}

/** What was written: the bytes, and how the comments were placed. */
export interface ReportDocx {
  readonly bytes: Uint8Array;
  /** `original`: comments in the uploaded DOCX; `generated`: a plain document of the text. */
  readonly source: 'original' | 'generated';
  readonly comments: number;
  /** Comments and changes of the upload under this tool's name, relabelled as the original's. */
  readonly relabelled: number;
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
  const jobId = input.report.job.jobId;
  const pkg = input.original ? DocxPackage.read(input.original, jobId) : plainDocument(input.text, jobId);
  const main = pkg.mainPart();
  const doc = pkg.xml(main);
  const body = elements(doc.documentElement, W_NS, 'body')[0];
  if (!body) throw new DocxPackageError(`the document part '${main}' has no body`, jobId, main);
  const { atoms, chars } = documentAtoms(body);
  const map = alignText(input.text, chars);
  const part = pkg.commentsPart(main);
  const comments = part.exists ? pkg.xml(part.name) : newXml(W_NS, 'comments', 'w');
  const relabelled =
    relabelOurName(doc) + relabelOurName(comments) + relabelOtherParts(pkg, [main, part.name]);
  let nextId = 0;
  for (const c of elements(comments.documentElement, W_NS, 'comment')) {
    const id = Number(c.getAttributeNS(W_NS, 'id') ?? c.getAttribute('w:id'));
    if (Number.isInteger(id) && id >= nextId) nextId = id + 1;
  }
  const anchors: CommentAnchor[] = [];
  const date = input.report.timings.finalizedAt;
  const author = authorOf(jobId);
  for (const clause of input.report.clauses.filter(commented)) {
    const span = spanAtoms(map, clause.start, clause.end);
    const from = span ? atoms[span.from] : undefined;
    const to = span ? atoms[span.to] : undefined;
    if (!from || !to) continue;
    const id = nextId++;
    anchors.push({ id, from, to });
    comments.documentElement.appendChild(
      commentElement(comments, id, author, date, commentParagraphs(input.report, clause)),
    );
  }
  anchorComments(doc, anchors);
  pkg.setXml(main, doc);
  pkg.setXml(part.name, comments);
  return {
    bytes: pkg.bytes(),
    source: input.original ? 'original' : 'generated',
    comments: anchors.length,
    relabelled,
  };
}

/** One `w:comment`: a paragraph per line, the first carrying the annotation mark Word expects. */
function commentElement(
  doc: Document,
  id: number,
  author: string,
  date: string,
  lines: readonly string[],
): Element {
  const comment = wElement(doc, 'comment', {
    id: String(id),
    author,
    initials: 'CR',
    date: date.replace(/\.\d+Z$/, 'Z'),
  });
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
