import { z } from 'zod';
import { isDecisionError, isHoldStateError } from '../core/holds/errors.js';
import { pauseJob, resumeJob } from '../core/holds/pause.js';
import {
  type DecisionOutcome,
  decide,
  type FindingsView,
  listFindings,
  MAX_NOTE_CHARS,
} from '../core/holds/review.js';
import { ownerOf, type Principal } from './access.js';
import { BadRequestError, JobStateConflictError } from './errors.js';
import type { JobsApi, JobsApiDeps, JobView } from './jobs-api.js';

/** The body of POST /jobs/{id}/decisions: one verdict on named findings, or on every undecided one. */
export const decisionRequestSchema = z
  .object({
    /** Finding ids (`<clause>/<category>`), as `findings` lists them. */
    findings: z.array(z.string().min(1).max(200)).min(1).max(5000).optional(),
    /** Every gated finding without a decision yet. */
    allUndecided: z.literal(true).optional(),
    verdict: z.enum(['approve', 'override', 'reject']),
    /** The reviewer's score (0–3), with `override` only. */
    score: z.number().int().min(0).max(3).optional(),
    note: z.string().max(MAX_NOTE_CHARS).optional(),
  })
  .strict()
  .refine((r) => (r.findings === undefined) !== (r.allUndecided === undefined), {
    message: "give either 'findings' (a list of finding ids) or 'allUndecided: true', not both",
  });

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
    await this.refusals(() => pauseJob(job.jobId, caller ? ownerOf(caller) : 'request', this.deps));
    return this.jobs.status(job.jobId, caller);
  }

  /** POST /jobs/{id}/resume. @throws JobStateConflictError when the job is not paused */
  async resume(id: string, caller?: Principal): Promise<JobView> {
    const job = await this.jobs.job(id, caller);
    await this.refusals(() => resumeJob(job.jobId, this.deps));
    return this.jobs.status(job.jobId, caller);
  }

  /** GET /jobs/{id}/findings. @throws JobStateConflictError while there is neither a review nor a report */
  async findings(id: string, caller?: Principal): Promise<FindingsView> {
    const job = await this.jobs.job(id, caller);
    return this.refusals(() => listFindings(job, this.deps));
  }

  /**
   * POST /jobs/{id}/decisions: recorded with the caller as the deciding principal, and the
   * person's email or user name (`deps.people`) when they signed in through the user pool.
   * @throws BadRequestError for a malformed body, an unknown finding or a bad score
   * @throws JobStateConflictError when the job is not awaiting review
   */
  async decide(id: string, body: unknown, caller?: Principal): Promise<DecisionResponse> {
    const parsed = decisionRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) =>
        i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message,
      );
      throw new BadRequestError(`invalid decision: ${issues.join('; ')}`, issues);
    }
    const job = await this.jobs.job(id, caller);
    const byName = caller ? await this.deps.people?.(caller) : undefined;
    const { findings, allUndecided: _all, ...rest } = parsed.data;
    const outcome = await this.refusals(() =>
      decide(
        job,
        { ...rest, findings: findings ?? 'all-undecided' },
        caller ? ownerOf(caller) : 'request',
        this.deps,
        byName,
      ),
    );
    return { jobId: job.jobId, ...outcome };
  }

  /** The core's refusals as the API's errors. */
  private async refusals<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isHoldStateError(error)) throw new JobStateConflictError(error.message, error.jobId, error.status);
      if (isDecisionError(error)) throw new BadRequestError(error.message);
      throw error;
    }
  }
}
