/**
 * A job's findings as its chunks consolidate: the clauses of every consolidated chunk, read
 * from what consolidate already stored (the chunk's checkpoint holds its clause assessments)
 * and the stored document, never from the call ledger, and with no write.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reportClause } from '../finalize/build-report.js';
import { readStoredDocument } from '../intake/stored-document.js';
import { isBeforeClause, type NegotiationChange } from '../negotiation/index.js';
import type { ReportClause } from '../report-types.js';
import type { Job, JobStatus } from '../state/job.js';
import { CHECKPOINT_PREFIX, jobPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';
import { readAssessments } from './assessments.js';
import { decodeFindingsCursor, encodeFindingsCursor } from './cursor.js';
import { LiveReadError } from './errors.js';
import { liveNegotiation } from './live-negotiation.js';

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
  /**
   * The other side's changes these chunks complete (every clause each falls in consolidated, as
   * it reads now and as it read before), judged and answered as report.json's `negotiation` will
   * have them; each once. Absent when none.
   */
  readonly negotiation?: readonly NegotiationChange[];
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
  const prior = new Set(delivered);
  let negotiation: NegotiationChange[] = [];
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
      // A clause as it read before the other side's changes is judged, not the contract's: it comes as their change's verdict.
      for (const clause of chunk.clauses.filter((c) => !isBeforeClause(c.id))) {
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
    for (const chunk of page) delivered.add(chunk);
    if (doc.revisions) negotiation = await liveNegotiation(job, doc, prior, delivered, deps);
  }
  const all = delivered.size >= job.chunkCount && job.chunkCount > 0;
  return {
    jobId: job.jobId,
    status: job.status,
    chunks: { total: job.chunkCount, consolidated: consolidated.length, delivered: delivered.size },
    clauses,
    ...(negotiation.length > 0 ? { negotiation } : {}),
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
