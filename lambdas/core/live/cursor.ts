/**
 * The cursor of a job's findings: which chunks a reader has been given. Chunks consolidate in
 * any order, so a position ("after chunk 7") would skip chunk 3 when it finishes after chunk 7;
 * the cursor is instead the set of chunks delivered, one bit per chunk (`v1.` and the bits in
 * base64url: 2,500 chunks fit in 420 characters of a query string).
 */
import { CursorError } from './errors.js';

const PREFIX = 'v1.';
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** The chunks a cursor says were delivered, for a job of `chunkCount` chunks. `''` is the start. */
export function decodeFindingsCursor(cursor: string, chunkCount: number, jobId?: string): Set<number> {
  if (cursor === '') return new Set();
  const bad = (why: string) =>
    new CursorError(
      `the findings cursor '${cursor.slice(0, 40)}' ${why}; pass after= (empty) to start over, or the cursor the last read returned`,
      cursor,
      jobId,
    );
  if (!cursor.startsWith(PREFIX)) throw bad(`does not start with '${PREFIX}'`);
  const body = cursor.slice(PREFIX.length);
  if (!BASE64URL.test(body)) throw bad('is not base64url');
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length > Math.ceil(chunkCount / 8)) throw bad(`names more chunks than the job's ${chunkCount}`);
  const delivered = new Set<number>();
  for (const [i, byte] of bytes.entries()) {
    for (let bit = 0; bit < 8; bit++) {
      if ((byte & (1 << bit)) === 0) continue;
      const chunk = i * 8 + bit;
      if (chunk >= chunkCount) throw bad(`names chunk ${chunk}, and the job has ${chunkCount}`);
      delivered.add(chunk);
    }
  }
  return delivered;
}

/** The cursor of a set of delivered chunks. */
export function encodeFindingsCursor(delivered: Iterable<number>): string {
  const chunks = [...delivered];
  const bytes = Buffer.alloc(chunks.length === 0 ? 0 : Math.floor(Math.max(...chunks) / 8) + 1);
  for (const chunk of chunks) bytes[chunk >> 3] = (bytes[chunk >> 3] ?? 0) | (1 << (chunk & 7));
  return `${PREFIX}${bytes.toString('base64url')}`;
}
