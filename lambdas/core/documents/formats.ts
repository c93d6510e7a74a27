/**
 * The document formats the pipeline reads, as data. The one list: the `DocumentFormat` type, the
 * extensions and content types detection accepts, the order magic numbers are tried in, the
 * reader each format's text comes from, what messages call it, and the extensions every
 * unsupported-type message names ({@link SUPPORTED_EXTENSIONS}) all come from it, so a new format
 * is one entry here plus whatever the compiler then names.
 */
import { docxText } from './docx-text.js';
import { htmlToText } from './html-to-text.js';
import type { DocumentLimits } from './limits.js';
import { indexOfAscii, isZip } from './magic-bytes.js';
import { markdownToText } from './markdown-to-text.js';
import { pdfText } from './pdf-text.js';

/** What every format says about itself. */
interface FormatBase {
  /** What messages call a file of this format ("named as a PDF", "not a valid PDF"). */
  readonly name: string;
  readonly article: 'a' | 'an';
  /** Lower-case extensions without the dot; the first is the one messages name. */
  readonly extensions: readonly [string, ...string[]];
  /** Content types, lower-case, that mean this format when the file name has no extension. */
  readonly contentTypes: readonly string[];
  /** What the uploader is told when the file holds no text once read. */
  readonly noText: string;
}

/** A format its bytes prove (a magic number): tried before the file name, whatever the name says. */
export interface ContainerFormatSpec extends FormatBase {
  readonly kind: 'container';
  /** True when the bytes are of this format. */
  readonly magic: (bytes: Uint8Array) => boolean;
  /** The document's text in reading order, within the limits (inflation, pages). */
  readonly extract: (bytes: Uint8Array, limits: DocumentLimits) => Promise<string>;
}

/** A format whose bytes are text in some character encoding, told by its name or content type. */
export interface TextFormatSpec extends FormatBase {
  readonly kind: 'text';
  /** True when the text may name its own encoding (an HTML page's `<meta charset>`). */
  readonly metaCharset: boolean;
  /** The decoded text without the format's markup. */
  readonly toText: (text: string) => string;
}

export type FormatSpec = ContainerFormatSpec | TextFormatSpec;

/**
 * Every format, in the order magic numbers are tried (a PDF's header is looked for before a
 * zip's, as mail gateways may put junk before it) and the order messages list extensions in.
 */
export const FORMATS = {
  pdf: {
    kind: 'container',
    name: 'PDF',
    article: 'a',
    extensions: ['pdf'],
    contentTypes: ['application/pdf'],
    // PDF readers accept junk before the header (mail gateways add some); so does pdf.js.
    magic: (bytes) => indexOfAscii(bytes, '%PDF-', 1024) >= 0,
    extract: pdfText,
    noText:
      'The PDF has no text layer: it is probably a scanned image, so there is no text to review. ' +
      'Run it through OCR (text recognition) or export the original document as PDF, then upload that.',
  },
  docx: {
    kind: 'container',
    name: 'Word (.docx) document',
    article: 'a',
    extensions: ['docx'],
    contentTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    // ZIP entry names are stored uncompressed, so a DOCX is told apart from other ZIPs (XLSX,
    // PPTX, plain archives) by its main part's name in the bytes.
    magic: (bytes) => isZip(bytes) && indexOfAscii(bytes, 'word/document.xml') >= 0,
    extract: docxText,
    noText:
      'The Word document contains no text (it may hold only images). Upload a version with the contract text.',
  },
  txt: {
    kind: 'text',
    name: 'text file',
    article: 'a',
    extensions: ['txt', 'text'],
    contentTypes: ['text/plain'],
    metaCharset: false,
    toText: (text) => text,
    noText: 'The file contains no readable text. Upload the contract file again.',
  },
  md: {
    kind: 'text',
    name: 'Markdown file',
    article: 'a',
    extensions: ['md', 'markdown'],
    contentTypes: ['text/markdown', 'text/x-markdown'],
    metaCharset: false,
    toText: markdownToText,
    noText: 'The file contains no readable text. Upload the contract file again.',
  },
  html: {
    kind: 'text',
    name: 'HTML page',
    article: 'an',
    extensions: ['html', 'htm'],
    contentTypes: ['text/html', 'application/xhtml+xml'],
    metaCharset: true,
    toText: htmlToText,
    noText: 'The web page contains no visible text. Upload the contract text itself.',
  },
} as const satisfies Record<string, FormatSpec>;

/** The formats the pipeline can read text from (see {@link FORMATS}). */
export type DocumentFormat = keyof typeof FORMATS;

/** Every extension a format is recognised by, without the dot. */
export type FormatExtension = (typeof FORMATS)[DocumentFormat]['extensions'][number];

/** The format ids, in registry order. */
export const FORMAT_IDS: readonly DocumentFormat[] = Object.keys(FORMATS) as DocumentFormat[];

/** The entry of a format, as the general shape every reader of the registry handles. */
export function formatSpec(format: DocumentFormat): FormatSpec {
  return FORMATS[format];
}

/** The extensions an uploader may use (each format's first), as named in every unsupported-type message. */
export const SUPPORTED_EXTENSIONS = FORMAT_IDS.map((f) => `.${FORMATS[f].extensions[0]}`).join(', ');

function indexBy(field: (spec: FormatSpec) => readonly string[]): ReadonlyMap<string, DocumentFormat> {
  const index = new Map<string, DocumentFormat>();
  for (const format of FORMAT_IDS) for (const key of field(formatSpec(format))) index.set(key, format);
  return index;
}

const BY_EXTENSION = indexBy((spec) => spec.extensions);
const BY_CONTENT_TYPE = indexBy((spec) => spec.contentTypes);

/** The format a lower-case extension (no dot) names, or undefined. */
export const formatOfExtension = (extension: string): DocumentFormat | undefined =>
  BY_EXTENSION.get(extension);

/** The format a lower-case content type without parameters names, or undefined. */
export const formatOfContentType = (contentType: string): DocumentFormat | undefined =>
  BY_CONTENT_TYPE.get(contentType);

/** The container format whose magic number the bytes carry, trying each in registry order. */
export function formatOfMagic(bytes: Uint8Array): DocumentFormat | undefined {
  for (const format of FORMAT_IDS) {
    const spec = formatSpec(format);
    if (spec.kind === 'container' && spec.magic(bytes)) return format;
  }
  return undefined;
}
