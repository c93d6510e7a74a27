/**
 * GET /jobs without HTTP: a caller's jobs, newest first. Who lists comes in from the entry
 * point: the owner names their jobs may be recorded under, and whether they administer.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isCursorError } from '../live/errors.js';
import { JOBS_PAGE_MAX, type JobListView, listAwaitingApproval, listJobs } from '../live/job-list.js';
import { InvalidJobRequestError } from './errors.js';

/** Who asks for a listing. */
export interface Lister {
  /** The names the lister's jobs may be recorded under (see `ownerNamesOf` in the API). */
  readonly owners: readonly string[];
  /** An administrator may name another owner. */
  readonly administrator: boolean;
  /** The lister's user pool groups, asked only for `awaiting=approval`. @default none */
  readonly groups?: () => Promise<readonly string[]>;
}

/** The query of GET /jobs, as given (strings, or absent). */
export interface JobListQuery {
  readonly after?: string;
  readonly limit?: string;
  readonly owner?: string;
  /** `approval`: the jobs whose review waits for one of the lister's approver groups. */
  readonly awaiting?: string;
}

/**
 * The lister's jobs (or, for an administrator, `owner`'s: an ARN, or `AWS:` and a principal
 * id), newest first, `limit` a page; or with `awaiting=approval`, the jobs whose open review
 * waits for one of the lister's approver groups (an administrator: every job awaiting review).
 * @throws InvalidJobRequestError for a bad limit, a cursor GET /jobs never returned, or another
 *   owner named by someone who is not an administrator
 */
export async function listJobsFor(
  lister: Lister,
  query: JobListQuery,
  deps: { readonly db: DynamoDBDocumentClient; readonly tableName: string },
): Promise<JobListView> {
  if (query.awaiting !== undefined) {
    if (query.awaiting !== 'approval')
      throw new InvalidJobRequestError(`awaiting must be 'approval'; got '${query.awaiting}'`);
    if (query.after !== undefined || query.limit !== undefined || query.owner !== undefined)
      throw new InvalidJobRequestError('awaiting=approval lists one page and takes no after, limit or owner');
    return listAwaitingApproval(deps.db, deps.tableName, {
      groups: (await lister.groups?.()) ?? [],
      administrator: lister.administrator,
    });
  }
  const limit = query.limit === undefined ? undefined : Number(query.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= JOBS_PAGE_MAX)) {
    throw new InvalidJobRequestError(
      `limit must be a whole number from 1 to ${JOBS_PAGE_MAX}; got '${query.limit}'`,
    );
  }
  let owners = lister.owners;
  if (query.owner !== undefined && !owners.includes(query.owner)) {
    if (!lister.administrator) {
      throw new InvalidJobRequestError(
        'only an administrator may list the jobs of another owner; leave owner= out',
      );
    }
    owners = [query.owner];
  }
  try {
    return await listJobs(deps.db, deps.tableName, owners, {
      ...(query.after !== undefined ? { after: query.after } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
  } catch (error) {
    if (isCursorError(error)) throw new InvalidJobRequestError(error.message, [], { cause: error });
    throw error;
  }
}
