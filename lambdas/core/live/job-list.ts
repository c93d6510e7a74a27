/**
 * A caller's jobs, newest first, paged: Queries of the jobs-by-owner index (`OWNER#<owner>` /
 * `<createdAt>#<jobId>`), one per name the caller's jobs may be recorded under (the API
 * records its caller's ARN; a direct S3 upload records the uploader's principal id).
 */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Job, type JobStatus, jobFromItem } from '../state/job.js';
import { OWNER_INDEX, ownerGsiPk, STATUS_INDEX, statusGsiPk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';
import { CursorError } from './errors.js';

/** Jobs one page lists by default and at most. */
export const JOBS_PAGE_DEFAULT = 25;
export const JOBS_PAGE_MAX = 100;

/** One job as `GET /jobs` lists it: enough for a list with status, progress and cost. */
export interface JobSummary {
  readonly jobId: string;
  readonly status: JobStatus;
  /** The uploaded object's key (its file name is the part after the last '/'). */
  readonly document: string;
  readonly lane: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly chunks: { readonly total: number; readonly done: number };
  readonly clauses: number;
  readonly cost: { readonly spentMicros: number; readonly ceilingMicros: number };
  readonly gate?: string;
  readonly reason?: string;
  /** The approver groups the job's review waits for (a playbook's escalations). */
  readonly approverGroups?: readonly string[];
  /** SHA-256 (hex) of the document's bytes, once intake has read them: the same file is the same hash. */
  readonly sha256?: string;
}

/** What `GET /jobs` answers. */
export interface JobListView {
  readonly jobs: readonly JobSummary[];
  /** Pass as `after=` for the next, older page; absent on the last page. */
  readonly cursor?: string;
}

const CURSOR_PREFIX = 'v1.';

function decodeListCursor(after: string): string | undefined {
  if (after === '') return undefined;
  const sk = after.startsWith(CURSOR_PREFIX)
    ? Buffer.from(after.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8')
    : '';
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+Z#j-[0-9a-f]{20}$/.test(sk)) {
    throw new CursorError(
      `the jobs cursor '${after.slice(0, 40)}' is not one GET /jobs returned; leave after= out to start from the newest job`,
      after,
    );
  }
  return sk;
}

const summaryOf = (job: Job): JobSummary => ({
  jobId: job.jobId,
  status: job.status,
  document: job.key,
  lane: job.lane,
  createdAt: job.createdAt,
  updatedAt: job.updatedAt,
  chunks: { total: job.chunkCount, done: job.chunksDone },
  clauses: job.clauseCount,
  cost: { spentMicros: job.costSpent, ceilingMicros: job.ceilingMicros },
  ...(job.gate && job.gate !== 'none' ? { gate: job.gate } : {}),
  ...(job.reason ? { reason: job.reason } : {}),
  ...(job.approverGroups?.length ? { approverGroups: job.approverGroups } : {}),
  ...(job.sha256 ? { sha256: job.sha256 } : {}),
});

/** Most jobs one listing of those awaiting an approver shows. */
export const APPROVALS_MAX = 100;

/**
 * The jobs whose open review waits for one of `groups` (an escalated finding held for it), or
 * for an administrator every job awaiting review: oldest first, the review due soonest first
 * among those started together. One Query of the jobs-by-status index's `awaiting_review` key,
 * filtered by the job's `approverGroups`, at most {@link APPROVALS_MAX} jobs.
 */
export async function listAwaitingApproval(
  db: DynamoDBDocumentClient,
  tableName: string,
  who: { readonly groups: readonly string[]; readonly administrator: boolean },
): Promise<JobListView> {
  const groups = [...new Set(who.groups)].slice(0, 50);
  if (!who.administrator && groups.length === 0) return { jobs: [] };
  const filter = who.administrator
    ? {}
    : {
        FilterExpression: groups.map((_, i) => `contains(approverGroups, :g${i})`).join(' OR '),
        ExpressionAttributeValues: {
          ':pk': statusGsiPk('awaiting_review'),
          ...Object.fromEntries(groups.map((g, i) => [`:g${i}`, g])),
        },
      };
  const jobs = await queryAll<Job>(
    db,
    {
      TableName: tableName,
      IndexName: STATUS_INDEX,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': statusGsiPk('awaiting_review') },
      ...filter,
    },
    APPROVALS_MAX,
  );
  return {
    jobs: jobs
      .map(jobFromItem)
      .filter((j) => !j.reviewCompletedAt && !j.reviewExpiredAt)
      .map(summaryOf),
  };
}

/**
 * The jobs recorded under any of `owners`, newest first, `limit` at most, older than the
 * cursor. The cursor is the last listed job's index key, so the partitions of several owner
 * names page together: each is read from below the same key and the pages merged.
 *
 * @throws CursorError when `after` is not a cursor GET /jobs returned
 */
export async function listJobs(
  db: DynamoDBDocumentClient,
  tableName: string,
  owners: readonly string[],
  options: { readonly after?: string; readonly limit?: number } = {},
): Promise<JobListView> {
  const limit = Math.min(Math.max(1, options.limit ?? JOBS_PAGE_DEFAULT), JOBS_PAGE_MAX);
  const below = decodeListCursor(options.after ?? '');
  const pages = await Promise.all(
    [...new Set(owners)].map(async (owner) => {
      const r = await db.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: OWNER_INDEX,
          KeyConditionExpression: below ? 'gsi2pk = :pk AND gsi2sk < :below' : 'gsi2pk = :pk',
          ExpressionAttributeValues: { ':pk': ownerGsiPk(owner), ...(below ? { ':below': below } : {}) },
          ScanIndexForward: false,
          // One more than a page tells whether another page follows.
          Limit: limit + 1,
        }),
      );
      return ((r.Items ?? []) as (Job & { gsi2sk: string })[]).map(jobFromItem);
    }),
  );
  const merged = pages.flat().sort((a, b) => (a.gsi2sk < b.gsi2sk ? 1 : a.gsi2sk > b.gsi2sk ? -1 : 0));
  const shown = merged.slice(0, limit);
  const last = shown.at(-1);
  return {
    jobs: shown.map(summaryOf),
    ...(merged.length > limit && last
      ? { cursor: `${CURSOR_PREFIX}${Buffer.from(last.gsi2sk).toString('base64url')}` }
      : {}),
  };
}
