/**
 * Word documents with tracked changes and comments, written as Word writes them (ECMA-376 Part
 * 1, 17.13): runs in `w:ins`, `w:del` (text as `w:delText`), moves in named ranges, formatting
 * changes, comments with ranges and replies threaded in `commentsExtended.xml`, and headers,
 * footers, footnotes and endnotes related to the document part.
 */
import { buildZip } from '../fixtures/documents/builders.js';

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export const OTHER = 'Opposing Counsel';
export const DATE = '2026-02-03T10:00:00Z';

let nextId = 100;
const stamp = (author: string, date = DATE) => `w:id="${nextId++}" w:author="${author}" w:date="${date}"`;

/** A run of text. */
export const run = (text: string) => `<w:r><w:t xml:space="preserve">${xmlEscape(text)}</w:t></w:r>`;
/** A run of deleted text (inside a deletion). */
export const delRun = (text: string) =>
  `<w:r><w:delText xml:space="preserve">${xmlEscape(text)}</w:delText></w:r>`;
/** Text inserted by `author`. */
export const ins = (text: string, author = OTHER) => `<w:ins ${stamp(author)}>${run(text)}</w:ins>`;
/** Text deleted by `author`. */
export const del = (text: string, author = OTHER) => `<w:del ${stamp(author)}>${delRun(text)}</w:del>`;
/** A paragraph of runs (and changes). */
export const para = (...content: string[]) => `<w:p>${content.join('')}</w:p>`;
/** A paragraph whose mark `author` deleted: accepting joins it to the next. */
export const joinedPara = (author: string, ...content: string[]) =>
  `<w:p><w:pPr><w:rPr><w:del ${stamp(author)}/></w:rPr></w:pPr>${content.join('')}</w:p>`;
/** A paragraph `author` inserted, mark and all. */
export const insertedPara = (author: string, text: string) =>
  `<w:p><w:pPr><w:rPr><w:ins ${stamp(author)}/></w:rPr></w:pPr>${ins(text, author)}</w:p>`;
/** Where a move of this name took its text from. */
export const moveFrom = (name: string, text: string, author = OTHER) => {
  const range = nextId++;
  return `<w:moveFromRangeStart w:id="${range}" w:author="${author}" w:date="${DATE}" w:name="${name}"/><w:moveFrom ${stamp(author)}>${run(text)}</w:moveFrom><w:moveFromRangeEnd w:id="${range}"/>`;
};
/** Where a move of this name put its text. */
export const moveTo = (name: string, text: string, author = OTHER) => {
  const range = nextId++;
  return `<w:moveToRangeStart w:id="${range}" w:author="${author}" w:date="${DATE}" w:name="${name}"/><w:moveTo ${stamp(author)}>${run(text)}</w:moveTo><w:moveToRangeEnd w:id="${range}"/>`;
};
/** Text made bold by `author`, a formatting change only. */
export const madeBold = (text: string, author = OTHER) =>
  `<w:r><w:rPr><w:b/><w:rPrChange ${stamp(author)}><w:rPr/></w:rPrChange></w:rPr><w:t xml:space="preserve">${xmlEscape(text)}</w:t></w:r>`;
/** A table of rows of cells, each cell one paragraph's content. */
export const table = (...rows: string[]) => `<w:tbl><w:tblPr/>${rows.join('')}</w:tbl>`;
export const row = (...cells: string[]) =>
  `<w:tr>${cells.map((c) => `<w:tc><w:p>${c}</w:p></w:tc>`).join('')}</w:tr>`;
/** A row `author` deleted, its text deleted with it. */
export const deletedRow = (author: string, ...cells: string[]) =>
  `<w:tr><w:trPr><w:del ${stamp(author)}/></w:trPr>${cells.map((c) => `<w:tc><w:p><w:del ${stamp(author)}>${delRun(c)}</w:del></w:p></w:tc>`).join('')}</w:tr>`;
/** The marks of a comment's range, and the run holding its reference. */
export const commentStart = (id: number) => `<w:commentRangeStart w:id="${id}"/>`;
export const commentEnd = (id: number) =>
  `<w:commentRangeEnd w:id="${id}"/><w:r><w:commentReference w:id="${id}"/></w:r>`;

/** One comment of the comments part. */
export interface CommentSpec {
  readonly id: number;
  readonly author: string;
  readonly text: string;
  /** Its last paragraph's id (`w14:paraId`), for threads. */
  readonly paraId?: string;
  /** The paragraph id of the comment it answers. */
  readonly parentParaId?: string;
  readonly done?: boolean;
}

/** What a test document holds besides its body. */
export interface DocxParts {
  readonly comments?: readonly CommentSpec[];
  readonly header?: string;
  readonly footer?: string;
  /** The inner XML of each footnote (its paragraphs), numbered from 1. */
  readonly footnotes?: readonly string[];
}

const NS =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" ' +
  'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml"';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A DOCX of a body and the parts given, each related to the document part as Word relates it. */
export function revisedDocx(body: string, parts: DocxParts = {}): Uint8Array {
  const rels: string[] = [];
  const entries: Record<string, string> = {};
  const overrides: string[] = [];
  const add = (name: string, type: string, relType: string, xml: string) => {
    entries[`word/${name}`] = XML + xml;
    rels.push(`<Relationship Id="rId${rels.length + 1}" Type="${relType}" Target="${name}"/>`);
    overrides.push(
      `<Override PartName="/word/${name}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.${type}+xml"/>`,
    );
  };
  if (parts.comments) {
    const comments = parts.comments.map(
      (c) =>
        `<w:comment w:id="${c.id}" w:author="${c.author}" w:date="${DATE}" w:initials="${c.author.slice(0, 2).toUpperCase()}">` +
        `<w:p${c.paraId ? ` w14:paraId="${c.paraId}"` : ''}><w:r><w:annotationRef/></w:r>${run(c.text)}</w:p></w:comment>`,
    );
    add('comments.xml', 'comments', `${REL}/comments`, `<w:comments ${NS}>${comments.join('')}</w:comments>`);
    const threads = parts.comments
      .filter((c) => c.paraId)
      .map(
        (c) =>
          `<w15:commentEx w15:paraId="${c.paraId}"${c.parentParaId ? ` w15:paraIdParent="${c.parentParaId}"` : ''} w15:done="${c.done ? 1 : 0}"/>`,
      );
    add(
      'commentsExtended.xml',
      'commentsExtended',
      'http://schemas.microsoft.com/office/2011/relationships/commentsExtended',
      `<w15:commentsEx ${NS}>${threads.join('')}</w15:commentsEx>`,
    );
  }
  if (parts.header) add('header1.xml', 'header', `${REL}/header`, `<w:hdr ${NS}>${parts.header}</w:hdr>`);
  if (parts.footer) add('footer1.xml', 'footer', `${REL}/footer`, `<w:ftr ${NS}>${parts.footer}</w:ftr>`);
  if (parts.footnotes) {
    const notes = parts.footnotes.map((n, i) => `<w:footnote w:id="${i + 1}">${n}</w:footnote>`).join('');
    add('footnotes.xml', 'footnotes', `${REL}/footnotes`, `<w:footnotes ${NS}>${notes}</w:footnotes>`);
  }
  return buildZip({
    '[Content_Types].xml': `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>${overrides.join('')}</Types>`,
    '_rels/.rels': `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    'word/_rels/document.xml.rels': `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`,
    'word/document.xml': `${XML}<w:document ${NS}><w:body>${body}<w:sectPr/></w:body></w:document>`,
    ...entries,
  });
}
