import { decodeText } from './decode-text.js';
import { type DocumentFormat, formatSpec } from './formats.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from './limits.js';

/**
 * The text of a document in reading order, before normalisation, from the reader its format's
 * entry in the registry names. Page breaks of a PDF become line breaks, paragraphs of HTML and
 * DOCX blank lines; a text format is decoded (see `decodeText`) and stripped of its markup.
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
  const spec = formatSpec(format);
  return spec.kind === 'container' ? spec.extract(bytes, limits) : spec.toText(decodeText(bytes, spec));
}
