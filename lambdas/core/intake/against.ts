/**
 * A document compared with the version it answers. The other side's clean copy carries none of
 * their edits as tracked changes; compared clause by clause with our last version (an earlier
 * job's stored document, `storedClauses(await readStoredDocument(…))`, or another file's,
 * `(await parseDocumentBounded(bytes, …)).clauses`), each difference is recorded on the stored
 * document as a change of theirs, beside any tracked changes the upload has of its own.
 */
import type { Clause } from '../clause.js';
import { type CompareOptions, compareVersions, contractClauses } from '../negotiation/index.js';
import { type AgainstVersion, type StoredDocument, storedClauses } from './stored-document.js';

/** The version a document answers: its clauses, and which version they are. */
export interface EarlierVersion {
  readonly clauses: readonly Clause[];
  readonly version: AgainstVersion;
}

/**
 * The stored document with the differences from the version it answers recorded among its
 * revisions (`source: 'compared'`, after the tracked ones), and the comparison itself (what it
 * was against), replacing those of an earlier comparison. A comparison that finds no difference
 * is recorded too: the review can say so.
 *
 * @throws {RangeError} when `options.author` is empty
 * @example withComparison(doc, { clauses: storedClauses(earlier), version: { jobId: earlier.jobId } }, { author: 'the other side (untracked)' })
 */
export function withComparison(
  doc: StoredDocument,
  earlier: EarlierVersion,
  options: CompareOptions,
): StoredDocument {
  const { changes, omitted } = compareVersions(earlier.clauses, contractClauses(storedClauses(doc)), options);
  const revisions = doc.revisions ?? { changes: [], comments: [] };
  return {
    ...doc,
    revisions: {
      ...revisions,
      changes: [...revisions.changes.filter((c) => c.source !== 'compared'), ...changes],
      comparison: { against: earlier.version, omitted },
    },
  };
}
