/** True when `bytes` begin with the signature `sig`. */
export const startsWith = (bytes: Uint8Array, ...sig: number[]): boolean =>
  bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);

/** Index of an ASCII needle in the first `limit` bytes, or -1. */
export function indexOfAscii(bytes: Uint8Array, needle: string, limit = bytes.length): number {
  const end = Math.min(bytes.length, limit) - needle.length;
  const first = needle.charCodeAt(0);
  outer: for (let i = 0; i <= end; i++) {
    if (bytes[i] !== first) continue;
    for (let j = 1; j < needle.length; j++) if (bytes[i + j] !== needle.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

/** True when the bytes start like a ZIP archive (a local file header, or an empty archive's end record). */
export const isZip = (bytes: Uint8Array): boolean =>
  startsWith(bytes, 0x50, 0x4b, 0x03, 0x04) || startsWith(bytes, 0x50, 0x4b, 0x05, 0x06);
