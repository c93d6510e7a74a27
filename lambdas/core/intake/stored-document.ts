import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Chunk, Clause, Lane } from '../clause.js';
import type { DocumentContext } from '../documents/document-context.js';
import { findDocumentContext } from '../documents/document-context.js';
import type { DocumentRevisions } from '../documents/index.js';
import type { ScreenedAnalyst } from '../screen/index.js';
import type { ChunkMessage } from '../worker/chunk-message.js';
import { messageGroupOf } from './message-group.js';

/** Where intake stores a job's parsed document, in the results bucket. */
export const documentKey = (jobId: string) => `work/${jobId}/document.json`;

/** What intake stores of a document: its text and chunks, and the context every call carries. */
export interface StoredDocument {
  readonly jobId: string;
  readonly format: string;
  readonly sha256: string;
  readonly text: string;
  readonly chunks: readonly Chunk[];
  /** The contract's title, parties and definitions (absent in documents stored before it was kept). */
  readonly context?: DocumentContext;
  /**
   * The relevance screen: per clause id, the analysts not asked about it, each with the highest
   * probability the screen gave its categories. Absent when every analyst is asked.
   */
  readonly screened?: Readonly<Record<string, readonly ScreenedAnalyst[]>>;
  /**
   * The changes the other side made and the comments the document carries: a DOCX's own
   * tracked changes and comments (`source: 'tracked'`), and the differences from the version it
   * answers when it was compared with one (`source: 'compared'`, see `against.ts`). Absent when
   * there are none.
   */
  readonly revisions?: StoredRevisions;
}

/** A document's revisions as stored, with the comparison its compared changes come from. */
export interface StoredRevisions extends DocumentRevisions {
  /** The version compared with, and how many differences were past the bound and not listed. */
  readonly comparison?: { readonly against: AgainstVersion; readonly omitted: number };
}

/** The version a document was compared with: an earlier job's document, or another file. */
export interface AgainstVersion {
  /** The earlier job whose stored document it was. */
  readonly jobId?: string;
  /** The SHA-256 of the file it was, lower-case hex. */
  readonly sha256?: string;
}

/** A stored document's clauses, in order (its chunks hold them). */
export function storedClauses(doc: Pick<StoredDocument, 'chunks'>): Clause[] {
  return doc.chunks.flatMap((c) => c.clauses);
}

/** Reads a job's stored document. */
export async function readStoredDocument(
  s3: S3Client,
  bucket: string,
  jobId: string,
): Promise<StoredDocument> {
  const r = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: documentKey(jobId) }));
  return JSON.parse((await r.Body?.transformToString()) ?? '{}') as StoredDocument;
}

/**
 * The chunk messages of a document, exactly as intake first sent them: the same clauses, the
 * same document context and the same analysts screened out of each clause. A message sent again must carry the context, because a call's
 * ledger key hashes its whole prompt: without it, answered calls would not be recognised and
 * would be made, and billed, again.
 *
 * @param only the chunks wanted (default: every chunk)
 * @throws Error when the document has no chunk of that index
 */
export function chunkMessagesOf(doc: StoredDocument, lane: Lane, only?: readonly number[]): ChunkMessage[] {
  const context = doc.context ?? findDocumentContext(doc.text, storedClauses(doc));
  const wanted = only ?? doc.chunks.map((c) => c.index);
  return wanted.map((index) => {
    const chunk = doc.chunks.find((c) => c.index === index);
    if (!chunk) throw new Error(`stored document of job ${doc.jobId} has no chunk ${index}`);
    const screened = screenedIn(doc, chunk);
    return {
      v: 1,
      jobId: doc.jobId,
      chunk: index,
      lane,
      clauses: chunk.clauses.map((c) => ({ ...c })),
      context,
      ...(screened ? { screened } : {}),
    };
  });
}

/** The analysts screened out of a chunk's clauses, by clause id; undefined when none are. */
function screenedIn(doc: StoredDocument, chunk: Chunk): Record<string, string[]> | undefined {
  const entries = chunk.clauses.flatMap((c) => {
    const left = doc.screened?.[c.id];
    return left && left.length > 0 ? [[c.id, left.map((s) => s.analystId)] as const] : [];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/**
 * Sends chunk messages ten to a request (SendMessageBatch's limit), and sends again the entries
 * SQS reports as failed. The first request goes alone, so that workers can start on the first ten
 * chunks while the rest are sent (together); a long contract's 100 messages, each carrying the
 * document context, take the emulator and SQS a while to take in. Each carries the job's owner
 * as its MessageGroupId ({@link messageGroupOf}), which makes the lane's standard queue a fair
 * queue.
 *
 * @param owner the job's owner (`Job.owner`); undefined for a job that records none
 */
export async function sendChunkMessages(
  sqs: SQSClient,
  queueUrl: string,
  messages: readonly ChunkMessage[],
  owner: string | undefined,
): Promise<void> {
  const group = messageGroupOf(owner);
  const batches: ChunkMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) batches.push(messages.slice(i, i + 10));
  const send = async (batch: readonly ChunkMessage[]) => {
    let entries = batch.map((m) => ({
      Id: String(m.chunk),
      MessageBody: JSON.stringify(m),
      MessageGroupId: group,
    }));
    for (let attempt = 0; entries.length > 0; attempt++) {
      const r = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
      const failed = new Set((r.Failed ?? []).map((f) => f.Id));
      entries = entries.filter((e) => failed.has(e.Id));
      if (entries.length > 0 && attempt >= 3) {
        throw new Error(`SendMessageBatch kept failing for chunks ${entries.map((e) => e.Id).join(', ')}`);
      }
    }
  };
  const [first, ...rest] = batches;
  if (first) await send(first);
  await Promise.all(rest.map(send));
}
