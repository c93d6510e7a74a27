import mammoth from 'mammoth';
import { DocumentRejectedError } from './errors.js';
import { checkZipInflation } from './inflate-guard.js';
import type { DocumentLimits } from './limits.js';

/**
 * The text of a DOCX through mammoth, once its zip entries are known to unpack within the limit.
 *
 * @throws {DocumentRejectedError} `too-large-inflated` when the entries unpack to more than
 *   `limits.maxInflatedBytes`, `corrupt` when mammoth cannot open it.
 */
export async function docxText(bytes: Uint8Array, limits: DocumentLimits): Promise<string> {
  checkZipInflation(bytes, limits.maxInflatedBytes);
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
      { cause, detail: { format: 'docx', error: cause instanceof Error ? cause.message : String(cause) } },
    );
  }
}
