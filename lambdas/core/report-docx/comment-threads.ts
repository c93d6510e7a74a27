/**
 * Replies threaded under a comment, as Word keeps them ([MS-DOCX] 2.5.3, `commentsExtended`):
 * every paragraph of a comment carries a paragraph id (`w14:paraId`, eight hexadecimal digits
 * below 0x80000000, unique in the document), and the part `commentsExtended.xml` holds one
 * `w15:commentEx` per comment, keyed by the id of its last paragraph, a reply naming its parent's
 * the same way (`w15:paraIdParent`); `commentsIds.xml` gives each a durable id (`w16cid`), which
 * Word 2019 and later read a thread by as well. Each part is related to the document part and has
 * its content type, as Word writes them; an upload's own parts are added to, never replaced.
 * https://learn.microsoft.com/en-us/openspecs/office_standards/ms-docx/
 */
import { type DocxPackage, elements, isW, newXml } from './ooxml.js';

export const W14_NS = 'http://schemas.microsoft.com/office/word/2010/wordml';
export const W15_NS = 'http://schemas.microsoft.com/office/word/2012/wordml';
const MC_NS = 'http://schemas.openxmlformats.org/markup-compatibility/2006';
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const XMLNS = 'http://www.w3.org/2000/xmlns/';
export const COMMENTS_EXTENDED_REL =
  'http://schemas.microsoft.com/office/2011/relationships/commentsExtended';
export const COMMENTS_EXTENDED_TYPE =
  'application/vnd.openxmlformats-officedocument.wordprocessingml.commentsExtended+xml';

