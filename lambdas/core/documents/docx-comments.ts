/**
 * The comments of a Word document (ECMA-376 Part 1, 17.13.4): each `w:comment` of the comments
 * part with its author, initials, date and text, and the threads Word keeps beside them (Word
 * 2013 and later, `commentsExtended.xml`: a `w15:commentEx` per comment, naming by paragraph id
 * the comment it answers and whether it is done).
 */
import { W_NS, wAttr } from '../wordml/index.js';
import { normaliseText } from './normalise.js';

const W14_NS = 'http://schemas.microsoft.com/office/word/2010/wordml';
const W15_NS = 'http://schemas.microsoft.com/office/word/2012/wordml';

/** A comment as its part holds it. */
export interface CommentEntry {
  readonly id: string;
  readonly author: string;
  readonly initials?: string;
  readonly date?: string;
  /** Its paragraphs, normalised, one a line. */
  readonly text: string;
  /** The id of its last paragraph (`w14:paraId`), by which threads name it. */
  readonly paraId?: string;
}

/** Where a comment stands in its thread. */
export interface CommentThread {
  /** The paragraph id of the comment it answers. */
  readonly parent?: string;
  readonly done: boolean;
}

/** Every comment of a comments part, in its order. */
export function readComments(doc: Document): CommentEntry[] {
  const found = doc.getElementsByTagNameNS(W_NS, 'comment');
  const out: CommentEntry[] = [];
  for (let i = 0; i < found.length; i++) {
    const comment = found.item(i) as Element;
    const paragraphs = comment.getElementsByTagNameNS(W_NS, 'p');
    const lines: string[] = [];
    for (let j = 0; j < paragraphs.length; j++) lines.push(paragraphText(paragraphs.item(j) as Element));
    const last = paragraphs.length > 0 ? (paragraphs.item(paragraphs.length - 1) as Element) : undefined;
    const paraId = last?.getAttributeNS(W14_NS, 'paraId');
    const initials = wAttr(comment, 'initials');
    const date = wAttr(comment, 'date');
    out.push({
      id: wAttr(comment, 'id') ?? '',
      author: wAttr(comment, 'author') ?? '',
      ...(initials !== undefined ? { initials } : {}),
      ...(date !== undefined ? { date } : {}),
      text: normaliseText(lines.join('\n')),
      ...(paraId ? { paraId } : {}),
    });
  }
  return out;
}

/** The threads of `commentsExtended.xml`, by paragraph id. */
export function readThreads(doc: Document): Map<string, CommentThread> {
  const found = doc.getElementsByTagNameNS(W15_NS, 'commentEx');
  const out = new Map<string, CommentThread>();
  for (let i = 0; i < found.length; i++) {
    const ex = found.item(i) as Element;
    const paraId = ex.getAttributeNS(W15_NS, 'paraId');
    if (!paraId) continue;
    const parent = ex.getAttributeNS(W15_NS, 'paraIdParent');
    const done = ex.getAttributeNS(W15_NS, 'done');
    out.set(paraId, { ...(parent ? { parent } : {}), done: done === '1' || done === 'true' });
  }
  return out;
}

/** A comment paragraph's text as it reads now: its `w:t` and tabs, not what a deletion holds. */
function paragraphText(p: Element): string {
  const out: string[] = [];
  const walk = (el: Element) => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const child = n as Element;
      const w = child.namespaceURI === W_NS;
      if (w && child.localName === 't') out.push(child.textContent ?? '');
      else if (w && child.localName === 'tab') out.push('\t');
      else if (!(w && (child.localName === 'del' || child.localName === 'moveFrom'))) walk(child);
    }
  };
  walk(p);
  return out.join('');
}
