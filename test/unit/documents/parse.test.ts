import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DocumentRejectedError,
  detectFormat,
  extractText,
  isDocumentRejectedError,
  type ParsedDocument,
  parseDocument,
  type RejectionReason,
} from '../../../lambdas/core/documents/index.js';
import {
  buildDocx,
  buildPdf,
  buildZip,
  SAMPLE_CONTRACT,
  sampleLines,
} from '../../fixtures/documents/builders.js';

const MB = 1024 * 1024;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const parse = (bytes: Uint8Array, key: string, extra: { contentType?: string; maxBytes?: number } = {}) =>
  parseDocument(bytes, { key, maxBytes: extra.maxBytes ?? 10 * MB, ...extra });

/** The four clauses every rendering of SAMPLE_CONTRACT must produce, whatever its format. */
function expectSampleClauses(doc: ParsedDocument): void {
  expect(doc.clauses.map((c) => c.label)).toEqual([undefined, '1', '2', '3']);
  expect(doc.clauses.map((c) => c.heading)).toEqual(['SERVICES AGREEMENT', 'Services', 'Fees', 'Term']);
  expect(doc.clauses[0]?.text).toMatch(
    /^SERVICES AGREEMENT\s+This Services Agreement is made between Acme Corp/,
  );
  for (const [i, [number, body]] of SAMPLE_CONTRACT.clauses.entries()) {
    expect(doc.clauses[i + 1]?.text.replace(/\s+/g, ' ')).toBe(`${number} ${body}`);
  }
  for (const clause of doc.clauses) expect(doc.text.slice(clause.start, clause.end)).toBe(clause.text);
  expect(doc.chunks.flatMap((c) => c.clauses)).toEqual(doc.clauses);
}

async function rejection(promise: Promise<unknown>): Promise<DocumentRejectedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isDocumentRejectedError(error)).toBe(true);
  return error as DocumentRejectedError;
}

