/**
 * Tracked changes written in the document's own runs (ECMA-376 Part 1, 17.13.5): the runs of a
 * deleted span are wrapped in `w:del`, their `w:t` becoming `w:delText` and each keeping its own
 * `w:rPr`; a paragraph whose end the span crosses gets its mark deleted (`w:pPr/w:rPr/w:del`), so
 * accepting joins it to the next; the inserted text is one run in `w:ins`, right after the
 * deletion, formatted as the text it replaces (or, for a pure insertion, as the text before it).
 * Each `w:ins` and `w:del` has its own `w:id`, the author and the date. Rejecting every change
 * gives back the document's runs exactly; accepting them gives the redline's text.
 *
 * The span's ends are marked with two placeholder elements first (placed among the comments'
 * markers by `anchor.ts`), and the runs between them are the span's.
 */
import { isW, paragraphMarkProperties, wElement } from './ooxml.js';

const MARK_NS = 'urn:clause-review:report-docx:mark';

/** Who made the changes, when, and where their ids come from. */
export interface ChangeStamp {
  readonly author: string;
  /** ISO 8601, to the second. */
  readonly date: string;
  readonly nextId: () => number;
}

/** A span's end markers and the text that replaces it. */
export interface MarkedEdit {
  readonly start: Element;
  readonly end: Element;
  readonly insert: string;
}

/** A placeholder element marking one end of a span until its change is written. */
export const spanMarker = (doc: Document): Element => doc.createElementNS(MARK_NS, 'cr:mark');

/** Revision markers a copied `w:rPr` must not carry into the inserted run. */
const REVISION_PROPS = ['rPrChange', 'ins', 'del', 'moveFrom', 'moveTo'];

const holdsCommentReference = (run: Element): boolean => {
  for (let c = run.firstChild; c; c = c.nextSibling) if (isW(c, 'commentReference')) return true;
  return false;
};

function paragraphOf(node: Node): Element {
  for (let n: Node | null = node; n; n = n.parentNode) if (isW(n, 'p')) return n as Element;
  throw new Error('a span marker outside any paragraph');
}

/**
 * The text's runs in document order under `root` (not inside a deletion, not a comment's
 * reference) and the span markers among them; `'stop'` when `stop` is reached.
 */
function* runsIn(root: Element, stop?: Node): Generator<Element | 'stop'> {
  for (let n = root.firstChild; n; n = n.nextSibling) {
    if (n === stop) {
      yield 'stop';
      return;
    }
    if (n.nodeType !== 1) continue;
    const el = n as Element;
    if (el.namespaceURI === MARK_NS) yield el;
    else if (isW(el, 'r')) {
      if (!holdsCommentReference(el)) yield el;
    } else if (!isW(el, 'del') && !isW(el, 'moveFrom') && !isW(el, 'pPr')) {
      for (const r of runsIn(el, stop)) {
        yield r;
        if (r === 'stop') return;
      }
    }
  }
}

/** Renames an element, keeping its attributes and children. */
function rename(el: Element, local: string): void {
  const doc = el.ownerDocument as Document;
  const renamed = wElement(doc, local);
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes.item(i);
    if (a) renamed.setAttributeNS(a.namespaceURI, a.name, a.value);
  }
  while (el.firstChild) renamed.appendChild(el.firstChild);
  el.parentNode?.replaceChild(renamed, el);
}

function changeElement(doc: Document, local: 'ins' | 'del', stamp: ChangeStamp): Element {
  return wElement(doc, local, { id: String(stamp.nextId()), author: stamp.author, date: stamp.date });
}

/** Marks a paragraph's mark deleted, so accepting the change joins the paragraph to the next. */
function deleteParagraphMark(p: Element, stamp: ChangeStamp): Element | undefined {
  const doc = p.ownerDocument as Document;
  const rPr = paragraphMarkProperties(p);
  // CT_ParaRPr: w:ins, w:del, ... in that order.
  let at: Node | null = rPr.firstChild;
  while (at && at.nodeType !== 1) at = at.nextSibling;
  if (isW(at, 'del')) return undefined; // already deleted by someone else
  if (isW(at, 'ins')) at = at?.nextSibling ?? null;
  const del = changeElement(doc, 'del', stamp);
  rPr.insertBefore(del, at);
  return del;
}

