/**
 * report.docx answering the other side: their tracked changes and comment kept under their name
 * and date; a comment of ours on each of their changes; a reply threaded under their comment as
 * Word threads one (paragraph ids, commentsExtended.xml, commentsIds.xml, related and typed);
 * a counter-proposal as our tracked change on top of theirs, never nested inside their
 * insertion; rejecting only our changes gives their version exactly, accepting everything gives
 * the clause our counter-proposal makes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { authorOf, changeAuthorOf, renderReportDocx } from '../../../lambdas/core/report-docx/index.js';
import { parse, W } from '../../helpers/docx-report.js';
import { DATE, OTHER } from '../../helpers/docx-revisions.js';
import { reportFor, theirAnswer } from '../../helpers/negotiation-round.js';
import { strictFailures } from '../../helpers/strict-xml.js';
import { acceptChanges, changeMarks, rejectChanges, wordText } from '../../helpers/tracked-changes.js';

const W14 = 'http://schemas.microsoft.com/office/word/2010/wordml';
const W15 = 'http://schemas.microsoft.com/office/word/2012/wordml';
const W16CID = 'http://schemas.microsoft.com/office/word/2016/wordml/cid';
const SCHEMAS = join(import.meta.dirname, '../../fixtures/ooxml-comments-schema');
const OURS = authorOf('j-0123456789abcdef0123');
/** Our changes nobody has decided: the author says so. */
const OUR_CHANGES = changeAuthorOf('j-0123456789abcdef0123', undefined);

const partsOf = (bytes: Uint8Array) => unzipSync(bytes);
const xmlOf = (bytes: Uint8Array, name: string) => parse(strFromU8(partsOf(bytes)[name] ?? new Uint8Array()));

/** Each paragraph as who wrote what: runs of plain, inserted and deleted text with their authors. */
function versionOf(doc: Document): string[] {
  const out: string[] = [];
  const paragraphs = doc.getElementsByTagNameNS(W, 'p');
  for (let i = 0; i < paragraphs.length; i++) {
    const p = paragraphs.item(i) as Element;
    if ((p.parentNode as Element).localName === 'comment') continue;
    const pieces: [string, string][] = [];
    const texts = p.getElementsByTagNameNS(W, '*');
    for (let j = 0; j < texts.length; j++) {
      const t = texts.item(j) as Element;
      if (t.localName !== 't' && t.localName !== 'delText') continue;
      let who = 'plain';
      for (let n: Node | null = t.parentNode; n && n !== p; n = n.parentNode)
        if ((n as Element).localName === 'ins' || (n as Element).localName === 'del')
          who = `${(n as Element).localName}:${(n as Element).getAttributeNS(W, 'author')}:${(n as Element).getAttributeNS(W, 'date')}`;
      const last = pieces[pieces.length - 1];
      if (last && last[0] === who) last[1] += t.textContent ?? '';
      else pieces.push([who, t.textContent ?? '']);
    }
    out.push(pieces.map(([who, text]) => `[${who}]${text}`).join(''));
  }
  return out;
}

