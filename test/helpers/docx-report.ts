/**
 * Reports, packages and read-back for the report.docx tests: a report over parsed clauses, a
 * small DOCX around a body's XML, a package's parts as DOM, each character of a body with its
 * formatting, and the text each comment covers.
 */
import { DOMParser, XMLSerializer } from '@xmldom/xmldom';
import { strFromU8, unzipSync } from 'fflate';
import { CATEGORIES } from '../../lambdas/core/analysts/index.js';
import type { Report, ReportClause, Risk } from '../../lambdas/core/finalize/report-types.js';
import type { RedlineEdit } from '../../lambdas/core/report-docx/index.js';
import { applyEdits } from '../../lambdas/core/report-docx/index.js';
import { buildZip } from '../fixtures/documents/builders.js';

export const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

const RISKS: readonly Risk[] = ['none', 'low', 'medium', 'high', 'critical'];

/** A report over parsed clauses, with risks drawn by `random` and a finding on each risky clause. */
export function reportOf(
  clauses: readonly { id: string; index: number; start: number; end: number; text: string }[],
  random: () => number,
): Report {
  const rows: ReportClause[] = clauses.map((c) => {
    const risk = RISKS[Math.floor(random() * RISKS.length)] ?? 'none';
    const score = Math.max(0, RISKS.indexOf(risk) - 1);
    const risky = score >= 1;
    return {
      ...c,
      chunk: 0,
      status: 'analysed',
      risk,
      maxScore: score,
      scores: Object.fromEntries(CATEGORIES.map((k, i) => [k.id, i === 0 ? score : null])),
      findings: risky
        ? [
            {
              category: CATEGORIES[0]?.id ?? 'x',
              score,
              quote: c.text.slice(0, 30),
              start: c.start,
              end: c.start + 30,
              rationale: `why ${c.id} <matters> & "binds"`,
              analysts: ['liability-counsel'],
            },
          ]
        : [],
      analystsAnswered: ['liability-counsel'],
      analystsFailed: [],
    };
  });
  return {
    job: { jobId: 'j-0123456789abcdef0123' },
    categories: CATEGORIES.map((c) => ({ id: c.id, name: c.name })),
    analystPanel: [{ id: 'liability-counsel', name: 'Liability counsel', categories: [] }],
    clauses: rows,
    timings: { finalizedAt: '2026-03-01T10:00:00.123Z' },
  } as unknown as Report;
}

export const parse = (xml: string) => new DOMParser().parseFromString(xml, 'text/xml');
export const partsOf = (bytes: Uint8Array) => unzipSync(bytes);
export const xmlPart = (bytes: Uint8Array, name: string) => {
  const part = partsOf(bytes)[name];
  if (!part) throw new Error(`no part ${name}`);
  return parse(strFromU8(part));
};

/** Every character of the body's text with its run's properties, as Word would render it. */
export function styledChars(doc: Document): string[] {
  const out: string[] = [];
  const ts = doc.getElementsByTagNameNS(W, 't');
  for (let i = 0; i < ts.length; i++) {
    const t = ts.item(i) as Element;
    const rPr = Array.from({ length: t.parentNode?.childNodes.length ?? 0 }, (_, k) =>
      t.parentNode?.childNodes.item(k),
    )
      .filter((n): n is Element => n?.nodeType === 1 && (n as Element).localName === 'rPr')
      .map((n) => new XMLSerializer().serializeToString(n))
      .join('');
    for (const ch of t.textContent ?? '') out.push(`${ch}|${rPr}`);
  }
  return out;
}

/** The text each comment's range covers, by comment id, read in document order. */
export function rangedText(doc: Document): Map<string, string> {
  const open = new Set<string>();
  const texts = new Map<string, string>();
  const walk = (el: Element) => {
    for (let n = el.firstChild; n; n = n.nextSibling) {
      if (n.nodeType !== 1) continue;
      const e = n as Element;
      const id = e.getAttributeNS(W, 'id') ?? '';
      if (e.localName === 'commentRangeStart') {
        open.add(id);
        texts.set(id, '');
      } else if (e.localName === 'commentRangeEnd') open.delete(id);
      else if (e.localName === 't')
        for (const o of open) texts.set(o, (texts.get(o) ?? '') + (e.textContent ?? ''));
      else walk(e);
    }
  };
  walk(doc.documentElement);
  return texts;
}

const W_NS_DECL =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/**
 * A DOCX package around the XML of a body: content types, relationships (a hyperlink as `rId9`,
 * and the comments part when there is one), the document part, `comments` as the inner XML of a
 * comments part, and any other `parts` as they are.
 */
export function docxOf(
  body: string,
  options: { readonly comments?: string; readonly parts?: Readonly<Record<string, string>> } = {},
): Uint8Array {
  const xml = '<?xml version="1.0" encoding="UTF-8"?>';
  const rel = (id: string, type: string, target: string, external = false) =>
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"${external ? ' TargetMode="External"' : ''}/>`;
  const override = (part: string, type: string) =>
    `<Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.${type}+xml"/>`;
  const comments = options.comments !== undefined;
  return buildZip({
    '[Content_Types].xml': `${xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${override('/word/document.xml', 'document.main')}${comments ? override('/word/comments.xml', 'comments') : ''}</Types>`,
    '_rels/.rels': `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'officeDocument', 'word/document.xml')}</Relationships>`,
    'word/_rels/document.xml.rels': `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${comments ? rel('rId3', 'comments', 'comments.xml') : ''}${rel('rId9', 'hyperlink', 'https://example.com', true)}</Relationships>`,
    'word/document.xml': `${xml}<w:document ${W_NS_DECL}><w:body>${body}</w:body></w:document>`,
    ...(comments
      ? { 'word/comments.xml': `${xml}<w:comments ${W_NS_DECL}>${options.comments}</w:comments>` }
      : {}),
    ...options.parts,
  });
}

/** The normalised text with every placed redline's edits made at its clause's offsets. */
export function redlinedText(
  text: string,
  report: Pick<Report, 'clauses'>,
  redlines: readonly { id: string; clauseId: string; edits: readonly RedlineEdit[] }[],
  placed: readonly string[],
): string {
  const clause = new Map(report.clauses.map((c) => [c.id, c]));
  const edits = redlines
    .filter((r) => placed.includes(r.id))
    .flatMap((r) => {
      const start = clause.get(r.clauseId)?.start ?? Number.NaN;
      return r.edits.map((e) => ({ start: start + e.start, end: start + e.end, insert: e.insert }));
    });
  return applyEdits(text, edits);
}
