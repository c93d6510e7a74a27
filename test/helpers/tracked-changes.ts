/**
 * Word's "Accept all" and "Reject all" as transforms of a document part's XML, for reading
 * tracked changes back. Rejecting removes each `w:ins` with its content and unwraps each `w:del`
 * (its `w:delText` becoming `w:t` again), forgets a deleted paragraph mark and removes a paragraph
 * whose mark was inserted (what is left of it joining the next); accepting unwraps each `w:ins`,
 * removes each `w:del` with its content, keeps an inserted paragraph mark, and joins a paragraph
 * whose mark was deleted to the next. `author`, when given, limits either to that author's changes.
 */
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

const isW = (n: Node | null, local: string): n is Element =>
  n !== null && n.nodeType === 1 && (n as Element).namespaceURI === W && (n as Element).localName === local;

/** One tracked change as written: its kind, id, author and date, and whether it is a paragraph mark's. */
export interface ChangeMark {
  readonly kind: 'ins' | 'del';
  readonly id: string | null;
  readonly author: string | null;
  readonly date: string | null;
  readonly paragraphMark: boolean;
  readonly element: Element;
}

/** Every `w:ins` and `w:del` of a part, in document order. */
export function changeMarks(doc: Document): ChangeMark[] {
  const out: ChangeMark[] = [];
  const all = doc.getElementsByTagNameNS(W, '*');
  for (let i = 0; i < all.length; i++) {
    const el = all.item(i) as Element;
    if (el.localName !== 'ins' && el.localName !== 'del') continue;
    out.push({
      kind: el.localName,
      id: el.getAttributeNS(W, 'id'),
      author: el.getAttributeNS(W, 'author'),
      date: el.getAttributeNS(W, 'date'),
      paragraphMark: isW(el.parentNode, 'rPr') && isW(el.parentNode?.parentNode ?? null, 'pPr'),
      element: el,
    });
  }
  return out;
}

function unwrap(el: Element): void {
  const parent = el.parentNode as Node;
  while (el.firstChild) parent.insertBefore(el.firstChild, el);
  parent.removeChild(el);
}

function rename(el: Element, local: string): void {
  const renamed = (el.ownerDocument as Document).createElementNS(W, `${el.prefix ?? 'w'}:${local}`);
  for (let i = 0; i < el.attributes.length; i++) {
    const a = el.attributes.item(i);
    if (a) renamed.setAttributeNS(a.namespaceURI, a.name, a.value);
  }
  while (el.firstChild) renamed.appendChild(el.firstChild);
  el.parentNode?.replaceChild(renamed, el);
}

/** Whose changes: one author's, any of several (a job's undecided ones and its deciders'), or all. */
type Authors = string | readonly string[] | undefined;
const mine = (author: Authors) => (m: ChangeMark) =>
  author === undefined ||
  (typeof author === 'string' ? m.author === author : author.includes(m.author ?? ''));

/** Rejects the changes (of `author`, or all) in place. */
export function rejectChanges(doc: Document, author?: Authors): void {
  const insertedMarks: Element[] = [];
  for (const m of changeMarks(doc).filter(mine(author))) {
    if (m.paragraphMark) {
      if (m.kind === 'ins') insertedMarks.push(m.element.parentNode?.parentNode?.parentNode as Element);
      m.element.parentNode?.removeChild(m.element);
    } else if (m.kind === 'ins') m.element.parentNode?.removeChild(m.element);
    else {
      for (const local of ['delText', 'delInstrText']) {
        const found = m.element.getElementsByTagNameNS(W, local);
        for (const el of Array.from({ length: found.length }, (_, i) => found.item(i) as Element))
          rename(el, local === 'delText' ? 't' : 'instrText');
      }
      unwrap(m.element);
    }
  }
  // A paragraph whose mark was inserted goes with it: what it held joins the next paragraph
  // (an inserted paragraph, its inserted runs already gone, leaves nothing).
  for (const p of insertedMarks.reverse()) {
    let next = p.nextSibling;
    while (next && !isW(next, 'p')) next = next.nextSibling;
    if (!next) throw new Error('an inserted paragraph mark on the last paragraph');
    const firstOfNext =
      next.firstChild && isW(next.firstChild, 'pPr') ? next.firstChild.nextSibling : next.firstChild;
    for (let c = p.firstChild; c; ) {
      const after = c.nextSibling;
      if (!isW(c, 'pPr')) next.insertBefore(c, firstOfNext);
      c = after;
    }
    p.parentNode?.removeChild(p);
  }
}

/** Accepts the changes (of `author`, or all) in place. */
export function acceptChanges(doc: Document, author?: Authors): void {
  const marks = changeMarks(doc).filter(mine(author));
  for (const m of marks) {
    if (m.paragraphMark) continue;
    if (m.kind === 'ins') unwrap(m.element);
    else m.element.parentNode?.removeChild(m.element);
  }
  // From the last paragraph back, so a paragraph joined to the next carries that one's own join.
  for (const m of marks.filter((x) => x.paragraphMark).reverse()) {
    if (m.kind === 'ins') {
      // An inserted paragraph mark, accepted, is an ordinary one.
      m.element.parentNode?.removeChild(m.element);
      continue;
    }
    const p = m.element.parentNode?.parentNode?.parentNode as Element;
    m.element.parentNode?.removeChild(m.element);
    let next = p.nextSibling;
    while (next && !isW(next, 'p')) next = next.nextSibling;
    if (!next) throw new Error('a deleted paragraph mark on the last paragraph');
    for (let c = next.firstChild; c; ) {
      const after = c.nextSibling;
      if (!isW(c, 'pPr')) p.appendChild(c);
      c = after;
    }
    next.parentNode?.removeChild(next);
  }
}

/**
 * A part's text as Word shows it, in the shape intake's reader gives (each paragraph followed by
 * a blank line): `w:t` text, `w:tab` as a tab, `w:br`/`w:cr` as a line break; deleted text and
 * paragraph properties left out. Unlike mammoth's raw text, a line break is kept.
 */
export function wordText(doc: Document): string {
  const out: string[] = [];
  const walk = (el: Element) => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const child = n as Element;
      if (child.namespaceURI !== W) walk(child);
      else if (child.localName === 't') out.push(child.textContent ?? '');
      else if (child.localName === 'tab') out.push('\t');
      else if (child.localName === 'br' || child.localName === 'cr') out.push('\n');
      else if (!['del', 'moveFrom', 'pPr', 'rPr', 'instrText'].includes(child.localName ?? '')) {
        walk(child);
        if (child.localName === 'p') out.push('\n\n');
      }
    }
  };
  walk(doc.documentElement);
  return out.join('');
}

/** A package with one part replaced by a DOM's serialisation. */
export function withPart(docx: Uint8Array, name: string, xml: string): Uint8Array {
  return zipSync({ ...unzipSync(docx), [name]: strToU8(xml) });
}

/** A part of a package as text. */
export function partText(docx: Uint8Array, name: string): string {
  const part = unzipSync(docx)[name];
  if (!part) throw new Error(`the package has no part ${name}`);
  return strFromU8(part);
}
