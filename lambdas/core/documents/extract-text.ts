import mammoth from 'mammoth';
import { getDocumentProxy, extractText as pdfPageTexts } from 'unpdf';
import { decodeText } from './decode-text.js';
import type { DocumentFormat } from './detect-format.js';
import { DocumentRejectedError } from './errors.js';
import { htmlToText } from './html-to-text.js';
import { checkPdfInflation, checkZipInflation } from './inflate-guard.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from './limits.js';
import { markdownToText } from './markdown-to-text.js';

/** pdf.js log level: errors only. Its warnings about fonts are noise in Lambda logs. */
const PDFJS_ERRORS_ONLY = 0;

/**
 * The text of a document in reading order, before normalisation. Page breaks of a PDF become
 * line breaks, paragraphs of HTML and DOCX blank lines.
 *
 * @throws {DocumentRejectedError} `corrupt` when a PDF or DOCX cannot be opened, `encrypted` when
 *   a PDF needs a password, `too-large-inflated` when it unpacks to more than the limit,
 *   `too-many-pages` for a PDF of more pages than the limit.
 */
export async function extractText(
  bytes: Uint8Array,
  format: DocumentFormat,
  limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
): Promise<string> {
  switch (format) {
    case 'txt':
      return decodeText(bytes, 'txt');
    case 'md':
      return markdownToText(decodeText(bytes, 'md'));
    case 'html':
      return htmlToText(decodeText(bytes, 'html'));
    case 'docx':
      checkZipInflation(bytes, limits.maxInflatedBytes);
      return docxText(bytes);
    case 'pdf':
      checkPdfInflation(bytes, limits.maxInflatedBytes);
      return pdfText(bytes, limits.maxPages);
  }
}

async function docxText(bytes: Uint8Array): Promise<string> {
  try {
    const result = await mammoth.extractRawText({
      buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    });
    return result.value;
  } catch (cause) {
    throw new DocumentRejectedError(
      'corrupt',
      'The Word (.docx) document is damaged and cannot be opened, so its text cannot be read. ' +
        'Open it in Word, save a new copy, and upload that.',
      { cause, detail: { format: 'docx', error: errorMessage(cause) } },
    );
  }
}

async function pdfText(bytes: Uint8Array, maxPages: number): Promise<string> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js may transfer (detach) the buffer it is given; the caller keeps using its bytes.
    pdf = await getDocumentProxy(bytes.slice(), { verbosity: PDFJS_ERRORS_ONLY });
  } catch (cause) {
    if (errorName(cause) === 'PasswordException') throw encrypted(cause);
    // A reader that failed before it reached the password check can still see the dictionary.
    if (hasEncryptDictionary(bytes)) throw encrypted(cause);
    throw corruptPdf(cause);
  }
  if (pdf.numPages > maxPages) {
    await pdf.destroy();
    throw new DocumentRejectedError(
      'too-many-pages',
      `The PDF has ${pdf.numPages.toLocaleString('en-US')} pages, more than the ${maxPages.toLocaleString('en-US')} one review reads. ` +
        'Upload the contract without its exhibits or attachments, or split it into parts.',
      { detail: { format: 'pdf', pages: pdf.numPages, maxPages } },
    );
  }
  try {
    const { text } = await pdfPageTexts(pdf, { mergePages: false });
    return text.join('\n');
  } catch (cause) {
    throw corruptPdf(cause);
  } finally {
    await pdf.destroy();
  }
}

function encrypted(cause: unknown): DocumentRejectedError {
  return new DocumentRejectedError(
    'encrypted',
    'The PDF is password-protected (encrypted), so its text cannot be read. Upload an unprotected copy.',
    { cause, detail: { format: 'pdf' } },
  );
}

function corruptPdf(cause: unknown): DocumentRejectedError {
  return new DocumentRejectedError(
    'corrupt',
    'The PDF is damaged or incomplete (for example, the upload was cut short) and cannot be opened. ' +
      'Export or download the PDF again and upload the new file.',
    { cause, detail: { format: 'pdf', error: errorMessage(cause) } },
  );
}

/** True when the bytes carry an `/Encrypt` entry, as the trailer of an encrypted PDF does. */
function hasEncryptDictionary(bytes: Uint8Array): boolean {
  return /\/Encrypt[\s/<\d]/.test(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'),
  );
}

const errorName = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && 'name' in e ? String(e.name) : undefined;

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