describe.each([
  ['a comment Word threads already (its paragraph id and commentsExtended part)', true],
  ['a comment with no paragraph id and no commentsExtended part', false],
])('report.docx answering their markup, on %s', (_, thread) => {
  const original = theirAnswer(thread);

  it('keeps their changes and comment, comments on each change, threads a reply, and writes the counter as our tracked change', async () => {
    const { report, text } = await reportFor(original);
    expect(report.negotiation?.changes.map((c) => c.verdict)).toEqual(['counter', 'reject', 'accept']);
    const out = renderReportDocx({ report, text, original });
    expect(strictFailures(out.bytes)).toEqual({});
    expect(out.negotiation).toEqual({
      replies: 3,
      threaded: 1,
      counters: { placed: ['n1/counter'], notPlaced: [] },
    });
    const doc = xmlOf(out.bytes, 'word/document.xml');
    const theirs = changeMarks(xmlOf(original, 'word/document.xml'));
    const now = changeMarks(doc);
    // Every change of theirs is there with its id, author and date; a split of theirs adds one with theirs.
    for (const m of theirs)
      expect(now.find((x) => x.id === m.id)).toMatchObject({ kind: m.kind, author: OTHER, date: DATE });
    expect(now.filter((m) => m.author !== OTHER).every((m) => m.author === OUR_CHANGES)).toBe(true);
    // No insertion inside another insertion: ours splits theirs.
    for (const m of now)
      expect(m.kind === 'ins' && (m.element.parentNode as Element).localName === 'ins').toBe(false);
    // No mark of a comment inside a tracked change: rejecting theirs must not take a comment with it.
    for (const local of ['commentRangeStart', 'commentRangeEnd', 'commentReference']) {
      const marks = doc.getElementsByTagNameNS(W, local);
      for (let i = 0; i < marks.length; i++)
        for (let n = marks.item(i)?.parentNode ?? null; n; n = n.parentNode)
          expect(['ins', 'del']).not.toContain((n as Element).localName);
    }
    // Accepting every change (theirs, then ours) gives the clause our counter-proposal makes.
    const accepted = xmlOf(out.bytes, 'word/document.xml');
    acceptChanges(accepted);
    expect(wordText(accepted)).toContain(report.negotiation?.changes[0]?.counter?.text);
  });

  it('gives back their version exactly when only our changes are rejected', async () => {
    const { report, text } = await reportFor(original);
    const out = renderReportDocx({ report, text, original });
    const doc = xmlOf(out.bytes, 'word/document.xml');
    rejectChanges(doc, OUR_CHANGES);
    expect(versionOf(doc)).toEqual(versionOf(xmlOf(original, 'word/document.xml')));
  });

  it('threads our reply under their comment: ranges beside theirs, parts related, typed and valid', async () => {
    const { report, text } = await reportFor(original);
    const out = renderReportDocx({ report, text, original });
    const comments = xmlOf(out.bytes, 'word/comments.xml');
    const all = Array.from(
      { length: comments.getElementsByTagNameNS(W, 'comment').length },
      (_, i) => comments.getElementsByTagNameNS(W, 'comment').item(i) as Element,
    );
    const theirsEl = all.find((c) => c.getAttributeNS(W, 'author') === OTHER) as Element;
    const reply = all.find((c) => c.textContent?.startsWith('On their change (n1)')) as Element;
    expect(reply.getAttributeNS(W, 'author')).toBe(OURS);
    const lastPara = (c: Element) => {
      const ps = c.getElementsByTagNameNS(W, 'p');
      return (ps.item(ps.length - 1) as Element).getAttributeNS(W14, 'paraId');
    };
    expect(lastPara(theirsEl)).toMatch(/^[0-7][0-9A-F]{7}$/);
    const ex = xmlOf(out.bytes, 'word/commentsExtended.xml').getElementsByTagNameNS(W15, 'commentEx');
    const entries = Array.from({ length: ex.length }, (_, i) => ex.item(i) as Element).map((e) => [
      e.getAttributeNS(W15, 'paraId'),
      e.getAttributeNS(W15, 'paraIdParent') || undefined,
    ]);
    expect(entries).toContainEqual([lastPara(reply), lastPara(theirsEl)]);
    const ids = xmlOf(out.bytes, 'word/commentsIds.xml').getElementsByTagNameNS(W16CID, 'commentId');
    expect(ids.length).toBe(2);
    // The reply's range opens right after theirs and closes right after theirs, its reference after theirs.
    const doc = xmlOf(out.bytes, 'word/document.xml');
    const marker = (local: string, id: string) => {
      const els = doc.getElementsByTagNameNS(W, local);
      for (let i = 0; i < els.length; i++)
        if ((els.item(i) as Element).getAttributeNS(W, 'id') === id) return els.item(i) as Element;
      throw new Error(`no ${local} ${id}`);
    };
    const replyId = reply.getAttributeNS(W, 'id') ?? '';
    expect(marker('commentRangeStart', '0').nextSibling).toBe(marker('commentRangeStart', replyId));
    expect(marker('commentRangeEnd', '0').nextSibling).toBe(marker('commentRangeEnd', replyId));
    // Every comment has its range and reference in the document.
    for (const c of all)
      for (const local of ['commentRangeStart', 'commentRangeEnd', 'commentReference'])
        marker(local, c.getAttributeNS(W, 'id') ?? '');
    expect(packageProblems(out.bytes)).toEqual([]);
    expect(await schemaErrors(out.bytes, 'word/commentsExtended.xml', 'commentsExtended.xsd')).toEqual([]);
    expect(await schemaErrors(out.bytes, 'word/commentsIds.xml', 'commentsIds.xsd')).toEqual([]);
  });
});

/** Relationships whose target is missing, parts with no content type, overrides of missing parts. */
function packageProblems(bytes: Uint8Array): string[] {
  const parts = partsOf(bytes);
  const problems: string[] = [];
  const types = xmlOf(bytes, '[Content_Types].xml').documentElement;
  const defaults = new Set(
    Array.from(types.getElementsByTagName('Default')).map((d) => d.getAttribute('Extension')),
  );
  const overrides = Array.from(types.getElementsByTagName('Override')).map((o) =>
    (o.getAttribute('PartName') ?? '').slice(1),
  );
  for (const o of overrides) if (!parts[o]) problems.push(`content type of a missing part ${o}`);
  for (const name of Object.keys(parts))
    if (!overrides.includes(name) && !defaults.has(name.split('.').pop() ?? ''))
      problems.push(`no content type: ${name}`);
  for (const rels of Object.keys(parts).filter((n) => n.endsWith('.rels'))) {
    const dir = rels.replace(/_rels\/[^/]+\.rels$/, '');
    for (const r of Array.from(xmlOf(bytes, rels).getElementsByTagName('Relationship'))) {
      if (r.getAttribute('TargetMode') === 'External') continue;
      const target = (r.getAttribute('Target') ?? '').replace(/^\//, '');
      if (!parts[`${dir}${target}`] && !parts[target])
        problems.push(`${rels}: ${r.getAttribute('Type')} → ${target} missing`);
    }
  }
  return problems;
}

/** libxml2's errors validating a part with a schema of the fixtures. */
async function schemaErrors(bytes: Uint8Array, part: string, schema: string): Promise<string[]> {
  const r = await validateXML({
    xml: [
      {
        fileName: part.split('/').pop() ?? part,
        contents: strFromU8(partsOf(bytes)[part] ?? new Uint8Array()),
      },
    ],
    schema: [{ fileName: schema, contents: readFileSync(join(SCHEMAS, schema), 'utf8') }],
  });
  return r.errors.map((e) => e.message);
}