/** A paragraph id Word reads: 8 hex digits (upper case), below 0x80000000. */
const PARA_ID = /paraId\s*=\s*["']([0-9A-Fa-f]{8})["']/g;

/** Paragraph ids not yet used anywhere in the package, in order. */
export function paraIdsAfterExisting(pkg: DocxPackage): () => string {
  const used = new Set<number>();
  for (const name of pkg.names())
    if (name.endsWith('.xml'))
      for (const m of (pkg.text(name) ?? '').matchAll(PARA_ID)) used.add(Number.parseInt(m[1] ?? '0', 16));
  let next = 0x10000000;
  return () => {
    while (used.has(next)) next++;
    used.add(next);
    return next.toString(16).toUpperCase().padStart(8, '0');
  };
}

/** Declares that a part's readers may ignore a namespace they do not know (`mc:Ignorable`). */
export function ignorable(doc: Document, prefix: string, ns: string): void {
  const root = doc.documentElement;
  const declare = (p: string, uri: string) => {
    if (!root.lookupNamespaceURI(p) && !root.hasAttribute(`xmlns:${p}`))
      root.setAttributeNS(XMLNS, `xmlns:${p}`, uri);
  };
  // MCE asks every prefix an Ignorable lists to be declared where it is listed.
  declare(prefix, ns);
  declare('mc', MC_NS);
  const listed = root.getAttributeNS(MC_NS, 'Ignorable') ?? '';
  const names = listed.split(/\s+/).filter(Boolean);
  if (!names.includes(prefix)) root.setAttributeNS(MC_NS, 'mc:Ignorable', [...names, prefix].join(' '));
}

/** The id of a comment's last paragraph, given one when it has none. */
export function lastParaId(comment: Element, nextParaId: () => string): string {
  const paragraphs = [
    ...Array.from({ length: comment.childNodes.length }, (_, i) => comment.childNodes.item(i)),
  ].filter((n): n is Element => isW(n, 'p'));
  const last = paragraphs[paragraphs.length - 1];
  if (!last) return '';
  const id = last.getAttributeNS(W14_NS, 'paraId');
  if (id) return id;
  const made = nextParaId();
  last.setAttributeNS(W14_NS, 'w14:paraId', made);
  return made;
}

export const W16CID_NS = 'http://schemas.microsoft.com/office/word/2016/wordml/cid';
export const COMMENTS_IDS_REL = 'http://schemas.microsoft.com/office/2016/09/relationships/commentsIds';
export const COMMENTS_IDS_TYPE =
  'application/vnd.openxmlformats-officedocument.wordprocessingml.commentsIds+xml';

/** A part related to the main part by its relationship type: read, or made, related and typed. */
function relatedPart(
  pkg: DocxPackage,
  main: string,
  part: {
    readonly rel: string;
    readonly file: string;
    readonly type: string;
    readonly ns: string;
    readonly root: string;
    readonly prefix: string;
  },
): { name: string; doc: Document } {
  const dir = main.includes('/') ? main.slice(0, main.lastIndexOf('/') + 1) : '';
  const relsName = `${dir}_rels/${main.slice(dir.length)}.rels`;
  const rels = pkg.has(relsName) ? pkg.xml(relsName) : newXml(REL_NS, 'Relationships');
  const all = elements(rels.documentElement, REL_NS, 'Relationship');
  const found = all.find((r) => r.getAttribute('Type') === part.rel);
  let name = `${dir}${part.file}`;
  if (found) name = `${dir}${found.getAttribute('Target') ?? ''}`.replace(/^\//, '');
  else {
    const ids = new Set(all.map((r) => r.getAttribute('Id')));
    let n = all.length + 1;
    while (ids.has(`rId${n}`)) n++;
    const rel = rels.createElementNS(REL_NS, 'Relationship');
    rel.setAttribute('Id', `rId${n}`);
    rel.setAttribute('Type', part.rel);
    rel.setAttribute('Target', part.file);
    rels.documentElement.appendChild(rel);
    pkg.setXml(relsName, rels);
    pkg.setContentType(`/${name}`, part.type);
  }
  const doc = pkg.has(name) ? pkg.xml(name) : newXml(part.ns, part.root, part.prefix);
  ignorable(doc, part.prefix, part.ns);
  return { name, doc };
}

/** A durable id Word reads: 8 hex digits below 0x7FFFFFFF, unique in the package. */
const DURABLE_ID = /durableId\s*=\s*["']([0-9A-Fa-f]{8})["']/g;

/**
 * The threads of the main part's comments: `commentsExtended.xml` (who answers whom, and done)
 * and `commentsIds.xml` (each comment's durable id, which Word 2019 and later read threads by
 * too), each read from the package or made and related to the main part.
 */
export class CommentThreads {
  private readonly ex: { name: string; doc: Document };
  private readonly ids: { name: string; doc: Document };
  private readonly durable: Set<number> = new Set();
  private nextDurable = 0x20000000;

  private constructor(
    private readonly pkg: DocxPackage,
    main: string,
  ) {
    this.ex = relatedPart(pkg, main, {
      rel: COMMENTS_EXTENDED_REL,
      file: 'commentsExtended.xml',
      type: COMMENTS_EXTENDED_TYPE,
      ns: W15_NS,
      root: 'commentsEx',
      prefix: 'w15',
    });
    this.ids = relatedPart(pkg, main, {
      rel: COMMENTS_IDS_REL,
      file: 'commentsIds.xml',
      type: COMMENTS_IDS_TYPE,
      ns: W16CID_NS,
      root: 'commentsIds',
      prefix: 'w16cid',
    });
    for (const name of pkg.names())
      if (name.endsWith('.xml'))
        for (const m of (pkg.text(name) ?? '').matchAll(DURABLE_ID))
          this.durable.add(Number.parseInt(m[1] ?? '0', 16));
  }

  /** The threads of `main`'s comments. */
  static of(pkg: DocxPackage, main: string): CommentThreads {
    return new CommentThreads(pkg, main);
  }

  /** Whether the threads list a comment by the id of its last paragraph. */
  has(paraId: string): boolean {
    return elements(this.ex.doc.documentElement, W15_NS, 'commentEx').some(
      (e) => e.getAttributeNS(W15_NS, 'paraId') === paraId,
    );
  }

  /**
   * Lists a comment, and for a reply the comment it answers, open (not done), with a durable id;
   * a comment listed already keeps its entry, and gets a durable id if it has none.
   */
  add(paraId: string, parent?: string): void {
    if (!this.has(paraId)) {
      const ex = this.ex.doc.createElementNS(W15_NS, 'w15:commentEx');
      ex.setAttributeNS(W15_NS, 'w15:paraId', paraId);
      if (parent) ex.setAttributeNS(W15_NS, 'w15:paraIdParent', parent);
      ex.setAttributeNS(W15_NS, 'w15:done', '0');
      this.ex.doc.documentElement.appendChild(ex);
    }
    const known = elements(this.ids.doc.documentElement, W16CID_NS, 'commentId').some(
      (e) => e.getAttributeNS(W16CID_NS, 'paraId') === paraId,
    );
    if (known) return;
    while (this.durable.has(this.nextDurable)) this.nextDurable++;
    this.durable.add(this.nextDurable);
    const id = this.ids.doc.createElementNS(W16CID_NS, 'w16cid:commentId');
    id.setAttributeNS(W16CID_NS, 'w16cid:paraId', paraId);
    id.setAttributeNS(
      W16CID_NS,
      'w16cid:durableId',
      this.nextDurable.toString(16).toUpperCase().padStart(8, '0'),
    );
    this.ids.doc.documentElement.appendChild(id);
  }

  /** Writes both parts back. */
  save(): void {
    this.pkg.setXml(this.ex.name, this.ex.doc);
    this.pkg.setXml(this.ids.name, this.ids.doc);
  }
}
