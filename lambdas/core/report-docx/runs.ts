/**
 * Splitting a run at a character. A point of the text seldom falls on a run boundary, so the
 * run there is split: it is cloned with its properties (`w:rPr`, copied whole) and the content
 * after the point moves to the clone, so the paragraph's text and every character's formatting
 * stay as they were.
 */
import { isW } from './ooxml.js';
import { textOf } from './text-map.js';

const XML_NS = 'http://www.w3.org/XML/1998/namespace';

const isContent = (n: Node) => n.nodeType === 1 && !isW(n, 'rPr');

/** Replaces a `w:t`'s text, keeping spaces at its edges. */
export function setText(t: Element, text: string): void {
  while (t.firstChild) t.removeChild(t.firstChild);
  t.appendChild((t.ownerDocument as Document).createTextNode(text));
  // Spaces at a new edge of the text were inside it before: keep them.
  if (/^\s|\s$/.test(text)) t.setAttributeNS(XML_NS, 'xml:space', 'preserve');
}

/** Where a run boundary is: the node to insert before (null: at the end), in the run's parent. */
export interface RunBoundary {
  readonly parent: Node;
  readonly before: Node | null;
}

/**
 * Makes a run boundary fall before character `pos` of `t` (`pos` may be the text's length), and
 * returns where it is.
 */
export function runBoundary(t: Element, pos: number): RunBoundary {
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
