/**
 * The tracked changes and comments already in an uploaded Word document, placed by the offsets
 * the clauses use. The body is read with the text map report.docx writes by (`core/wordml`), so
 * a change's offsets name the characters it concerns in the normalised text; deleted text,
 * which that text does not hold, is placed at the point where it stood. Headers, footers,
 * footnotes and endnotes are not in the clauses' text: their changes and comments are listed
 * with their part and no offsets.
 *
 * A document is hostile input: the zip is inflated against the document limit first, a part is
 * parsed only when a quick look finds a change or comment marker in it, and the lists are
 * bounded ({@link MAX_CHANGES}, {@link MAX_COMMENTS}, {@link MAX_CHANGE_TEXT}, the restore
 * edits by the limit on characters), whatever the document holds.
 */
import { unzipSync } from 'fflate';
import type { Clause } from '../clause.js';
import { alignText, documentAtoms, parsePart, W_NS } from '../wordml/index.js';
import { checkZipInflation } from './inflate-guard.js';
import type { DocumentLimits } from './limits.js';
import { assembleRevisions, type PartRead } from './revision-assembly.js';
import { RestoreEdits } from './revision-restore.js';
import type { DocumentRevisions } from './revision-types.js';
import { type Alignment, readPart } from './revision-walk.js';

/** A change or comment marker in a part's XML, whatever prefix the namespace has there. */
const MARKER =
  /<(?:[A-Za-z_][\w.-]*:)?(?:ins|del|moveFrom|moveTo|rPrChange|pPrChange|tblPrChange|trPrChange|tcPrChange|commentRangeStart|commentReference)[\s/>]/;

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';
const OTHER_PARTS = ['header', 'footer', 'footnotes', 'endnotes'].map((t) => REL + t);
const COMMENTS = `${REL}comments`;
const COMMENTS_EXTENDED = 'http://schemas.microsoft.com/office/2011/relationships/commentsExtended';

/**
 * Every tracked change and comment of a DOCX, or undefined when it has none.
 *
 * @param text the normalised text of the document (mammoth's raw text, normalised)
 * @param clauses its clauses, which each change and comment is attributed to
 * @throws {DocumentRejectedError} `too-large-inflated` when the package unpacks to more than the limit
 */
export function readDocxRevisions(
  bytes: Uint8Array,
  text: string,
  clauses: readonly Clause[],
  limits: Pick<DocumentLimits, 'maxInflatedBytes' | 'maxChars'>,
): DocumentRevisions | undefined {
  checkZipInflation(bytes, limits.maxInflatedBytes);
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: (f) => /\.(xml|rels)$/i.test(f.name) });
  } catch {
    return undefined; // mammoth read it; a zip fflate cannot is left with the text alone
  }
  const decoder = new TextDecoder();
  const source = (name: string) => {
    const part = files[name];
    return part ? decoder.decode(part) : undefined;
  };
  const main = mainPart(source);
  const related = relatedParts(source, main);
  const unread: string[] = [];
  const parse = (name: string): Document | undefined => {
    const xml = source(name);
    if (xml === undefined) return undefined;
    const parsed = parsePart(xml);
    if ('doc' in parsed) return parsed.doc;
    unread.push(name);
    return undefined;
  };
  const marked = (name: string) => MARKER.test(source(name) ?? '');
  const parts: PartRead[] = [];
  if (marked(main)) {
    const body = parse(main)?.getElementsByTagNameNS(W_NS, 'body').item(0);
    if (body) parts.push(readBody(main, body, text, limits.maxChars));
  }
  for (const name of related.other)
    if (marked(name)) {
      const root = parse(name)?.documentElement;
      if (root) parts.push({ part: name, ...readPart(root) });
    }
  const comments = related.comments ? parse(related.comments) : undefined;
  const threads = related.commentsExtended ? parse(related.commentsExtended) : undefined;
  return assembleRevisions({ text, clauses, parts, comments, threads, unread });
}

/** The body read: its changes with offsets, its comments' ranges, and the restore edits. */
function readBody(part: string, body: Element, text: string, maxChars: number): PartRead {
  const { atoms, chars } = documentAtoms(body);
  const map = alignText(text, chars);
  const posOfAtom = new Int32Array(atoms.length).fill(-1);
  for (let p = 0; p < map.length; p++) {
    const a = map[p] ?? -1;
    if (a >= 0) posOfAtom[a] = p;
  }
  const firstAtom = new Map<Element, number>();
  for (let a = atoms.length - 1; a >= 0; a--) firstAtom.set((atoms[a] as (typeof atoms)[number]).node, a);
  const alignment: Alignment = { firstAtom, posOfAtom };
  const restore = new RestoreEdits(text, maxChars);
  const read = readPart(body, { alignment, restore });
  return { part, ...read, restore: restore.finish() };
}

/** The main document part, from the package relationships (`word/document.xml` as a rule). */
function mainPart(source: (name: string) => string | undefined): string {
  const rels = source('_rels/.rels') ?? '';
  for (const rel of relationships(rels))
    if (rel.type.endsWith('/officeDocument')) return rel.target.replace(/^\//, '');
  return 'word/document.xml';
}

/** The parts the main part relates to that can hold changes or comments. */
function relatedParts(
  source: (name: string) => string | undefined,
  main: string,
): { other: string[]; comments?: string; commentsExtended?: string } {
  const dir = main.includes('/') ? main.slice(0, main.lastIndexOf('/') + 1) : '';
  const rels = relationships(source(`${dir}_rels/${main.slice(dir.length)}.rels`) ?? '');
  const resolve = (target: string) => (target.startsWith('/') ? target.slice(1) : `${dir}${target}`);
  const of = (type: string) => rels.filter((r) => r.type === type).map((r) => resolve(r.target));
  const other = OTHER_PARTS.flatMap(of);
  const comments = of(COMMENTS)[0] ?? (source(`${dir}comments.xml`) ? `${dir}comments.xml` : undefined);
  const commentsExtended =
    of(COMMENTS_EXTENDED)[0] ??
    (source(`${dir}commentsExtended.xml`) ? `${dir}commentsExtended.xml` : undefined);
  return {
    other,
    ...(comments ? { comments } : {}),
    ...(commentsExtended ? { commentsExtended } : {}),
  };
}

/** The relationships of a relationships part: type and target of each. */
function relationships(xml: string): { type: string; target: string }[] {
  if (xml === '') return [];
  const parsed = parsePart(xml);
  if ('error' in parsed) return [];
  const found = parsed.doc.getElementsByTagName('Relationship');
  const out: { type: string; target: string }[] = [];
  for (let i = 0; i < found.length; i++) {
    const rel = found.item(i) as Element;
    if (rel.getAttribute('TargetMode') === 'External') continue;
    out.push({ type: rel.getAttribute('Type') ?? '', target: rel.getAttribute('Target') ?? '' });
  }
  return out;
}
