/**
 * The alignment of a Word body's text with the normalised text: it reads the text mammoth reads
 * (inserted and moved-to text in, deleted text, moved-away text and deleted table rows out), so
 * offsets of the normalised text land on the characters they name.
 */
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { normaliseText } from '../../../lambdas/core/documents/index.js';
import {
  alignText,
  documentAtoms,
  outsideText,
  parsePart,
  W_NS,
} from '../../../lambdas/core/wordml/index.js';
import { docxOf } from '../../helpers/docx-report.js';

const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const BODY =
  `<w:p>${run('Keep ')}<w:ins w:id="1" w:author="A">${run('added ')}</w:ins>` +
  `<w:del w:id="2" w:author="A"><w:r><w:delText>gone </w:delText></w:r></w:del>${run('end.')}</w:p>` +
  `<w:p><w:moveFromRangeStart w:id="3" w:name="m1"/><w:moveFrom w:id="4" w:author="A">${run('Moved away.')}</w:moveFrom><w:moveFromRangeEnd w:id="3"/></w:p>` +
  `<w:p><w:moveToRangeStart w:id="5" w:name="m1"/><w:moveTo w:id="6" w:author="A">${run('Moved here.')}</w:moveTo><w:moveToRangeEnd w:id="5"/></w:p>` +
  '<w:tbl><w:tr><w:tc><w:p>' +
  run('Row kept.') +
  '</w:p></w:tc></w:tr>' +
  `<w:tr><w:trPr><w:del w:id="7" w:author="A"/></w:trPr><w:tc><w:p>${run('Row gone.')}</w:p></w:tc></w:tr></w:tbl>`;

function body(xml: string): Element {
  const parsed = parsePart(`<w:document xmlns:w="${W_NS}"><w:body>${xml}</w:body></w:document>`);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.doc.getElementsByTagNameNS(W_NS, 'body').item(0) as Element;
}

describe('the body text map', () => {
  it('reads the characters mammoth reads, and each offset of the normalised text lands on its own', async () => {
    const { chars, atoms } = documentAtoms(body(BODY));
    expect(chars).toBe('Keepaddedend.Movedhere.Rowkept.');
    const raw = await mammoth.extractRawText({ buffer: Buffer.from(docxOf(BODY)) });
    const text = normaliseText(raw.value);
    expect(text).toBe('Keep added end.\n\nMoved here.\n\nRow kept.');
    const map = alignText(text, chars);
    for (let p = 0; p < text.length; p++) {
      const a = map[p] ?? -1;
      if (/\s/.test(text[p] ?? '')) expect(a).toBe(-1);
      else expect((atoms[a]?.node.textContent ?? '')[atoms[a]?.offset ?? -1]).toBe(text[p]);
    }
  });

  it('tells the elements whose content is not in the text', () => {
    const b = body(BODY);
    const local = (name: string) => b.getElementsByTagNameNS(W_NS, name);
    expect(outsideText(local('del').item(0) as Element)).toBe(true);
    expect(outsideText(local('moveFrom').item(0) as Element)).toBe(true);
    expect(outsideText(local('ins').item(0) as Element)).toBe(false);
    expect(outsideText(local('moveTo').item(0) as Element)).toBe(false);
    expect(outsideText(local('tr').item(0) as Element)).toBe(false);
    expect(outsideText(local('tr').item(1) as Element)).toBe(true);
  });

  it('refuses a part that is not well-formed, naming the error', () => {
    const parsed = parsePart('<w:document w:x="1" w:x="2"/>');
    expect('error' in parsed ? parsed.error : 'parsed').toMatch(/redefined/);
    expect('error' in parsePart('not xml')).toBe(true);
  });
});
