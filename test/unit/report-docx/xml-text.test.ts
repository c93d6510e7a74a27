/**
 * report.docx holds only characters XML 1.0 allows: each one it forbids, in a model's reason, a
 * reviewer's note and name, the job's author name, a redline's inserted text and note, and the
 * contract's own text (of a DOCX upload and of a text upload), comes out as U+FFFD, and every XML part of the file parses under a
 * strict XML parser.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../../lambdas/core/documents/parse.js';
import {
  authorOf,
  commentParagraphs,
  type DocxRedline,
  isXmlChar,
  paragraphTexts,
  REPLACEMENT_CHARACTER,
  renderReportDocx,
  xmlSafe,
} from '../../../lambdas/core/report-docx/index.js';
import type { Report, ReportClause } from '../../../lambdas/core/report-types.js';
import { docxOf, reportOf, W, xmlPart } from '../../helpers/docx-report.js';
import { strictFailures, strictXmlErrors } from '../../helpers/strict-xml.js';

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** Every code unit XML 1.0 forbids on its own: C0 controls but tab, LF and CR; U+FFFE, U+FFFF. */
const FORBIDDEN_UNITS = [...range(0x0, 0x8), 0xb, 0xc, ...range(0xe, 0x1f), 0xfffe, 0xffff];
const LONE_HIGH = '\ud800';
const LONE_LOW = '\udc00';
const FORBIDDEN = [...FORBIDDEN_UNITS.map((c) => String.fromCharCode(c)), LONE_HIGH, LONE_LOW];
/** Each forbidden character between two letters, so none is at a text's edge. */
const ALL = FORBIDDEN.map((c) => `${c}x`).join('');
const count = (s: string, ch: string) => s.split(ch).length - 1;

describe('the XML text sanitizer', () => {
  it('replaces each character XML 1.0 forbids with U+FFFD, one unit for one, and keeps every allowed one', () => {
    for (const c of FORBIDDEN) expect(xmlSafe(`a${c}b`)).toBe(`a${REPLACEMENT_CHARACTER}b`);
    expect(xmlSafe(ALL)).toHaveLength(ALL.length);
    // Two lone halves the wrong way round are two lone halves.
    expect(xmlSafe(`${LONE_LOW}${LONE_HIGH}`)).toBe(REPLACEMENT_CHARACTER.repeat(2));
    const allowed = 'tab\t lf\n cr\r \u0020\u007f\u0085\ud7ff\ue000\ufffd 😀 \u{10ffff} é “quotes” <&>';
    expect(xmlSafe(allowed)).toBe(allowed);
    for (const cp of [...FORBIDDEN_UNITS, 0xd800, 0xdfff, 0x110000]) expect(isXmlChar(cp)).toBe(false);
    for (const cp of [0x9, 0xa, 0xd, 0x20, 0xd7ff, 0xe000, 0xfffd, 0x10000, 0x10ffff])
      expect(isXmlChar(cp)).toBe(true);
  });

  it('is checked against a strict reading that refuses what it removes', () => {
    const utf8 = (s: string) => new TextEncoder().encode(s);
    expect(strictXmlErrors(utf8('<a b="ok">fine 😀 &amp; &#x9;</a>'))).toEqual([]);
    for (const c of FORBIDDEN_UNITS)
      expect(strictXmlErrors(utf8(`<a>x${String.fromCharCode(c)}</a>`))).not.toEqual([]);
    expect(strictXmlErrors(utf8('<a b="\u0001"/>'))).not.toEqual([]);
    expect(strictXmlErrors(utf8('<a>&#1;</a>'))).not.toEqual([]);
    expect(strictXmlErrors(utf8('<a>&#xD800;</a>'))).not.toEqual([]);
    // A lone surrogate reaches bytes only as an encoded surrogate, which UTF-8 does not allow.
    expect(
      strictXmlErrors(Uint8Array.from([0x3c, 0x61, 0x3e, 0xed, 0xa0, 0x80, 0x3c, 0x2f, 0x61, 0x3e])),
    ).not.toEqual([]);
  });
});

/** A report whose reasons, reviewer notes and reviewer names carry every forbidden character. */
function pollutedReport(
  clauses: readonly { id: string; index: number; start: number; end: number; text: string }[],
) {
  const base = reportOf(clauses, () => 0.99);
  const rows: ReportClause[] = base.clauses.map((c) => ({
    ...c,
    findings: c.findings.map((f) => ({
      ...f,
      rationale: `reason ${ALL}`,
      review: {
        findingId: `${c.id}/${f.category}`,
        decision: 'overridden',
        modelScore: 3,
        decidedScore: 2,
        by: `cognito-identity:${ALL}`,
        byName: `name ${ALL}`,
        at: '2026-03-01T09:00:00.000Z',
        note: `note ${ALL}`,
      },
    })),
  }));
  return { ...base, job: { jobId: `j-${ALL}` }, clauses: rows } as unknown as Report;
}

