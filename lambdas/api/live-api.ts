import { listJobsFor } from '../core/jobs/index.js';
import { isCursorError } from '../core/live/errors.js';
import type { JobListView } from '../core/live/job-list.js';
import { type LiveFindingsView, readLiveFindings } from '../core/live/live-findings.js';
import { isAdministratorOf, ownerNamesOf, type Principal } from './access.js';
import { BadRequestError, JobUnknownError } from './errors.js';
import { type JobsApi, type JobsApiDeps, refusals } from './jobs-api.js';

/** The query of GET /jobs and GET /jobs/{id}/findings, as API Gateway passes it. */
export type Query = Readonly<Record<string, string | undefined>>;

/**
 * The status API's reads as a job goes: its findings as chunks consolidate, and the caller's
 * jobs. Who may read is the status API's rule: a job's owner and the administrators, and the
 * members of a group its review waits for.
 */
export class LiveApi {
  constructor(
    private readonly jobs: JobsApi,
    private readonly deps: JobsApiDeps,
  ) {}

  /** GET /jobs/{id}/findings?after=<cursor>. @throws BadRequestError for a cursor not of this job */
  async findings(id: string, after: string, caller?: Principal): Promise<LiveFindingsView> {
    const job = await this.jobs.job(id, caller, 'see');
    try {
      return await readLiveFindings(job, after, this.deps);
    } catch (error) {
      if (isCursorError(error)) throw new BadRequestError(error.message);
      throw error;
    }
  }

  /**
   * GET /jobs?after=&limit=&owner=: the caller's jobs, newest first. An administrator may name
   * another `owner` (an ARN, or `AWS:` and a principal id) to see that owner's jobs.
   * GET /jobs?awaiting=approval: the jobs whose review waits for one of the caller's approver
   * groups (for an administrator, every job awaiting review).
   */
  async list(query: Query, caller?: Principal): Promise<JobListView> {
    if (!caller) throw new JobUnknownError('', 'no caller: GET /jobs lists the signed caller’s jobs');
    const lister = {
      owners: ownerNamesOf(caller),
      administrator: isAdministratorOf(caller, this.deps.administrators ?? []),
      groups: () => this.jobs.groupsOf(caller),
    };
    const { after, limit, owner, awaiting } = query;
    return refusals(() =>
      listJobsFor(
        lister,
        {
          ...(after !== undefined ? { after } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(owner !== undefined ? { owner } : {}),
          ...(awaiting !== undefined ? { awaiting } : {}),
        },
        this.deps,
      ),
    );
  }
}
