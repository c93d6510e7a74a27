/**
 * Anchors comments on the runs that cover a span of text. A span's ends seldom fall on run
 * boundaries, so the runs there are split: the run is cloned with its properties (`w:rPr`,
 * copied whole) and the text after the split moves to the clone, so the paragraph's text and
 * every character's formatting stay as they were. Then `w:commentRangeStart` goes before the
 * first run of the span, and `w:commentRangeEnd` with a run holding `w:commentReference` after
 * the last (ECMA-376 Part 1, 17.13.4).
 */
import { isW, wElement } from './ooxml.js';
import { type Atom, textOf } from './text-map.js';

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

/** A comment to anchor: its id and the atoms its span begins and ends on. */
export interface CommentAnchor {
  readonly id: number;
  readonly from: Atom;
  readonly to: Atom;
}

/** A point between characters: before `pos` of a `w:t`'s text (pos may be its length). */
interface Boundary {
  readonly atom: Atom;
  readonly pos: number;
  readonly kind: 'start' | 'end';
  readonly id: number;
}

const isContent = (n: Node) => n.nodeType === 1 && !isW(n, 'rPr');

function setText(t: Element, text: string): void {
  while (t.firstChild) t.removeChild(t.firstChild);
  t.appendChild((t.ownerDocument as Document).createTextNode(text));
  // Spaces at a new edge of the text were inside it before: keep them.
  if (/^\s|\s$/.test(text)) t.setAttributeNS(XML_NS, 'xml:space', 'preserve');
}

/**
 * Makes a run boundary fall before character `pos` of `t`, and returns where it is: the node
 * to insert before, in the run's parent.
 */
function runBoundary(t: Element, pos: number): { parent: Node; before: Node | null } {
  const run = t.parentNode as Element;
  const parent = run.parentNode as Node;
  const text = textOf(t);
  let first = true;
  for (let n = t.previousSibling; n; n = n.previousSibling) if (isContent(n)) first = false;
  let last = true;
  for (let n = t.nextSibling; n; n = n.nextSibling) if (isContent(n)) last = false;
  if (pos === 0 && first) return { parent, before: run };
  if (pos >= text.length && last) return { parent, before: run.nextSibling };
  const tail = run.cloneNode(false) as Element;
  for (let n = run.firstChild; n; n = n.nextSibling) if (isW(n, 'rPr')) tail.appendChild(n.cloneNode(true));
  let move: Node | null = t.nextSibling;
  if (pos === 0) move = t;
  else if (pos < text.length) {
    const rest = t.cloneNode(false) as Element;
    setText(rest, text.slice(pos));
    setText(t, text.slice(0, pos));
    tail.appendChild(rest);
  }
  while (move) {
    const next: Node | null = move.nextSibling;
    tail.appendChild(move);
    move = next;
  }
  parent.insertBefore(tail, run.nextSibling);
  return { parent, before: tail };
}

/**
 * Puts each comment's range markers and reference into the document. Boundaries are handled
 * from the end of the document backwards, so a split never moves a point already marked.
 */
export function anchorComments(doc: Document, anchors: readonly CommentAnchor[]): void {
  const boundaries: Boundary[] = anchors.flatMap((a) => [
    { atom: a.from, pos: a.from.offset, kind: 'start' as const, id: a.id },
    { atom: a.to, pos: a.to.offset + 1, kind: 'end' as const, id: a.id },
  ]);
  boundaries.sort((x, y) => y.atom.nodeOrdinal - x.atom.nodeOrdinal || y.pos - x.pos);
  for (const b of boundaries) {
    const { parent, before } = runBoundary(b.atom.node, b.pos);
    const id = String(b.id);
    if (b.kind === 'start') {
      parent.insertBefore(wElement(doc, 'commentRangeStart', { id }), before);
    } else {
      const reference = wElement(doc, 'r');
      reference.appendChild(wElement(doc, 'commentReference', { id }));
      parent.insertBefore(wElement(doc, 'commentRangeEnd', { id }), before);
      parent.insertBefore(reference, before);
    }
  }
}
