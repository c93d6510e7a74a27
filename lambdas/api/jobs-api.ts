/**
 * The status API's job routes: each hands the request to the core's job desk with the caller
 * identified (`actorOf`) and turns the core's refusals into the API's errors.
 */
import {
  type Actor,
  isDocumentUnreadableError,
  isInvalidJobRequestError,
  isJobConflictError,
  isJobNotFoundError,
  isQuoteBusyError,
  type JobAccess,
  JobDesk,
  type JobDeskDeps,
  type JobView,
  type QuoteView,
  quoteRequest,
  type ReportLinks,
  type Submission,
} from '../core/jobs/index.js';
import type { Job } from '../core/state/job.js';
import { actorOf, type Principal, rateKeyOf, sessionRefusal } from './access.js';
import type { CallerLimits, LimitedRoute } from './caller-limits.js';
import {
  BadRequestError,
  JobStateConflictError,
  JobUnknownError,
  ServiceBusyError,
  UnprocessableDocumentError,
  UntrustedSessionError,
} from './errors.js';
import type { PersonGroups, PersonLabels } from './people.js';

export {
  JOB_ID,
  type JobView,
  type QuoteRequest,
  type QuoteView,
  type ReportLinks,
  SUBMISSION_ID,
  type Submission,
  type SubmitRequest,
  submitRequestSchema,
} from '../core/jobs/index.js';

/** What the status API needs: the job desk's dependencies, and who a caller is by name. */
export type JobsApiDeps = JobDeskDeps & {
  /**
   * Names the person behind a caller for the decision trail (the user pool's email or user
   * name). @default none: the trail names the principal only
   */
  readonly people?: PersonLabels;
  /**
   * The user pool groups of the person behind a caller: a member of a playbook's approver group
   * sees a job whose review waits for that group and decides what is escalated to it.
   * @default none: only administrators decide escalated findings
   */
  readonly groups?: PersonGroups;
  /**
   * Each caller's budget of every route (caller-limits.ts).
   * @default none: only the stage's throttle bounds them
   */
  readonly callerLimits?: CallerLimits;
  /**
   * Roles whose sessions the API owns jobs by, because the caller cannot choose the session's
   * name (`sessionRefusal`). @default none: sessions of administrator roles only
   */
  readonly sessionNamedRoles?: readonly string[];
  /**
   * Whether a job's owner (an administrator included) may decide the escalations its playbook
   * raised on it. @default false: the approver group decides, someone other than the submitter
   */
  readonly ownersDecideOwnEscalations?: boolean;
};

/**
 * Runs `operation`, turning the core's refusals into the API's errors (400, 404, 409, 422, 503).
 * Anything else is left to the handler (500).
 */
export async function refusals<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isInvalidJobRequestError(error)) throw new BadRequestError(error.message, error.issues);
    if (isJobNotFoundError(error)) throw new JobUnknownError(error.id, error.message);
    if (isJobConflictError(error)) throw new JobStateConflictError(error.message, error.jobId, error.status);
    if (isDocumentUnreadableError(error)) throw new UnprocessableDocumentError(error.message, error.reason);
    if (isQuoteBusyError(error)) throw new ServiceBusyError(error.message);
    throw error;
  }
}

/** The job routes: submit, quote, status, cancel, report, and the job an id names for the other routes. */
export class JobsApi {
  private readonly desk: JobDesk;

  constructor(private readonly deps: JobsApiDeps) {
    this.desk = new JobDesk(deps);
  }

  /** The stack's playbooks, which a submission or a quote names one of. */
  get playbooks(): JobDesk['playbooks'] {
    return this.desk.playbooks;
  }

  /**
   * Refuses a caller the API cannot own jobs by: a role session whose name the caller chose.
   * @throws UntrustedSessionError (403)
   */
  admit(caller: Principal | undefined): void {
    const role =
      caller &&
      sessionRefusal(caller, {
        sessionNamedRoles: this.deps.sessionNamedRoles ?? [],
        administrators: this.deps.administrators ?? [],
      });
    if (role) throw new UntrustedSessionError(role);
  }

  /** The caller as the core takes it. */
  actor(caller: Principal | undefined): Actor | undefined {
    return actorOf(caller, this.deps.administrators ?? [], () => this.groupsOf(caller));
  }

  private readonly groupsAsked = new WeakMap<Principal, Promise<readonly string[]>>();

  /**
   * The user pool groups of the person behind a caller, asked once per request (a request has
   * its own caller object), and only when something needs them.
   */
  groupsOf(caller: Principal | undefined): Promise<readonly string[]> {
    if (!caller || !this.deps.groups) return Promise.resolve([]);
    let asked = this.groupsAsked.get(caller);
    if (!asked) {
      asked = this.deps.groups(caller);
      this.groupsAsked.set(caller, asked);
    }
    return asked;
  }

  /** POST /jobs. @throws BadRequestError */
  submit(body: unknown, caller?: Principal): Promise<Submission> {
    return refusals(() => this.desk.submit(body, this.actor(caller)));
  }

  /**
   * POST /quote: the document priced as intake would, with no job recorded.
   * @throws BadRequestError, UnprocessableDocumentError
   */
  quote(body: unknown): Promise<QuoteView> {
    return refusals(() =>
      quoteRequest(body, { ...this.deps, playbooks: this.deps.playbooks ?? this.playbooks }),
    );
  }

  /**
   * One request of the caller's budget of a route, before any of its work: the caller as a
   * person ({@link rateKeyOf}), so a new session name is not a new budget.
   * @throws TooManyRequestsError (429) when the caller's budget of the route is spent
   */
  async limit(caller: Principal | undefined, route: LimitedRoute): Promise<void> {
    // A request without a principal never passes API Gateway's IAM authorization; should one
    // arrive, all such share one budget.
    const key = caller ? rateKeyOf(caller, this.deps.sessionNamedRoles ?? []) : 'no-principal';
    await this.deps.callerLimits?.take(key, route);
  }

  /** GET /jobs/{id}. @throws BadRequestError, JobUnknownError */
  status(id: string, caller?: Principal): Promise<JobView> {
    return refusals(() => this.desk.status(id, this.actor(caller)));
  }

  /** POST /jobs/{id}/cancel. @throws JobStateConflictError when the job already ended or is queued */
  cancel(id: string, caller?: Principal): Promise<JobView> {
    return refusals(() => this.desk.cancel(id, this.actor(caller)));
  }

  /** GET /jobs/{id}/report. @throws JobStateConflictError while the job has no report */
  report(id: string, caller?: Principal): Promise<ReportLinks> {
    return refusals(() => this.desk.report(id, this.actor(caller)));
  }

  /**
   * The job an id names: to act on (pause, resume), or to see (findings, decisions).
   * @throws JobStateConflictError while queued
   */
  job(id: string, caller?: Principal, access: JobAccess = 'act'): Promise<Job> {
    return refusals(() => this.desk.job(id, this.actor(caller), undefined, access));
  }
}
