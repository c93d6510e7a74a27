import { decodeWindows1252 } from './windows-1252.js';

/** How a text format's encoding is found (a text format's entry in the format registry). */
export interface TextEncodingRule {
  /** True when the text may name its own encoding in a `<meta charset>` (an HTML page). */
  readonly metaCharset: boolean;
}

/** Why bytes said to be text are not: what the uploader is told, and the decoder's error if any. */
export interface NotText {
  readonly why: string;
  readonly cause?: unknown;
}

/** How much of a text file is inspected for binary content: enough to be sure, cheap on big files. */
const SNIFF_BYTES = 64 * 1024;

/**
 * The encoding to decode a text upload with: a byte-order mark wins (Notepad saves UTF-16 with
 * one), then an HTML page's own `charset` declaration (old EDGAR filings are windows-1252), else
 * UTF-8, the only encoding a bare text file is accepted in.
 */
export function textEncodingOf(bytes: Uint8Array, rule: TextEncodingRule): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (rule.metaCharset) {
    const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
    const declared = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
    const encoding = declared === undefined ? undefined : canonicalEncoding(declared);
    // A page that says utf-16 without a byte-order mark is not UTF-16 (browsers read it as UTF-8).
    if (encoding !== undefined && !encoding.startsWith('utf-16')) return encoding;
  }
  return 'utf-8';
}

/** The WHATWG name for a charset label (`latin1` -> `windows-1252`), or undefined if unknown. */
function canonicalEncoding(label: string): string | undefined {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

function decode(bytes: Uint8Array, encoding: string, options: { fatal: boolean; stream: boolean }): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(encoding, { fatal: options.fatal }).decode(bytes, { stream: options.stream });
}

/**
 * Why the first 64 KB of a text-named upload are not text, or undefined when they are: NUL
 * bytes, more than 10% control characters, or invalid UTF-8 (in the encoding chosen by
 * {@link textEncodingOf}). UTF-16 is checked after decoding, since every other byte of ASCII in
 * UTF-16 is a NUL.
 */
export function notTextBecause(bytes: Uint8Array, rule: TextEncodingRule): NotText | undefined {
  const head = bytes.subarray(0, SNIFF_BYTES);
  let text: string;
  try {
    // stream: true tolerates a multi-byte character cut in half by the 64 KB window.
    text = decode(head, textEncodingOf(bytes, rule), { fatal: true, stream: true });
  } catch (cause) {
    return { why: 'it is not valid UTF-8 text', cause };
  }
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return { why: 'it contains NUL bytes' };
    // Tab, LF, CR and form feed are ordinary in text (form feeds separate pages in converted PDFs).
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || c === 0x7f) control++;
  }
  if (control > text.length * 0.1) return { why: 'more than 10% of it is control characters' };
  return undefined;
}

/**
 * Decodes a whole text upload, dropping the byte-order mark. Not fatal: bytes past the sniffed
 * window that are invalid become U+FFFD rather than failing a document that is 99% fine.
 */
export function decodeText(bytes: Uint8Array, rule: TextEncodingRule): string {
  // TextDecoder strips a BOM matching its encoding by default (ignoreBOM: false).
  return decode(bytes, textEncodingOf(bytes, rule), { fatal: false, stream: false });
}
