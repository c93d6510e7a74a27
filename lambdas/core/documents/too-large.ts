import { DocumentRejectedError } from './errors.js';
import { formatBytes } from './format-bytes.js';

/**
 * What the uploader of a file over the size limit is told, wherever the size is found: by the
 * upload form before it sends, by intake from the object's length, by the parser from its bytes.
 *
 * @example
 * tooLargeMessage(12 * 1024 * 1024, 10 * 1024 * 1024);
 * // 'The file is 12 MB, which is over the 10 MB limit. Upload a smaller file, …'
 */
export function tooLargeMessage(bytes: number, maxBytes: number): string {
  let size = formatBytes(bytes);
  let limit = formatBytes(maxBytes);
  if (size === limit) {
    // 10.01 MB and 10 MB round alike: "10 MB is over the 10 MB limit" would read as nonsense.
    size = `${bytes.toLocaleString('en-US')} bytes`;
    limit = `${maxBytes.toLocaleString('en-US')}-byte`;
  }
  return `The file is ${size}, which is over the ${limit} limit. Upload a smaller file, for example the contract without its attachments.`;
}

/** The `too-large` rejection of a file of `bytes` over `maxBytes`, with both in its detail. */
export function tooLargeError(bytes: number, maxBytes: number): DocumentRejectedError {
  return new DocumentRejectedError('too-large', tooLargeMessage(bytes, maxBytes), {
    detail: { bytes, maxBytes },
  });
}