/** Each comment's visible text, and its author, as read back. */
function commentsOf(docx: Uint8Array) {
  const found = xmlPart(docx, 'word/comments.xml').getElementsByTagNameNS(W, 'comment');
  return Array.from({ length: found.length }, (_, i) => {
    const c = found.item(i) as Element;
    return { author: c.getAttributeNS(W, 'author'), text: c.textContent ?? '' };
  });
}

/** A redline of a clause inserting, and noting, every forbidden character at its start. */
const pollutedRedline = (clauseId: string): DocxRedline => ({
  id: `r-${ALL}`,
  clauseId,
  decision: 'proposed',
  note: `note ${ALL}`,
  edits: [{ start: 0, end: 0, insert: `ins ${ALL} ` }],
});

function checkComments(docx: Uint8Array, report: Report, redline: DocxRedline) {
  const comments = commentsOf(docx);
  expect(comments).toHaveLength(report.clauses.length);
  for (const [i, clause] of report.clauses.entries()) {
    const mentions = clause.id === redline.clauseId ? [{ redline }] : [];
    const expected = commentParagraphs(report, clause, mentions).map(xmlSafe).join('');
    expect(count(expected, REPLACEMENT_CHARACTER)).toBeGreaterThanOrEqual(3 * FORBIDDEN.length);
    expect(comments[i]).toEqual({ author: xmlSafe(authorOf(report.job.jobId)), text: expected });
  }
}

describe('report.docx with forbidden characters in everything written into it', () => {
  it('from a DOCX upload (raw and as character references, in the body and a part left alone) parses strictly, each one a U+FFFD', async () => {
    const NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const raw = FORBIDDEN_UNITS.map((c) => `${String.fromCharCode(c)}x`).join('');
    const refs = FORBIDDEN.map((c) => `&#x${(c.codePointAt(0) ?? 0).toString(16)};x`).join('');
    const p = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
    const original = docxOf(
      `${p(`1. Fees. Client pays ${raw} within 30 days.`)}${p(`2. Term. Two years ${refs} from signing.`)}`,
      {
        parts: {
          'word/footer1.xml': `<?xml version="1.0" encoding="UTF-8"?><w:ftr ${NS}>${p(`Page ${raw}${refs}`)}</w:ftr>`,
        },
      },
    );
    // What a lenient writer made, a strict reader refuses: the test's premise.
    expect(Object.keys(strictFailures(original)).sort()).toEqual(['word/document.xml', 'word/footer1.xml']);

    const parsed = await parseDocument(original, { key: 'c.docx', maxBytes: 1024 * 1024 });
    const report = pollutedReport(parsed.clauses);
    const redline = pollutedRedline(report.clauses[0]?.id ?? '');
    const out = renderReportDocx({ report, text: parsed.text, original, redlines: [redline] });
    expect(out.redlines.placed).toEqual([redline.id]);
    expect(strictFailures(out.bytes)).toEqual({});

    const before = paragraphTexts(xmlPart(original, 'word/document.xml'));
    const after = paragraphTexts(xmlPart(out.bytes, 'word/document.xml'));
    // The first paragraph begins with the redline's insertion.
    expect(after).toEqual(before.map((p, i) => xmlSafe(i === 0 ? `ins ${ALL} ${p}` : p)));
    expect(count(after.join(''), REPLACEMENT_CHARACTER)).toBe(FORBIDDEN_UNITS.length + 2 * FORBIDDEN.length);
    expect(paragraphTexts(xmlPart(out.bytes, 'word/footer1.xml'))).toEqual([
      `Page ${xmlSafe(raw)}${xmlSafe(FORBIDDEN.map((c) => `${c}x`).join(''))}`,
    ]);
    checkComments(out.bytes, report, redline);
  });

  it('from a text upload (a generated document) parses strictly, each one a U+FFFD', () => {
    const lines = [`1. Fees. Client pays ${ALL} within 30 days.`, `2. Term. Two years ${ALL} from signing.`];
    const text = lines.join('\n');
    const clauses = lines.map((line, index) => {
      const start = text.indexOf(line);
      return { id: `c${index + 1}`, index, start, end: start + line.length, text: line };
    });
    const report = pollutedReport(clauses);
    const redline = pollutedRedline('c2');
    const out = renderReportDocx({ report, text, redlines: [redline] });
    expect(out.source).toBe('generated');
    expect(out.redlines.placed).toEqual([redline.id]);
    expect(strictFailures(out.bytes)).toEqual({});
    const after = paragraphTexts(xmlPart(out.bytes, 'word/document.xml'));
    expect(after).toEqual(lines.map((line, i) => xmlSafe(i === 1 ? `ins ${ALL} ${line}` : line)));
    expect(count(after.join(''), REPLACEMENT_CHARACTER)).toBe(3 * FORBIDDEN.length);
    checkComments(out.bytes, report, redline);
  });
});
