/**
 * The content of the playbook a job records, read back by name and version and checked against
 * the sha256 the job recorded, so a job is always judged against exactly what it was quoted
 * with. A version never changes once put, so a process keeps what it read by its hash.
 */
import { PlaybookCorruptError } from './errors.js';
import type { PlaybookRef } from './ref.js';
import type { Playbook } from './schema.js';
import type { PlaybookStore } from './store.js';

/** Versions a process keeps at once. */
const KEPT = 32;
const kept = new Map<string, Promise<Playbook>>();

/**
 * The playbook a job was recorded with.
 * @throws PlaybookNotFoundError when the version is gone (purged by hand)
 * @throws PlaybookCorruptError when the stored version's hash is not the one the job recorded
 */
export function jobPlaybookContent(store: Pick<PlaybookStore, 'get'>, ref: PlaybookRef): Promise<Playbook> {
  let content = kept.get(ref.sha256);
  if (!content) {
    content = (async () => {
      const stored = await store.get({ name: ref.name, version: ref.version });
      if (stored.sha256 !== ref.sha256)
        throw new PlaybookCorruptError(ref.name, ref.version, ref.sha256, stored.sha256);
      return stored.playbook;
    })();
    if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(ref.sha256, content);
    // A failed read is tried again by the next caller.
    content.catch(() => kept.delete(ref.sha256));
  }
  return content;
}
