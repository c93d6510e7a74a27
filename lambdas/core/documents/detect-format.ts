import { notTextBecause } from './decode-text.js';
import { DocumentRejectedError } from './errors.js';
import {
  type DocumentFormat,
  formatOfContentType,
  formatOfExtension,
  formatOfMagic,
  formatSpec,
  SUPPORTED_EXTENSIONS,
} from './formats.js';
import { indexOfAscii, isZip, startsWith } from './magic-bytes.js';

/** What is known about an upload besides its bytes. */
export interface FormatHints {
  /** Object key or file name; only its extension is used. */
  readonly key: string;
  /** Content type the uploader declared, if any; used only when the extension says nothing. */
  readonly contentType?: string;
}

/**
 * Decides the format of an upload from its bytes first (the container formats of the registry,
 * PDF and DOCX, carry magic numbers that cannot be faked by accident), then its extension, then
 * its declared content type.
 *
 * @throws {DocumentRejectedError} `unsupported-type` for anything that is not one of
 *   {@link DocumentFormat} (images, spreadsheets, archives, programs, unknown extensions),
 *   `binary` for a text-named file whose bytes are not text, `encrypted` for a
 *   password-protected Word file, `corrupt` for a `.pdf`/`.docx` whose bytes are something else.
 */
export function detectFormat(bytes: Uint8Array, hints: FormatHints): DocumentFormat {
  const ext = extensionOf(hints.key);
  const named = ext === undefined ? undefined : formatOfExtension(ext);
  const declared = contentTypeFormat(hints.contentType);

  const proven = formatOfMagic(bytes);
  if (proven !== undefined) return proven;
  const sniffed = sniffForeign(bytes);
  if (sniffed === 'encrypted-office') {
    throw new DocumentRejectedError(
      'encrypted',
      'The Word document is password-protected (encrypted), so its text cannot be read. ' +
        'Remove the password in Word (File > Info > Protect Document) and upload it again.',
      { detail: { extension: ext ?? '' } },
    );
  }
  if (sniffed !== undefined) {
    throw new DocumentRejectedError(
      'unsupported-type',
      `The file is ${sniffed.description}, which cannot be reviewed. ${sniffed.advice ?? `Upload the contract as one of: ${SUPPORTED_EXTENSIONS}.`}`,
      { detail: { extension: ext ?? '', detected: sniffed.kind } },
    );
  }

  // A real but unsupported extension (.xlsx, .jpg) is refused even if a content type says text: the
  // name is what the uploader chose. Only a missing or non-extension suffix ("v1.2") defers to it.
  const extensionLike = ext !== undefined && /^[a-z][a-z0-9]{0,7}$/.test(ext);
  const format = named ?? (extensionLike ? undefined : declared);
  if (format === undefined) {
    const what = extensionLike
      ? `Files ending in .${ext} are not supported`
      : 'The file name has no extension';
    throw new DocumentRejectedError(
      'unsupported-type',
      `${what}, so it cannot be reviewed. Upload the contract as one of: ${SUPPORTED_EXTENSIONS}.`,
      { detail: { extension: ext ?? '', contentType: hints.contentType ?? '' } },
    );
  }

  const spec = formatSpec(format);
  if (spec.kind === 'container') {
    // The name promises a container format but the bytes do not start like one.
    throw new DocumentRejectedError(
      'corrupt',
      `The file is named as ${spec.article} ${spec.name} but its contents are not a valid ${spec.name}; it may be damaged or renamed. ` +
        'Export the contract again and upload the new file.',
      { detail: { extension: ext ?? '', format } },
    );
  }
  const notText = notTextBecause(bytes, spec);
  if (notText !== undefined) {
    throw new DocumentRejectedError(
      'binary',
      `The file is named as ${spec.article} ${spec.name}, but its contents are not readable text (${notText.why}). ` +
        `It may be a different kind of file that was renamed. Upload the contract as one of: ${SUPPORTED_EXTENSIONS}.`,
      notText.cause === undefined ? { detail: { format } } : { cause: notText.cause, detail: { format } },
    );
  }
  return format;
}

/** Lower-case extension of the last path segment, without the dot; undefined when there is none. */
export function extensionOf(key: string): string | undefined {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  // A leading dot is a hidden file's name, not an extension.
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return name.slice(dot + 1).toLowerCase();
}

function contentTypeFormat(contentType: string | undefined): DocumentFormat | undefined {
  if (contentType === undefined) return undefined;
  const base = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return formatOfContentType(base);
}

