/**
 * A job's findings as its chunks consolidate: the clauses of every consolidated chunk, read
 * from what consolidate already stored (the chunk's checkpoint holds its clause assessments)
 * and the stored document, never from the call ledger, and with no write.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClauseAssessment } from '../analysts/index.js';
import { reportClause } from '../finalize/build-report.js';
import { readStoredDocument } from '../intake/stored-document.js';
import type { ReportClause } from '../report-types.js';
import type { Job, JobStatus } from '../state/job.js';
import { CHECKPOINT_PREFIX, checkpointSk, jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';
import { decodeFindingsCursor, encodeFindingsCursor } from './cursor.js';
import { LiveReadError } from './errors.js';

/** What a read of findings needs. */
export interface LiveFindingsDeps {
  readonly db: DynamoDBDocumentClient;
  readonly s3: S3Client;
  readonly tableName: string;
  readonly resultsBucket: string;
}

/** Clauses one read returns at most; it stops at a chunk's end, so a chunk is never split. */
export const FINDINGS_PAGE_CLAUSES = 200;

/** Statuses in which more chunks may still consolidate. */
const MOVING: readonly JobStatus[] = ['intake', 'queued', 'running', 'paused'];

/** What `GET /jobs/{id}/findings?after=` answers. */
export interface LiveFindingsView {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly chunks: {
    readonly total: number;
    /** Chunks whose clauses are readable (consolidated). */
    readonly consolidated: number;
    /** Of those, the ones this read and the earlier reads of the cursor returned. */
    readonly delivered: number;
  };
  /** The clauses of chunks consolidated since the cursor, in document order, as report.json has them. */
  readonly clauses: readonly ReportClause[];
  /** Pass as `after=` to get what consolidates next. */
  readonly cursor: string;
  /** More consolidated chunks are waiting: read again at once. */
  readonly more: boolean;
  /** Nothing more will come for this cursor: every chunk delivered, or the job stopped moving. */
  readonly ended: boolean;
}

/**
 * The clauses of chunks consolidated and not yet in `after`, in document order, up to
 * FINDINGS_PAGE_CLAUSES (whole chunks), with the next cursor. A chunk that consolidates after
 * a later one arrives in a later read; its clauses carry their `index`.
 *
 * @throws CursorError when `after` is not a cursor of this job
 */
export async function readLiveFindings(
  job: Job,
  after: string,
  deps: LiveFindingsDeps,
): Promise<LiveFindingsView> {
  const delivered = decodeFindingsCursor(after, job.chunkCount, job.jobId);
  const consolidated = await consolidatedChunks(job.jobId, deps);
  const fresh = consolidated.filter((c) => !delivered.has(c));
  const clauses: ReportClause[] = [];
  const page: number[] = [];
  let more = false;
  if (fresh.length > 0) {
    const doc = await readStoredDocument(deps.s3, deps.resultsBucket, job.jobId);
    const byIndex = new Map(doc.chunks.map((c) => [c.index, c]));
    let count = 0;
    for (const chunk of fresh) {
      const size = byIndex.get(chunk)?.clauses.length ?? 0;
      if (page.length > 0 && count + size > FINDINGS_PAGE_CLAUSES) {
        more = true;
        break;
      }
      page.push(chunk);
      count += size;
    }
    const assessments = await readAssessments(job.jobId, page, deps);
    for (const index of page) {
      const chunk = byIndex.get(index);
      if (!chunk)
        throw new LiveReadError(`the stored document of job ${job.jobId} has no chunk ${index}`, job.jobId);
      const found = assessments.get(index) ?? [];
      for (const clause of chunk.clauses) {
        clauses.push(
          reportClause(
            clause,
            index,
            found.find((a) => a.clauseId === clause.id),
            doc.screened,
          ),
        );
      }
    }
  }
  for (const chunk of page) delivered.add(chunk);
  const all = delivered.size >= job.chunkCount && job.chunkCount > 0;
  return {
    jobId: job.jobId,
    status: job.status,
    chunks: { total: job.chunkCount, consolidated: consolidated.length, delivered: delivered.size },
    clauses,
    cursor: encodeFindingsCursor(delivered),
    more,
    ended: !more && (all || !MOVING.includes(job.status)),
  };
}

/**
 * The chunks whose consolidate stage is done, ascending. One Query of the job's checkpoints
 * with only their key and status projected, so the assessments are not read for chunks the
 * reader already has (a projection trims what is sent, not the read capacity a Query uses).
 */
async function consolidatedChunks(jobId: string, deps: LiveFindingsDeps): Promise<number[]> {
  const items = await queryAll<{ chunk: number; stage: string; status: string }>(deps.db, {
    TableName: deps.tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': jobPk(jobId), ':prefix': CHECKPOINT_PREFIX },
    ProjectionExpression: '#chunk, #stage, #status',
    ExpressionAttributeNames: { '#chunk': 'chunk', '#stage': 'stage', '#status': 'status' },
    ConsistentRead: true,
  });
  return items
    .filter((i) => i.stage === 'consolidate' && i.status === 'done')
    .map((i) => i.chunk)
    .sort((a, b) => a - b);
}

/** BatchGetItem takes at most 100 keys. https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html */
const BATCH_GET_KEYS = 100;
/** Rounds of UnprocessedKeys before giving up; each waits a little longer. */
const UNPROCESSED_ROUNDS = 8;

/** The clause assessments consolidate stored on the checkpoints of `chunks`. */
async function readAssessments(
  jobId: string,
  chunks: readonly number[],
  deps: LiveFindingsDeps,
): Promise<Map<number, ClauseAssessment[]>> {
  const out = new Map<number, ClauseAssessment[]>();
  for (let i = 0; i < chunks.length; i += BATCH_GET_KEYS) {
    let keys: Record<string, unknown>[] = chunks
      .slice(i, i + BATCH_GET_KEYS)
      .map((c) => ({ pk: jobPk(jobId), sk: checkpointSk(c, 'consolidate') }));
    for (let round = 0; keys.length > 0; round++) {
      if (round >= UNPROCESSED_ROUNDS) {
        throw new LiveReadError(`DynamoDB left ${keys.length} checkpoint(s) of job ${jobId} unread`, jobId);
      }
      if (round > 0) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
      const r = await deps.db.send(
        new BatchGetCommand({
          RequestItems: {
            [deps.tableName]: {
              Keys: keys,
              ProjectionExpression: '#chunk, #result',
              ExpressionAttributeNames: { '#chunk': 'chunk', '#result': 'result' },
              ConsistentRead: true,
            },
          },
        }),
      );
      for (const item of r.Responses?.[deps.tableName] ?? []) {
        const { chunk, result } = item as { chunk: number; result?: string };
        out.set(chunk, result ? (JSON.parse(result) as ClauseAssessment[]) : []);
      }
      // BatchGetItem may return part of the keys; the rest come back in UnprocessedKeys.
      keys = (r.UnprocessedKeys?.[deps.tableName]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return out;
}
