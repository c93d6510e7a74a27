/**
 * An upload read as a round of a negotiation: compared with the version it answers when it names
 * one (an earlier job of the same owner, or a file uploaded beside it), and, when the other side
 * changed anything (tracked in the upload or found by the comparison), each clause they changed
 * added as it read before (`b0007` beside `c0007`), in chunks after the contract's, so the
 * analysts judge both sides of every change and the quote, the screen and the coverage count
 * those calls as any other.
 */
import { GetObjectCommand, NoSuchKey } from '@aws-sdk/client-s3';
import type { Clause } from '../clause.js';
import {
  isDocumentRejectedError,
  isParseOvertimeError,
  type ParsedDocument,
  parseDocumentBounded,
} from '../documents/index.js';
import { beforeChunks, beforeClauses, contractClauses } from '../negotiation/index.js';
import { type EarlierVersion, withComparison } from './against.js';
import type { IntakeResult, IntakeRun } from './intake-run.js';
import type { AgainstRequest } from './job-options.js';
import { readCapped } from './read-capped.js';
import { readStoredDocument, type StoredRevisions, storedClauses } from './stored-document.js';

/** The author the differences a comparison finds are recorded under. */
export const COMPARED_AUTHOR = 'the other side (untracked)';

/** The folder, beside an upload, of the versions it may be compared with. */
const VERSION_FOLDER = 'against/';

/** Whether an object is a version uploaded beside another for comparison (`…/against/NAME`), not a review. */
export const isVersionUpload = (key: string): boolean => /(^|\/)against\/[^/]+$/.test(key);

/** The key of the version `file` uploaded beside the upload at `key`. */
export const versionKeyOf = (key: string, file: string): string =>
  `${key.slice(0, key.lastIndexOf('/') + 1)}${VERSION_FOLDER}${file}`;

/** A read document as a round: its revisions with any comparison, and its clauses and chunks with those before. */
export type RoundDocument = Omit<ParsedDocument, 'revisions'> & {
  readonly revisions?: StoredRevisions;
  /** The contract's own clauses (the rest are clauses as they read before). */
  readonly contractClauses: number;
};

/**
 * The document as a round of a negotiation, or the rejection of a job whose version cannot be
 * read (`unknown-version`).
 *
 * @param owner the owner the job records
 */
export async function negotiationRound(
  run: IntakeRun,
  parsed: ParsedDocument,
  against: AgainstRequest | undefined,
  owner: string | undefined,
): Promise<RoundDocument | IntakeResult> {
  let revisions: StoredRevisions | undefined = parsed.revisions;
  if (against) {
    const earlier = await earlierVersion(run, against, owner);
    if (typeof earlier === 'string') {
      await run.jobs.markRejected(run.jobId, earlier, {
        sha256: parsed.sha256,
        rejection: 'unknown-version',
      });
      return { outcome: 'rejected', jobId: run.jobId, reason: earlier };
    }
    const date = new Date(run.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    revisions = withComparison(
      {
        jobId: run.jobId,
        format: parsed.format,
        sha256: parsed.sha256,
        text: parsed.text,
        chunks: parsed.chunks,
        ...(revisions ? { revisions } : {}),
      },
      earlier,
      { author: COMPARED_AUTHOR, date },
    ).revisions;
  }
  const contract = parsed.clauses.length;
  if (!revisions) return { ...parsed, contractClauses: contract };
  const before = beforeClauses(parsed.text, parsed.clauses, revisions);
  const chunks = beforeChunks(before, parsed.chunks.length, { maxClauses: run.deps.chunkClauses });
  return {
    ...parsed,
    revisions,
    clauses: [...parsed.clauses, ...before],
    chunks: [...parsed.chunks, ...chunks],
    contractClauses: contract,
  };
}

/** The version the upload answers, or why it cannot be read. */
async function earlierVersion(
  run: IntakeRun,
  against: AgainstRequest,
  owner: string | undefined,
): Promise<EarlierVersion | string> {
  if ('jobId' in against) {
    const earlier = await run.jobs.find(against.jobId);
    // Another owner's job is answered as a missing one: its existence is not ours to tell.
    if (!earlier || (earlier.owner ?? undefined) !== owner)
      return `The version this one answers, job ${against.jobId}, is not a job of this upload's owner.`;
    if (earlier.purgedAt)
      return `The version this one answers, job ${against.jobId}, was purged at ${earlier.purgedAt}.`;
    try {
      const doc = await readStoredDocument(run.deps.s3, run.deps.resultsBucket, against.jobId);
      return { clauses: contractClauses(storedClauses(doc)), version: { jobId: against.jobId } };
    } catch (error) {
      if (!(error instanceof NoSuchKey)) throw error;
      return `The version this one answers, job ${against.jobId}, has no document stored (it was ${earlier.status}).`;
    }
  }
  return versionFile(run, versionKeyOf(run.ref.key, against.file));
}

/** A version uploaded beside the upload, read and parsed under the same limits. */
async function versionFile(run: IntakeRun, key: string): Promise<EarlierVersion | string> {
  const { deps } = run;
  let bytes: Uint8Array;
  try {
    const r = await deps.s3.send(new GetObjectCommand({ Bucket: run.ref.bucket, Key: key }));
    const read = await readCapped(r.Body, deps.maxDocumentBytes);
    if ('over' in read) return `The version this one answers (${key}) is larger than the document limit.`;
    bytes = read.bytes;
  } catch (error) {
    if (!(error instanceof NoSuchKey)) throw error;
    return `The version this one answers was not uploaded: no object ${key} (upload it before the document that answers it).`;
  }
  try {
    const parsed = await parseDocumentBounded(bytes, {
      key,
      maxBytes: deps.maxDocumentBytes,
      chunk: { maxClauses: deps.chunkClauses },
      ...(deps.documentLimits ? { limits: deps.documentLimits } : {}),
    });
    return { clauses: parsed.clauses as Clause[], version: { sha256: parsed.sha256 } };
  } catch (error) {
    if (isDocumentRejectedError(error))
      return `The version this one answers (${key}) cannot be read: ${error.message}`;
    if (isParseOvertimeError(error))
      return `The version this one answers (${key}) could not be read in time: try again later.`;
    throw error;
  }
}
