import { readDecisionRequest } from '../core/holds/decision-request.js';
import { isDecisionError, isHoldStateError } from '../core/holds/errors.js';
import { pauseJob, resumeJob } from '../core/holds/pause.js';
import { type DecisionOutcome, decide, type FindingsView, listFindings } from '../core/holds/review.js';
import { ownerOf, type Principal } from './access.js';
import { BadRequestError, JobStateConflictError } from './errors.js';
import { type JobsApi, type JobsApiDeps, type JobView, refusals } from './jobs-api.js';

export { decisionRequestSchema } from '../core/holds/decision-request.js';

/** What POST /jobs/{id}/decisions answers. */
export interface DecisionResponse {
  readonly jobId: string;
  readonly recorded: DecisionOutcome['recorded'];
  readonly undecided: number;
  /** True when this request decided the last finding: the report is being written. */
  readonly reviewClosed: boolean;
}

/**
 * The status API's holds: pause and resume a job, list its findings, and record a reviewer's
 * decisions. Who may act is the status API's rule (`mayActOn`): the job's submitter and the
 * administrators; anyone else gets the 404 of a missing job.
 */
export class HoldsApi {
  constructor(
    private readonly jobs: JobsApi,
    private readonly deps: JobsApiDeps,
  ) {}

  /** POST /jobs/{id}/pause. @throws JobStateConflictError when the job is not running */
  async pause(id: string, caller?: Principal): Promise<JobView> {
    const job = await this.jobs.job(id, caller);
    await holdRefusals(() => pauseJob(job.jobId, caller ? ownerOf(caller) : 'request', this.deps));
    return this.jobs.status(job.jobId, caller);
  }

  /** POST /jobs/{id}/resume. @throws JobStateConflictError when the job is not paused */
  async resume(id: string, caller?: Principal): Promise<JobView> {
    const job = await this.jobs.job(id, caller);
    await holdRefusals(() => resumeJob(job.jobId, this.deps));
    return this.jobs.status(job.jobId, caller);
  }

  /** GET /jobs/{id}/findings. @throws JobStateConflictError while there is neither a review nor a report */
  async findings(id: string, caller?: Principal): Promise<FindingsView> {
    const job = await this.jobs.job(id, caller);
    return holdRefusals(() => listFindings(job, this.deps));
  }

  /**
   * POST /jobs/{id}/decisions: recorded with the caller as the deciding principal and, when they
   * signed in through the user pool, their `sub` and the name the pool vouches for (`deps.people`:
   * a verified email, or the user name).
   * @throws BadRequestError for a malformed body, an unknown finding or a bad score
   * @throws JobStateConflictError when the job is not awaiting review
   */
  async decide(id: string, body: unknown, caller?: Principal): Promise<DecisionResponse> {
    const request = await refusals(async () => readDecisionRequest(body));
    const job = await this.jobs.job(id, caller);
    const name = caller ? await this.deps.people?.(caller) : undefined;
    const sub = caller?.userPoolSignIn?.sub;
    const outcome = await holdRefusals(() =>
      decide(job, request, caller ? ownerOf(caller) : 'request', this.deps, {
        ...(sub ? { sub } : {}),
        ...(name ? { name } : {}),
      }),
    );
    return { jobId: job.jobId, ...outcome };
  }
}

/** The holds' refusals as the API's errors. */
async function holdRefusals<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isHoldStateError(error)) throw new JobStateConflictError(error.message, error.jobId, error.status);
    if (isDecisionError(error)) throw new BadRequestError(error.message);
    throw error;
  }
}
