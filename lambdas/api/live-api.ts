import { isCursorError } from '../core/live/errors.js';
import { JOBS_PAGE_MAX, type JobListView, listJobs } from '../core/live/job-list.js';
import { type LiveFindingsView, readLiveFindings } from '../core/live/live-findings.js';
import { isAdministratorOf, ownerNamesOf, type Principal } from './access.js';
import { BadRequestError, JobUnknownError } from './errors.js';
import type { JobsApi, JobsApiDeps } from './jobs-api.js';

/** The query of GET /jobs and GET /jobs/{id}/findings, as API Gateway passes it. */
export type Query = Readonly<Record<string, string | undefined>>;

/**
 * The status API's reads as a job goes: its findings as chunks consolidate, and the caller's
 * jobs. Who may read is the status API's rule: a job's owner and the administrators.
 */
export class LiveApi {
  constructor(
    private readonly jobs: JobsApi,
    private readonly deps: JobsApiDeps,
  ) {}

  /** GET /jobs/{id}/findings?after=<cursor>. @throws BadRequestError for a cursor not of this job */
  async findings(id: string, after: string, caller?: Principal): Promise<LiveFindingsView> {
    const job = await this.jobs.job(id, caller);
    return this.cursorRefusals(() => readLiveFindings(job, after, this.deps));
  }

  /**
   * GET /jobs?after=&limit=&owner=: the caller's jobs, newest first. An administrator may name
   * another `owner` (an ARN, or `AWS:` and a principal id) to see that owner's jobs.
   */
  async list(query: Query, caller?: Principal): Promise<JobListView> {
    if (!caller) throw new JobUnknownError('', 'no caller: GET /jobs lists the signed caller’s jobs');
    const limit = query.limit === undefined ? undefined : Number(query.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= JOBS_PAGE_MAX)) {
      throw new BadRequestError(
        `limit must be a whole number from 1 to ${JOBS_PAGE_MAX}; got '${query.limit}'`,
      );
    }
    let owners = ownerNamesOf(caller);
    if (query.owner !== undefined && !owners.includes(query.owner)) {
      if (!isAdministratorOf(caller, this.deps.administrators ?? [])) {
        throw new BadRequestError(
          'only an administrator may list the jobs of another owner; leave owner= out',
        );
      }
      owners = [query.owner];
    }
    return this.cursorRefusals(() =>
      listJobs(this.deps.db, this.deps.tableName, owners, {
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(limit !== undefined ? { limit } : {}),
      }),
    );
  }

  private async cursorRefusals<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isCursorError(error)) throw new BadRequestError(error.message);
      throw error;
    }
  }
}
