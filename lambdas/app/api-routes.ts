/**
 * The status API's routes, written once for every client: the CLI (bin/client/api-client.ts,
 * Node's http), the reviewer app and the Word add-in (api.ts, the browser's fetch). A client
 * supplies only how a signed request is sent and how an error answer is thrown.
 */
import type { z } from 'zod';
import type { DecisionBody, DecisionResponse, RedlineBody, RedlineResponse } from '../api/holds-api.js';
import type {
  JobView,
  QuoteRequest,
  QuoteView,
  ReportLinks,
  Submission,
  SubmitRequest,
} from '../api/jobs-api.js';
import type {
  PlaybookList,
  PlaybookView,
  PutPlaybookView,
  putPlaybookRequestSchema,
} from '../api/playbooks-api.js';
import type { FindingsView } from '../core/holds/review.js';
import type { JobListView, LiveFindingsView } from '../core/live/index.js';

/** A playbook file's text as POST /playbooks takes it. */
export type PutPlaybookRequest = z.input<typeof putPlaybookRequestSchema>;

/** What GET /jobs may be asked: a page after a cursor, its size, another owner's, or those awaiting approval. */
export interface JobsQuery {
  readonly after?: string;
  readonly limit?: number;
  readonly owner?: string;
  readonly awaiting?: 'approval';
}

/** The actions on a running job a person may take. */
export type JobAction = 'pause' | 'resume' | 'cancel';

const job = (id: string, rest = ''): string => `jobs/${encodeURIComponent(id)}${rest}`;

/** The status API's routes over a client's signed `call`. */
export abstract class StatusApiRoutes {
  /** Sends one signed request and returns the answer's body. @throws the client's error for an error answer */
  protected abstract call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query?: Record<string, string>,
  ): Promise<T>;

  /** POST /jobs: a presigned upload. */
  submit(request: SubmitRequest): Promise<Submission> {
    return this.call('POST', 'jobs', request);
  }

  /** POST /quote: what a document would cost, priced as intake would price it; no job is recorded. */
  quote(request: QuoteRequest): Promise<QuoteView> {
    return this.call('POST', 'quote', request);
  }

  /** GET /jobs/{id}. */
  status(id: string): Promise<JobView> {
    return this.call('GET', job(id));
  }

  /** POST /jobs/{id}/pause | resume | cancel. */
  act(id: string, action: JobAction): Promise<JobView> {
    return this.call('POST', job(id, `/${action}`));
  }

  /** POST /jobs/{id}/cancel. */
  cancel(id: string): Promise<JobView> {
    return this.act(id, 'cancel');
  }

  /** POST /jobs/{id}/pause. */
  pause(id: string): Promise<JobView> {
    return this.act(id, 'pause');
  }

  /** POST /jobs/{id}/resume. */
  resume(id: string): Promise<JobView> {
    return this.act(id, 'resume');
  }

  /** GET /jobs/{id}/report: presigned links to the reports. */
  report(id: string): Promise<ReportLinks> {
    return this.call('GET', job(id, '/report'));
  }

  /** GET /jobs/{id}/findings: the gated findings of a review, with decisions. */
  findings(id: string): Promise<FindingsView> {
    return this.call('GET', job(id, '/findings'));
  }

  /** GET /jobs/{id}/findings?after=: clauses of chunks consolidated since `after` ('' from the start). */
  liveFindings(id: string, after: string): Promise<LiveFindingsView> {
    return this.call('GET', job(id, '/findings'), undefined, { after });
  }

  /** GET /jobs: the caller's jobs, newest first; `awaiting: 'approval'`, those waiting for the caller's approver groups. */
  jobs(query: JobsQuery = {}): Promise<JobListView> {
    const params = Object.fromEntries(
      Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    );
    return this.call('GET', 'jobs', undefined, params);
  }

  /** POST /jobs/{id}/decisions. */
  decide(id: string, request: DecisionBody): Promise<DecisionResponse> {
    return this.call('POST', job(id, '/decisions'), request);
  }

  /** POST /jobs/{id}/redlines: accept, reject or edit proposed redlines. */
  decideRedlines(id: string, request: RedlineBody): Promise<RedlineResponse> {
    return this.call('POST', job(id, '/redlines'), request);
  }

  /** GET /playbooks: the latest version of each of the stack's playbooks. */
  playbooks(): Promise<PlaybookList> {
    return this.call('GET', 'playbooks');
  }

  /** GET /playbooks/{name}[@version]: one version with its content, and every version. */
  playbook(ref: string): Promise<PlaybookView> {
    return this.call('GET', `playbooks/${encodeURIComponent(ref)}`);
  }

  /** POST /playbooks (administrators): a playbook file's text, added as the next version. */
  putPlaybook(request: PutPlaybookRequest): Promise<PutPlaybookView> {
    return this.call('POST', 'playbooks', request);
  }
}
