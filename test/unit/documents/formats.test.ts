import { describe, expect, it } from 'vitest';
import {
  type DocumentFormat,
  type DocumentRejectedError,
  detectFormat,
  extractText,
  FORMAT_IDS,
  FORMATS,
  type FormatSpec,
  isDocumentRejectedError,
  parseDocument,
  SUPPORTED_EXTENSIONS,
} from '../../../lambdas/core/documents/index.js';
import { buildDocx, buildPdf, sampleLines } from '../../fixtures/documents/builders.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const spec = (format: DocumentFormat): FormatSpec => FORMATS[format];

/** The sample contract in every format, and the same format holding no text: a new format needs both. */
const SAMPLES: Record<DocumentFormat, { readonly full: () => Uint8Array; readonly blank: () => Uint8Array }> =
  {
    pdf: {
      full: () => buildPdf([sampleLines()]),
      blank: () => buildPdf([sampleLines()], { imageOnly: true }),
    },
    docx: { full: () => buildDocx(sampleLines()), blank: () => buildDocx([]) },
    txt: { full: () => utf8(sampleLines().join('\n\n')), blank: () => utf8('\u200b') },
    md: {
      full: () =>
        utf8(
          sampleLines()
            .map((l) => l.replace(/^(\d+\.) (\w+\.)/, '$1 **$2**'))
            .join('\n\n'),
        ),
      blank: () => utf8('# \n\n```\n```\n'),
    },
    html: {
      full: () =>
        utf8(
          `<html><body>${sampleLines()
            .map((l) => `<p>${l}</p>`)
            .join('')}</body></html>`,
        ),
      blank: () => utf8('<html><body><p> </p><img src=x></body></html>'),
    },
  };

async function rejected(promise: Promise<unknown>): Promise<DocumentRejectedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isDocumentRejectedError(error)) throw new Error(`expected a rejection, got ${String(error)}`);
  return error;
}

describe('the format registry', () => {
  it('is what every unsupported-type message lists: each format by its first extension, in registry order', () => {
    expect(SUPPORTED_EXTENSIONS).toBe('.pdf, .docx, .txt, .md, .html');
    expect(SUPPORTED_EXTENSIONS.split(', ')).toEqual(FORMAT_IDS.map((f) => `.${spec(f).extensions[0]}`));
    const refused = (() => {
      try {
        detectFormat(utf8('1. Fees.'), { key: 'book.xlsx' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(isDocumentRejectedError(refused) && refused.message).toContain(SUPPORTED_EXTENSIONS);
  });

  it('gives each extension and content type to one format only', () => {
    const extensions = FORMAT_IDS.flatMap((f) => spec(f).extensions);
    const contentTypes = FORMAT_IDS.flatMap((f) => spec(f).contentTypes);
    expect(new Set(extensions).size).toBe(extensions.length);
    expect(new Set(contentTypes).size).toBe(contentTypes.length);
    for (const key of [...extensions, ...contentTypes]) expect(key).toBe(key.toLowerCase());
  });

  it.each(FORMAT_IDS)(
    'detects %s by each of its extensions, in any case, and by each of its content types',
    (format) => {
      const bytes = SAMPLES[format].full();
      for (const extension of spec(format).extensions) {
        expect(detectFormat(bytes, { key: `in/contract.${extension}` })).toBe(format);
        expect(detectFormat(bytes, { key: `in/CONTRACT.${extension.toUpperCase()}` })).toBe(format);
      }
      for (const contentType of spec(format).contentTypes) {
        expect(detectFormat(bytes, { key: 'upload', contentType: `${contentType}; charset=utf-8` })).toBe(
          format,
        );
      }
    },
  );

  it.each(FORMAT_IDS)('extracts %s through its own reader, which reads no other format', async (format) => {
    const text = await extractText(SAMPLES[format].full(), format);
    expect(text).toContain('Services');
    expect(text).toContain('Acme Corp');
    // Markup is gone: a reader that passed the bytes through would leave tags or a PDF header.
    expect(text).not.toMatch(/<p>|%PDF-|word\/document\.xml|\*\*/);
    const doc = await parseDocument(SAMPLES[format].full(), {
      key: `contract.${spec(format).extensions[0]}`,
      maxBytes: 1e7,
    });
    expect(doc.format).toBe(format);
    expect(doc.clauses.map((c) => c.heading)).toEqual(['SERVICES AGREEMENT', 'Services', 'Fees', 'Term']);
  });

  it.each(FORMAT_IDS)('tells the uploader of a %s without text what its entry says', async (format) => {
    const error = await rejected(
      parseDocument(SAMPLES[format].blank(), { key: `blank.${spec(format).extensions[0]}`, maxBytes: 1e7 }),
    );
    expect(error.reason).toBe('empty');
    expect(error.message).toBe(spec(format).noText);
    expect(error.detail).toEqual({ format });
  });

  it.each(FORMAT_IDS)('names %s by its entry when the bytes are not what the name says', (format) => {
    const s = spec(format);
    const bytes = s.kind === 'container' ? utf8('1. Fees. Client pays.') : utf8('1. Fees.\0\0 Client pays.');
    let thrown: unknown;
    try {
      detectFormat(bytes, { key: `a.${s.extensions[0]}` });
    } catch (e) {
      thrown = e;
    }
    if (!isDocumentRejectedError(thrown)) throw new Error(`${format}: no rejection`);
    expect(thrown.reason).toBe(s.kind === 'container' ? 'corrupt' : 'binary');
    expect(thrown.message).toContain(`named as ${s.article} ${s.name}`);
    expect(thrown.detail?.format).toBe(format);
  });

  it('tries the magic numbers in registry order, so a PDF header wins over a zip signature behind it', () => {
    expect(FORMAT_IDS.slice(0, 2)).toEqual(['pdf', 'docx']);
    const docx = buildDocx(sampleLines());
    const both = new Uint8Array([...utf8('%PDF-1.7\n'), ...docx]);
    expect(detectFormat(both, { key: 'a.docx' })).toBe('pdf');
    expect(detectFormat(docx, { key: 'a.pdf' })).toBe('docx');
  });

  it('reads an HTML page in the charset it declares, and only HTML', async () => {
    // 0x93 and 0x94 are curly quotes in windows-1252 and not valid UTF-8 on their own.
    const bytes = Uint8Array.from([...utf8('<meta charset="windows-1252"><p>1. The '), 0x93, 0x41, 0x94]);
    expect(FORMAT_IDS.filter((f) => 'metaCharset' in FORMATS[f] && FORMATS[f].metaCharset)).toEqual(['html']);
    expect(await extractText(bytes, 'html')).toContain('\u201cA\u201d');
    expect(() => detectFormat(bytes, { key: 'a.txt' })).toThrow(/not valid UTF-8/);
  });
});