/**
 * The kinds of file refused by their magic number. A kind that becomes a format of the registry
 * stops type-checking here, so its refusal is removed with the format's arrival.
 */
type ForeignKind = Exclude<
  | 'xlsx'
  | 'pptx'
  | 'odf'
  | 'zip'
  | 'ole'
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'tiff'
  | 'elf'
  | 'exe'
  | 'gzip'
  | 'rar'
  | '7z'
  | 'rtf',
  DocumentFormat
>;

interface ForeignFormat {
  readonly kind: ForeignKind;
  readonly description: string;
  readonly advice?: string;
}

type Sniffed = 'encrypted-office' | ForeignFormat | undefined;

const utf16le = (s: string): string =>
  Array.from(s)
    .map((c) => `${c}\0`)
    .join('');

/**
 * Recognises, by their magic numbers, the files that are none of the registry's formats (asked
 * only once no container format's magic matched). ZIP entry names are stored uncompressed in the
 * local and central headers, so a ZIP's kind is told by its main part's name in the bytes.
 */
function sniffForeign(bytes: Uint8Array): Sniffed {
  if (isZip(bytes)) {
    if (indexOfAscii(bytes, 'xl/workbook') >= 0) {
      return { kind: 'xlsx', description: 'an Excel spreadsheet' };
    }
    if (indexOfAscii(bytes, 'ppt/presentation') >= 0) {
      return { kind: 'pptx', description: 'a PowerPoint presentation' };
    }
    if (indexOfAscii(bytes, 'content.xml') >= 0 && indexOfAscii(bytes, 'opendocument') >= 0) {
      return {
        kind: 'odf',
        description: 'an OpenDocument file',
        advice: 'Save it as .docx or PDF and upload that instead.',
      };
    }
    return {
      kind: 'zip',
      description: 'a ZIP archive',
      advice: `Unzip it and upload the contract itself (${SUPPORTED_EXTENSIONS}).`,
    };
  }
  if (startsWith(bytes, 0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) {
    // Password-protected .docx/.xlsx files are not ZIPs: Office wraps them in an OLE compound
    // file whose main stream is named "EncryptedPackage" (UTF-16 in the directory).
    if (indexOfAscii(bytes, utf16le('EncryptedPackage')) >= 0) return 'encrypted-office';
    return {
      kind: 'ole',
      description: 'an older Microsoft Office file (Word 97-2003 .doc or similar)',
      advice: 'Open it in Word, save it as .docx or PDF, and upload that instead.',
    };
  }
  if (startsWith(bytes, 0x89, 0x50, 0x4e, 0x47)) return { kind: 'png', description: 'a PNG image' };
  if (startsWith(bytes, 0xff, 0xd8, 0xff)) return { kind: 'jpeg', description: 'a JPEG image' };
  if (startsWith(bytes, 0x47, 0x49, 0x46, 0x38)) return { kind: 'gif', description: 'a GIF image' };
  if (startsWith(bytes, 0x49, 0x49, 0x2a, 0x00) || startsWith(bytes, 0x4d, 0x4d, 0x00, 0x2a)) {
    return {
      kind: 'tiff',
      description: 'a TIFF image (often a scan)',
      advice: 'Run it through OCR and upload the result as a PDF with a text layer.',
    };
  }
  if (startsWith(bytes, 0x7f, 0x45, 0x4c, 0x46))
    return { kind: 'elf', description: 'a program (executable)' };
  if (startsWith(bytes, 0x4d, 0x5a)) {
    if (bytes.length > 64 && isMostlyBinary(bytes)) return { kind: 'exe', description: 'a Windows program' };
  }
  if (startsWith(bytes, 0x1f, 0x8b)) return { kind: 'gzip', description: 'a compressed (gzip) archive' };
  if (startsWith(bytes, 0x52, 0x61, 0x72, 0x21)) return { kind: 'rar', description: 'a RAR archive' };
  if (startsWith(bytes, 0x37, 0x7a, 0xbc, 0xaf)) return { kind: '7z', description: 'a 7-Zip archive' };
  if (startsWith(bytes, 0x7b, 0x5c, 0x72, 0x74, 0x66)) {
    return {
      kind: 'rtf',
      description: 'a Rich Text (.rtf) document',
      advice: 'Save it as .docx or PDF and upload that instead.',
    };
  }
  return undefined;
}

/** Cheap check used only to confirm an `MZ` header really starts a program and not a text file. */
function isMostlyBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 512);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i] as number;
    if (b === 0 || (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d)) control++;
  }
  return control > n * 0.1;
}
