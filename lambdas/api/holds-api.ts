import { type DecidingPerson, type DecisionOutcome, decide } from '../core/holds/decide.js';
import {
  isDecisionError,
  isHoldStateError,
  isNotYoursToDecideError,
  isOwnEscalationError,
} from '../core/holds/errors.js';
import { pauseJob, resumeJob } from '../core/holds/pause.js';
import { type DecisionRights, decisionRights } from '../core/holds/playbook-holds.js';
import { decideRedlines, type RedlineOutcome } from '../core/holds/redline-decisions.js';
import { type FindingsView, listFindings } from '../core/holds/review.js';
import { readDecisionRequest } from '../core/jobs/decision-request.js';
import { readRedlineRequest } from '../core/jobs/redline-request.js';
import type { Job } from '../core/state/job.js';
import { isAdministratorOf, mayActOn, ownerOf, ownsJob, type Principal } from './access.js';
import {
  BadRequestError,
  FindingUnknownError,
  JobStateConflictError,
  OwnEscalationRefusedError,
} from './errors.js';
import { type JobsApi, type JobsApiDeps, type JobView, refusals } from './jobs-api.js';

export { type DecisionBody, decisionRequestSchema } from '../core/jobs/decision-request.js';
export { type RedlineBody, redlineRequestSchema } from '../core/jobs/redline-request.js';

/** What POST /jobs/{id}/decisions answers. */
export interface DecisionResponse {
  readonly jobId: string;
  readonly recorded: DecisionOutcome['recorded'];
  readonly undecided: number;
  /** True when this request decided the last finding: the report is being written. */
  readonly reviewClosed: boolean;
}

/** What POST /jobs/{id}/redlines answers. */
export interface RedlineResponse {
  readonly jobId: string;
  readonly recorded: RedlineOutcome['recorded'];
  readonly undecided: number;
  /** True when this request decided the last held item: the report is being written. */
  readonly reviewClosed: boolean;
}

/**
 * The status API's holds: pause and resume a job, list its findings, and record a reviewer's
 * decisions on findings and on proposed redlines. Who may act is the status API's rule
 * (`mayActOn`): the job's submitter and the administrators; the members of a playbook's approver
 * group also see a job whose review waits for them, and decide what is escalated to them.
 * Anyone else gets the 404 of a missing job, and a finding or redline the caller may not decide
 * a 404 of its own.
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
    const job = await this.jobs.job(id, caller, 'see');
    return holdRefusals(async () => listFindings(job, this.deps, await this.rights(job, caller)));
  }

  /**
   * POST /jobs/{id}/decisions: recorded with the caller as the deciding principal and, when they
   * signed in through the user pool, their `sub` and the name the pool vouches for (`deps.people`:
   * a verified email, or the user name).
   * @throws BadRequestError for a malformed body, an unknown finding or a bad score
   * @throws FindingUnknownError for a finding the caller may not decide
   * @throws JobStateConflictError when the job is not awaiting review
   */
  async decide(id: string, body: unknown, caller?: Principal): Promise<DecisionResponse> {
    const request = await refusals(async () => readDecisionRequest(body));
    const job = await this.jobs.job(id, caller, 'see');
    const [person, rights] = await Promise.all([this.person(caller), this.rights(job, caller)]);
    const outcome = await holdRefusals(() =>
      decide(job, request, caller ? ownerOf(caller) : 'request', this.deps, person, rights),
    );
    return { jobId: job.jobId, ...outcome };
  }

  /**
   * POST /jobs/{id}/redlines: a reviewer's accept, reject or edit of proposed redlines, recorded
   * as decisions are.
   * @throws BadRequestError for a malformed body, an unknown redline or edits that do not fit
   * @throws FindingUnknownError when the caller is not the job's reviewer
   * @throws JobStateConflictError when the job is not awaiting review
   */
  async decideRedlines(id: string, body: unknown, caller?: Principal): Promise<RedlineResponse> {
    const request = await refusals(async () => readRedlineRequest(body));
    const job = await this.jobs.job(id, caller, 'see');
    const [person, rights] = await Promise.all([this.person(caller), this.rights(job, caller)]);
    const outcome = await holdRefusals(() =>
      decideRedlines(job, request, caller ? ownerOf(caller) : 'request', this.deps, person, rights),
    );
    return { jobId: job.jobId, ...outcome };
  }

  /** The person behind a caller, for the trail: their `sub`, and the name the pool vouches for. */
  private async person(caller: Principal | undefined): Promise<DecidingPerson> {
    const name = caller ? await this.deps.people?.(caller) : undefined;
    const sub = caller?.userPoolSignIn?.sub;
    return { ...(sub ? { sub } : {}), ...(name ? { name } : {}) };
  }

  /**
   * What the caller may decide on the job: its own findings and redlines as its owner or an
   * administrator; escalations as an administrator or a member of their group (the groups are
   * asked only of a job whose review waits for some group).
   */
  private async rights(job: Job, caller: Principal | undefined): Promise<DecisionRights> {
    const administrators = this.deps.administrators ?? [];
    const administrator = isAdministratorOf(caller, administrators);
    const groups =
      administrator || (job.approverGroups?.length ?? 0) === 0 ? [] : await this.jobs.groupsOf(caller);
    const ownJob = !this.deps.ownersDecideOwnEscalations && caller !== undefined && ownsJob(job, caller);
    return decisionRights(mayActOn(job, caller, administrators), administrator, groups, ownJob);
  }
}

/** The holds' refusals as the API's errors. */
async function holdRefusals<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isHoldStateError(error)) throw new JobStateConflictError(error.message, error.jobId, error.status);
    if (isDecisionError(error)) throw new BadRequestError(error.message);
    if (isNotYoursToDecideError(error)) throw new FindingUnknownError(error.message);
    if (isOwnEscalationError(error)) throw new OwnEscalationRefusedError(error.message);
    throw error;
  }
}
