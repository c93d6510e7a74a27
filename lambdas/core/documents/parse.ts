import { createHash } from 'node:crypto';
import type { Chunk, Clause } from '../clause.js';
import { type ChunkOptions, chunkClauses } from './chunker.js';
import { detectFormat } from './detect-format.js';
import { readDocxRevisions } from './docx-revisions.js';
import { DocumentRejectedError } from './errors.js';
import { extractText } from './extract-text.js';
import { type DocumentFormat, formatSpec } from './formats.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from './limits.js';
import { normaliseText } from './normalise.js';
import type { DocumentRevisions } from './revision-types.js';
import { type SplitOptions, splitClauses } from './split-clauses.js';
import { tooLargeError } from './too-large.js';

/** What is known about an upload besides its bytes, and the limits to apply. */
export interface ParseInput {
  /** Object key or file name; its extension helps decide the format. */
  readonly key: string;
  /** Content type declared at upload, if any. */
  readonly contentType?: string;
  /** Largest accepted upload, in bytes. */
  readonly maxBytes: number;
  /** Chunk size bounds; defaults as in {@link chunkClauses}. */
  readonly chunk?: ChunkOptions;
  /** Clause size bounds; defaults as in {@link splitClauses}. */
  readonly split?: SplitOptions;
  /** @default DEFAULT_DOCUMENT_LIMITS */
  readonly limits?: DocumentLimits;
}

/** A document ready for review: its text, clauses and the chunks they are processed in. */
export interface ParsedDocument {
  readonly format: DocumentFormat;
  /** Normalised text; every clause offset refers to it. */
  readonly text: string;
  /** SHA-256 of the uploaded bytes, lower-case hex: identifies the exact file reviewed. */
  readonly sha256: string;
  /** Size of the upload in bytes. */
  readonly bytes: number;
  readonly clauses: readonly Clause[];
  readonly chunks: readonly Chunk[];
  /**
   * The tracked changes and comments a DOCX already carries (the text and clauses read it with
   * every change accepted, as Word shows it); absent when it has none, and for other formats.
   */
  readonly revisions?: DocumentRevisions;
}

/**
 * Turns an upload into clauses and chunks, or refuses it with a reason the uploader can act on.
 * Checks run cheapest first: empty, too large, format, text extraction, text present, clauses.
 *
 * @throws {DocumentRejectedError} for every problem with the document itself.
 * @throws {RangeError} when `maxBytes` or the chunk/split options are invalid (a caller bug).
 */
export async function parseDocument(bytes: Uint8Array, input: ParseInput): Promise<ParsedDocument> {
  if (!Number.isInteger(input.maxBytes) || input.maxBytes < 1) {
    throw new RangeError(
      `maxBytes must be a whole number of bytes, at least 1; got ${String(input.maxBytes)}`,
    );
  }
  if (isBlank(bytes)) {
    throw new DocumentRejectedError(
      'empty',
      bytes.length === 0
        ? 'The file is empty (0 bytes). Upload the contract file again.'
        : 'The file contains only blank space and no text. Upload the contract file again.',
      { detail: { bytes: bytes.length } },
    );
  }
  if (bytes.length > input.maxBytes) throw tooLargeError(bytes.length, input.maxBytes);

  const limits = input.limits ?? DEFAULT_DOCUMENT_LIMITS;
  const format = detectFormat(bytes, input);
  const raw = await extractText(bytes, format, limits);
  if (raw.length > limits.maxChars) {
    throw new DocumentRejectedError(
      'too-complex',
      `The document holds ${raw.length.toLocaleString('en-US')} characters of text, more than the ` +
        `${limits.maxChars.toLocaleString('en-US')} one review reads. Upload the contract without its exhibits, or split it into parts.`,
      { detail: { format, chars: raw.length, maxChars: limits.maxChars } },
    );
  }
  const text = normaliseText(raw);
  if (text === '') throw noText(format);

  const clauses = splitClauses(text, input.split);
  if (clauses.length > limits.maxClauses) {
    throw new DocumentRejectedError(
      'too-complex',
      `The document has ${clauses.length.toLocaleString('en-US')} clauses, more than the ` +
        `${limits.maxClauses.toLocaleString('en-US')} one review covers. Upload the contract without its exhibits, or split it into parts.`,
      { detail: { format, clauses: clauses.length, maxClauses: limits.maxClauses } },
    );
  }
  if (clauses.length === 0) {
    throw new DocumentRejectedError(
      'no-clauses',
      'No clauses were found: the document has no words or numbers, only punctuation or symbols. ' +
        'Check that the right file was uploaded.',
      { detail: { format, chars: text.length } },
    );
  }
  const revisions = format === 'docx' ? readDocxRevisions(bytes, text, clauses, limits) : undefined;
  return {
    format,
    text,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    clauses,
    chunks: chunkClauses(clauses, input.chunk),
    ...(revisions ? { revisions } : {}),
  };
}

/** True for no bytes, or only ASCII whitespace (and a UTF-8 byte-order mark). */
function isBlank(bytes: Uint8Array): boolean {
  const from = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b !== 0x20 && (b < 0x09 || b > 0x0d)) return false;
  }
  return true;
}

function noText(format: DocumentFormat): DocumentRejectedError {
  return new DocumentRejectedError('empty', formatSpec(format).noText, { detail: { format } });
}
