import { getDocumentProxy, extractText as pdfPageTexts } from 'unpdf';
import { DocumentRejectedError } from './errors.js';
import { checkPdfInflation } from './inflate-guard.js';
import type { DocumentLimits } from './limits.js';

/** pdf.js log level: errors only. Its warnings about fonts are noise in Lambda logs. */
const PDFJS_ERRORS_ONLY = 0;

/**
 * The text layer of a PDF, page after page (a page break becomes a line break), once its
 * streams are known to unpack within the limit and its pages to be within `limits.maxPages`.
 *
 * @throws {DocumentRejectedError} `too-large-inflated`, `too-many-pages`, `encrypted` when it
 *   needs a password, `corrupt` when pdf.js cannot open or read it.
 */
export async function pdfText(bytes: Uint8Array, limits: DocumentLimits): Promise<string> {
  checkPdfInflation(bytes, limits.maxInflatedBytes);
  const maxPages = limits.maxPages;
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