describe('parseDocument: formats', () => {
  it('reads plain text, dropping a BOM and CRLF line ends, and reports hash and size', async () => {
    const bytes = utf8(`\ufeff${sampleLines().join('\r\n\r\n')}\r\n`);
    const doc = await parse(bytes, 'contracts/services.TXT');
    expect(doc.format).toBe('txt');
    expect(doc.bytes).toBe(bytes.length);
    expect(doc.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(doc.text).not.toMatch(/[\r\ufeff]/);
    expectSampleClauses(doc);
  });

  it('reads UTF-16 text with a byte-order mark (what Notepad saves as "Unicode")', async () => {
    const body = Buffer.from(sampleLines().join('\n\n'), 'utf16le');
    const doc = await parse(
      Uint8Array.from(Buffer.concat([Buffer.from([0xff, 0xfe]), body])),
      'services.txt',
    );
    expectSampleClauses(doc);
  });

  it('reads HTML: drops head, scripts, styles and comments, decodes entities, keeps <br> as a line break', async () => {
    const html = `<!DOCTYPE html>
<html><head><title>Ignore me</title><style>p { color: red }</style>
<script>var x = "9. Not a clause </p>";</script></head>
<body>
  <h1>SERVICES   AGREEMENT</h1>
  <!-- 8. a commented-out clause -->
  <p>This Services Agreement is made between Acme&nbsp;Corp (&quot;Client&quot;) and Widget Ltd (&#34;Provider&#x22;).</p>
  <p>1. Services. Provider shall perform the services described in Schedule A with due care and skill.</p>
  <div data-note="a > b">2. Fees. Client shall pay each undisputed invoice within<br>30 days of receiving it from Provider.</div>
  <table><tr><td>3.</td><td>Term. This Agreement starts on the Effective Date and continues for two years unless ended.</td></tr></table>
</body></html>`;
    const doc = await parse(utf8(html), 'upload/services.htm');
    expect(doc.format).toBe('html');
    expect(doc.text).not.toMatch(/Ignore me|Not a clause|commented-out|color: red|<|&\w+;/);
    // "within\n30 days": a number at the start of a line inside a sentence is not a clause label.
    expect(doc.text).toContain('within\n30 days');
    expectSampleClauses(doc);
  });

  it('reads HTML in the windows-1252 charset its meta tag declares', async () => {
    const head = '<html><head><meta charset="windows-1252"></head><body><p>';
    const bytes = Buffer.concat([
      Buffer.from(head, 'latin1'),
      Buffer.from([0x93]),
      Buffer.from('Client', 'latin1'),
      Buffer.from([0x94]),
      Buffer.from(' shall pay each invoice within 30 days.</p></body></html>', 'latin1'),
    ]);
    const doc = await parse(Uint8Array.from(bytes), 'legacy.html');
    expect(doc.text).toBe('\u201cClient\u201d shall pay each invoice within 30 days.');
  });

  it('reads Markdown without its markup', async () => {
    const md = [
      '# SERVICES AGREEMENT',
      '',
      'This Services Agreement is made between Acme Corp ("Client") and Widget Ltd ("Provider").',
      '',
      '1. **Services.** Provider shall perform the services described in [Schedule A](https://example.com/a) with due care and skill.',
      '',
      '2. Fees. Client shall pay each undisputed invoice within 30 days of receiving it from `Provider`.',
      '',
      '> 3. Term. This Agreement starts on the Effective Date and continues for two years unless ended.',
      '',
      '---',
    ].join('\n');
    const doc = await parse(utf8(md), 'services.markdown');
    expect(doc.format).toBe('md');
    expect(doc.text).not.toMatch(/[#*`>[\]]|https:|---/);
    expectSampleClauses(doc);
  });

  it('reads a DOCX (a zip with the document part) through mammoth', async () => {
    const doc = await parse(buildDocx(sampleLines()), 'services.docx');
    expect(doc.format).toBe('docx');
    expectSampleClauses(doc);
  });

  it('reads a PDF text layer, page after page', async () => {
    const lines = sampleLines();
    const doc = await parse(buildPdf([lines.slice(0, 3), lines.slice(3)]), 'services.pdf');
    expect(doc.format).toBe('pdf');
    expectSampleClauses(doc);
  });

  it('decides the format by magic number before the name, and by content type when there is no extension', async () => {
    expect((await parse(buildPdf([sampleLines()]), 'scan-0001.txt')).format).toBe('pdf');
    expect((await parse(buildDocx(sampleLines()), 'upload')).format).toBe('docx');
    const text = utf8(sampleLines().join('\n\n'));
    expect((await parse(text, 'upload', { contentType: 'text/plain; charset=utf-8' })).format).toBe('txt');
    expect((await parse(text, 'contract v1.2', { contentType: 'text/markdown' })).format).toBe('md');
  });

  it('passes chunk bounds through', async () => {
    const doc = await parseDocument(buildDocx(sampleLines()), {
      key: 'a.docx',
      maxBytes: MB,
      chunk: { maxClauses: 1 },
    });
    expect(doc.chunks.map((c) => c.clauses.length)).toEqual([1, 1, 1, 1]);
    await expect(parseDocument(utf8('x'), { key: 'a.txt', maxBytes: 0 })).rejects.toThrow(/maxBytes/);
  });
});

describe('parseDocument: rejections', () => {
  const png = Uint8Array.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
  ]);
  const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
  const docx = buildDocx(sampleLines());
  const encryptedOffice = Uint8Array.from(
    Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(504),
      Buffer.from('EncryptedPackage', 'utf16le'),
      Buffer.alloc(64),
    ]),
  );
  const cases: readonly [string, () => Uint8Array, string, RejectionReason, RegExp][] = [
    ['an empty file', () => new Uint8Array(), 'a.txt', 'empty', /empty \(0 bytes\)/],
    ['a whitespace-only file', () => utf8(' \n\t\r\n  '), 'a.pdf', 'empty', /only blank space/],
    [
      'random bytes named .txt',
      () => Uint8Array.from(randomBytes(4096)),
      'a.txt',
      'binary',
      /not readable text/,
    ],
    ['text with NUL bytes', () => utf8('1. Fees.\0\0\0 Client pays.'), 'a.md', 'binary', /NUL bytes/],
    [
      'invalid UTF-8',
      () => Uint8Array.from([0x31, 0x2e, 0x20, 0xc3, 0x28, 0xff, 0x41]),
      'a.txt',
      'binary',
      /UTF-8/,
    ],
    [
      'mostly control characters',
      () => utf8(`${'\u0001\u0002\u0003'.repeat(20)}Fees are due.`),
      'a.html',
      'binary',
      /control characters/,
    ],
    ['a PNG named .txt', () => png, 'contract.txt', 'unsupported-type', /PNG image/],
    ['a JPEG', () => jpeg, 'photo.jpg', 'unsupported-type', /JPEG image/],
    [
      'text named .xlsx',
      () => utf8('1. Fees. Client pays.'),
      'book.xlsx',
      'unsupported-type',
      /\.xlsx.*\.pdf, \.docx/,
    ],
    [
      'an Excel workbook',
      () => buildZip({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' }),
      'book.xlsx',
      'unsupported-type',
      /Excel spreadsheet/,
    ],
    [
      'a plain ZIP archive',
      () => buildZip({ 'a.txt': 'hello' }),
      'bundle.zip',
      'unsupported-type',
      /ZIP archive/,
    ],
    [
      'no extension and no content type',
      () => utf8('1. Fees.'),
      'upload',
      'unsupported-type',
      /no extension/,
    ],
    [
      'an encrypted PDF',
      () => buildPdf([sampleLines()], { encrypted: true }),
      'a.pdf',
      'encrypted',
      /password-protected/,
    ],
    ['a password-protected Word file', () => encryptedOffice, 'a.docx', 'encrypted', /password-protected/],
    ['a truncated PDF', () => buildPdf([sampleLines()]).slice(0, 400), 'a.pdf', 'corrupt', /PDF is damaged/],
    [
      'a DOCX cut short',
      () => docx.slice(0, docx.length - 60),
      'a.docx',
      'corrupt',
      /Word \(\.docx\).*damaged/,
    ],
    [
      'zip garbage named .docx',
      () => utf8('PK\u0003\u0004word/document.xml garbage'),
      'a.docx',
      'corrupt',
      /damaged/,
    ],
    ['text named .pdf', () => utf8('1. Fees. Client pays.'), 'a.pdf', 'corrupt', /named as a PDF/],
    [
      'a PDF without a text layer',
      () => buildPdf([sampleLines()], { imageOnly: true }),
      'scan.pdf',
      'empty',
      /no text layer.*scanned/,
    ],
    [
      'HTML with no visible text',
      () => utf8('<html><body><p> </p><img src=x></body></html>'),
      'a.html',
      'empty',
      /no visible text/,
    ],
    [
      'only punctuation',
      () => utf8('--- *** ...\n\n!!! ___'),
      'a.txt',
      'no-clauses',
      /No clauses were found/,
    ],
  ];

  it.each(cases)('refuses %s', async (_name, bytes, key, reason, message) => {
    const error = await rejection(parse(bytes(), key));
    expect(error).toBeInstanceOf(DocumentRejectedError);
    expect(error.name).toBe('DocumentRejectedError');
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(message);
  });

  it('refuses a file over the limit, naming both sizes', async () => {
    const error = await rejection(parse(new Uint8Array(3 * MB).fill(0x41), 'big.txt', { maxBytes: 2 * MB }));
    expect(error.reason).toBe('too-large');
    expect(error.message).toMatch(/3 MB.*2 MB limit/);
    expect(error.detail).toEqual({ bytes: 3 * MB, maxBytes: 2 * MB });
    const near = await rejection(parse(new Uint8Array(MB + 10).fill(0x41), 'big.txt', { maxBytes: MB }));
    expect(near.message).toMatch(/1,048,586 bytes.*1,048,576-byte limit/);
  });

  it('keeps the underlying error as the cause', async () => {
    const error = await rejection(parse(buildPdf([sampleLines()], { encrypted: true }), 'a.pdf'));
    expect((error.cause as Error).name).toBe('PasswordException');
  });

  it('recognises rejections across module copies by shape', () => {
    const foreign = Object.assign(new Error('x'), { name: 'DocumentRejectedError', reason: 'empty' });
    expect(isDocumentRejectedError(foreign)).toBe(true);
    expect(isDocumentRejectedError(Object.assign(new Error('x'), { name: 'DocumentRejectedError' }))).toBe(
      false,
    );
    expect(isDocumentRejectedError(new Error('x'))).toBe(false);
    expect(isDocumentRejectedError('empty')).toBe(false);
  });
});

describe('detectFormat and extractText', () => {
  it('is case-insensitive about extensions and ignores folders with dots', () => {
    const text = utf8('1. Fees.');
    expect(detectFormat(text, { key: 'a.b/C.MD' })).toBe('md');
    expect(detectFormat(text, { key: 'x.HTML' })).toBe('html');
    expect(() => detectFormat(text, { key: 'v1.2/contract' })).toThrow(/no extension/);
  });

  it('does not detach the caller’s PDF buffer', async () => {
    const bytes = buildPdf([sampleLines()]);
    const length = bytes.length;
    expect(await extractText(bytes, 'pdf')).toContain('1. Services.');
    expect(bytes.length).toBe(length);
  });
});