/** The inserted run's formatting: a copy of `source`'s `w:rPr` without revision marks. */
function formattingOf(source: Element | undefined): Element | undefined {
  if (!source) return undefined;
  for (let c = source.firstChild; c; c = c.nextSibling) {
    if (!isW(c, 'rPr')) continue;
    const rPr = c.cloneNode(true) as Element;
    for (let d = rPr.firstChild; d; ) {
      const next = d.nextSibling;
      if (REVISION_PROPS.some((local) => isW(d, local))) rPr.removeChild(d);
      d = next;
    }
    return rPr;
  }
  return undefined;
}

/** The run before `marker` in its paragraph, or else the first after it. */
function neighbourRun(marker: Element): Element | undefined {
  let previous: Element | undefined;
  let seen = false;
  for (const r of runsIn(paragraphOf(marker))) {
    if (r === marker) seen = true;
    else if (r !== 'stop' && isW(r, 'r')) {
      if (seen) return previous ?? r;
      previous = r;
    }
  }
  return previous;
}

/** The inserted text as run content: text, a line break for each `\n`, a tab for each `\t`. */
function insertedRun(doc: Document, text: string, rPr: Element | undefined): Element {
  const run = wElement(doc, 'r');
  if (rPr) run.appendChild(rPr);
  for (const piece of text.split(/(\n|\t)/)) {
    if (piece === '') continue;
    if (piece === '\n') run.appendChild(wElement(doc, 'br'));
    else if (piece === '\t') run.appendChild(wElement(doc, 'tab'));
    else {
      const t = wElement(doc, 't');
      t.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
      t.appendChild(doc.createTextNode(piece));
      run.appendChild(t);
    }
  }
  return run;
}

/**
 * Writes one edit between its markers, removes the markers, and returns the change elements
 * written (`w:del`, `w:ins`, and the `w:del` of each paragraph mark).
 */
export function writeChange(edit: MarkedEdit, stamp: ChangeStamp): Element[] {
  const doc = edit.start.ownerDocument as Document;
  const first = paragraphOf(edit.start);
  const last = paragraphOf(edit.end);
  const runs: Element[] = [];
  const joined: Element[] = [];
  let inRange = false;
  for (let p: Node | null = first; p; p = p.nextSibling) {
    if (!isW(p, 'p')) continue;
    let ended = false;
    for (const r of runsIn(p as Element, edit.end)) {
      if (r === 'stop') ended = true;
      else if (r === edit.start) inRange = true;
      else if (inRange && isW(r, 'r')) runs.push(r);
    }
    if (ended || p === last) break;
    if (inRange) joined.push(p as Element);
  }
  const written: Element[] = [];
  const source = runs[0] ?? neighbourRun(edit.start);
  const rPr = formattingOf(source);
  // Side-by-side runs under one parent make one deletion.
  for (let i = 0; i < runs.length; ) {
    const group = [runs[i] as Element];
    while (i + group.length < runs.length && group[group.length - 1]?.nextSibling === runs[i + group.length])
      group.push(runs[i + group.length] as Element);
    i += group.length;
    const del = changeElement(doc, 'del', stamp);
    group[0]?.parentNode?.insertBefore(del, group[0]);
    for (const run of group) {
      del.appendChild(run);
      for (let c = run.firstChild; c; ) {
        const next = c.nextSibling;
        if (isW(c, 't')) rename(c as Element, 'delText');
        else if (isW(c, 'instrText')) rename(c as Element, 'delInstrText');
        c = next;
      }
    }
    written.push(del);
  }
  for (const p of joined) {
    const del = deleteParagraphMark(p, stamp);
    if (del) written.push(del);
  }
  if (edit.insert !== '') {
    const ins = changeElement(doc, 'ins', stamp);
    ins.appendChild(insertedRun(doc, edit.insert, rPr));
    edit.end.parentNode?.insertBefore(ins, edit.end);
    written.push(ins);
  }
  edit.start.parentNode?.removeChild(edit.start);
  edit.end.parentNode?.removeChild(edit.end);
  return written;
}
