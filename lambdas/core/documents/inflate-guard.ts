import { inflateRawSync, constants as zlib } from 'node:zlib';
import { DocumentRejectedError } from './errors.js';
import { formatBytes } from './format-bytes.js';

/**
 * Inflates every deflated entry of a zip (a DOCX) against one byte budget, stopping at the
 * budget rather than after it, and refuses the file when the entries hold more. A file that is
 * not a readable zip is left to the DOCX reader, which says it is damaged.
 *
 * @throws {DocumentRejectedError} `too-large-inflated`
 */
export function checkZipInflation(bytes: Uint8Array, budget: number): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = endOfCentralDirectory(buf);
  if (end === undefined) return;
  const count = buf.readUInt16LE(end + 10);
  let at = buf.readUInt32LE(end + 16);
  let left = budget;
  for (let i = 0; i < count; i++) {
    if (at + 46 > buf.length || buf.readUInt32LE(at) !== 0x02014b50) return;
    const method = buf.readUInt16LE(at + 10);
    const compressed = buf.readUInt32LE(at + 20);
    const declared = buf.readUInt32LE(at + 24);
    const local = buf.readUInt32LE(at + 42);
    at += 46 + buf.readUInt16LE(at + 28) + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    if (declared > left) throw tooLarge('docx', budget);
    if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) return;
    const from = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const data = buf.subarray(from, Math.min(buf.length, from + compressed));
    if (method === 0) left -= data.length;
    else if (method === 8) left -= inflated(data, left, 'docx', budget);
  }
}

/**
 * Inflates every FlateDecode stream of a PDF against one byte budget, as {@link checkZipInflation}
 * does for a zip. Streams are found by their `stream`/`endstream` keywords and the dictionary in
 * front of them; a stream that does not inflate is left to the PDF reader.
 *
 * @throws {DocumentRejectedError} `too-large-inflated`
 */
export function checkPdfInflation(bytes: Uint8Array, budget: number): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('latin1');
  let left = budget;
  let from = 0;
  for (;;) {
    const keyword = text.indexOf('stream', from);
    if (keyword < 0) return;
    from = keyword + 6;
    // `endstream` contains `stream`; so does the end of a dictionary key like /XStream.
    if (text.startsWith('end', keyword - 3) || !/[\s>]/.test(text[keyword - 1] ?? '')) continue;
    let start = from;
    if (text[start] === '\r') start++;
    if (text[start] === '\n') start++;
    if (start === from) continue;
    const stop = text.indexOf('endstream', start);
    if (stop < 0) return;
    from = stop + 9;
    // The dictionary sits between `N 0 obj` and the keyword; a real one is far shorter than 4 KB.
    const before = text.slice(Math.max(0, keyword - 4096), keyword);
    const dictionary = before.slice(Math.max(0, before.lastIndexOf('obj')));
    // Other streams are no larger than the file; other filters (LZW) are left to the deadline.
    if (!dictionary.includes('/FlateDecode')) continue;
    // Inflated raw, past the two-byte zlib header: PDF readers do not check the trailing
    // checksum, so neither does this.
    const data = buf.subarray(start, stop);
    const zlibHeader = ((data[0] ?? 0) & 0x0f) === 8 && ((data[0] ?? 0) * 256 + (data[1] ?? 0)) % 31 === 0;
    left -= inflated(zlibHeader ? data.subarray(2) : data, left, 'pdf', budget);
  }
}

/** The inflated size of `data`, inflating at most `left` bytes; a stream that fails counts 0. */
function inflated(data: Buffer, left: number, format: 'pdf' | 'docx', budget: number): number {
  try {
    // A sync flush reads a truncated stream as far as it goes instead of failing it.
    return inflateRawSync(data, { maxOutputLength: Math.max(1, left), finishFlush: zlib.Z_SYNC_FLUSH })
      .length;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(format, budget);
    return 0;
  }
}

function endOfCentralDirectory(buf: Buffer): number | undefined {
  // The record is 22 bytes, followed by a comment of at most 65,535 bytes.
  for (let at = buf.length - 22; at >= Math.max(0, buf.length - 22 - 65_535); at--) {
    if (buf.readUInt32LE(at) === 0x06054b50) return at;
  }
  return undefined;
}

function tooLarge(format: 'pdf' | 'docx', budget: number): DocumentRejectedError {
  const what = format === 'pdf' ? 'The PDF' : 'The Word (.docx) document';
  return new DocumentRejectedError(
    'too-large-inflated',
    `${what} unpacks to more than ${formatBytes(budget)}, far more than any contract needs, so it was not read. ` +
      'Save or export the contract again without embedded files or images, and upload that.',
    { detail: { format, maxInflatedBytes: budget } },
  );
}
