/**
 * The status API as the reviewer app calls it: every request signed with SigV4 for
 * `execute-api` (API Gateway's IAM authorization), as the CLI signs them, with credentials from
 * the sign-in seam (session.ts). The one module that knows routes and answer shapes.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { DecisionResponse } from '../api/holds-api.js';
import type { PlaybookList } from '../api/playbooks-api.js';
import type { ReportClause } from '../core/finalize/report-types.js';
import type { FindingsView } from '../core/holds/review.js';
import type {
  JobView,
  QuoteRequest,
  QuoteView,
  ReportLinks,
  Submission,
  SubmitRequest,
} from '../core/jobs/index.js';
import type { JobStatus } from '../core/state/jobs.js';
import { WebSha256 } from './sha256-web.js';
import { isUploadRefusedError, sendUpload } from './upload-form.js';

export type {
  DecisionResponse,
  FindingsView,
  JobView,
  PlaybookList,
  QuoteRequest,
  QuoteView,
  ReportClause,
  Submission,
  SubmitRequest,
};

/** Temporary (or local) credentials to sign with. */
export interface Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** What `GET /jobs/{id}/findings?after=` answers: clauses of chunks consolidated since the cursor. */
export interface LiveFindings {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly chunks: { readonly total: number; readonly consolidated: number; readonly delivered: number };
  readonly clauses: readonly ReportClause[];
  readonly cursor: string;
  readonly more: boolean;
  readonly ended: boolean;
}

/** One job as `GET /jobs` lists it. */
export interface JobSummary {
  readonly jobId: string;
  readonly status: JobStatus | 'queued';
  readonly document: string;
  readonly lane?: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
  readonly chunks: { readonly total: number; readonly done: number };
  readonly clauses: number;
  readonly cost: { readonly spentMicros: number; readonly ceilingMicros: number };
  readonly gate?: string;
  readonly reason?: string;
  /** SHA-256 (hex) of the document, once intake has read it. */
  readonly sha256?: string;
}

/** What `GET /jobs` answers. */
export interface JobList {
  readonly jobs: readonly JobSummary[];
  readonly cursor?: string;
}

/** Report links; `docx` once the stack writes report.docx. */
export type Reports = ReportLinks & { readonly docx?: { readonly key: string; readonly url: string } };

/** The body of POST /jobs/{id}/decisions. */
export interface DecisionBody {
  readonly findings?: readonly string[];
  readonly allUndecided?: true;
  readonly verdict: 'approve' | 'override' | 'reject';
  readonly score?: number;
  readonly note?: string;
}

/** The API (or an upload) answered with an error; `message` is its own explanation. */
export class AppApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly context: { readonly method: string; readonly path: string; readonly body?: unknown },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppApiError';
  }
}

/** True for an error answer of the status API or of an upload. */
export function isAppApiError(error: unknown): error is AppApiError {
  return error instanceof AppApiError;
}

/** Where the API is and how to sign for it. */
export interface AppApiOptions {
  readonly url: string;
  readonly region: string;
  readonly credentials: () => Promise<Credentials>;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** The status API's routes, signed. */
export class AppApi {
  private readonly base: URL;
  private readonly signer: SignatureV4;
  private readonly fetch: typeof fetch;

  constructor(options: AppApiOptions) {
    this.base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.signer = new SignatureV4({
      credentials: options.credentials,
      region: options.region,
      service: 'execute-api',
      sha256: WebSha256,
      uriEscapePath: true,
    });
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** GET /jobs: the caller's jobs, newest first. */
  listJobs(after?: string): Promise<JobList> {
    return this.call('GET', 'jobs', undefined, after ? { after } : {});
  }

  /** GET /jobs/{id}. */
  status(id: string): Promise<JobView> {
    return this.call('GET', `jobs/${encodeURIComponent(id)}`);
  }

  /** GET /jobs/{id}/findings?after=: clauses as their chunks consolidate ('' starts). */
  liveFindings(id: string, after: string): Promise<LiveFindings> {
    return this.call('GET', `jobs/${encodeURIComponent(id)}/findings`, undefined, { after });
  }

  /** GET /jobs/{id}/findings: the gated findings of a review, with decisions. */
  gatedFindings(id: string): Promise<FindingsView> {
    return this.call('GET', `jobs/${encodeURIComponent(id)}/findings`);
  }

  /** GET /playbooks: the stack's playbooks, latest version of each. */
  playbooks(): Promise<PlaybookList> {
    return this.call('GET', 'playbooks');
  }

  /** POST /jobs: a presigned upload. */
  submit(request: SubmitRequest): Promise<Submission> {
    return this.call('POST', 'jobs', request);
  }

  /** POST /quote: the document priced as intake would price it; no job is recorded. */
  quote(request: QuoteRequest): Promise<QuoteView> {
    return this.call('POST', 'quote', request);
  }

  /** POST /jobs/{id}/pause | resume | cancel. */
  control(id: string, action: 'pause' | 'resume' | 'cancel'): Promise<JobView> {
    return this.call('POST', `jobs/${encodeURIComponent(id)}/${action}`);
  }

  /** POST /jobs/{id}/decisions. */
  decide(id: string, body: DecisionBody): Promise<DecisionResponse> {
    return this.call('POST', `jobs/${encodeURIComponent(id)}/decisions`, body);
  }

  /** GET /jobs/{id}/report: presigned links to the reports. */
  reports(id: string): Promise<Reports> {
    return this.call('GET', `jobs/${encodeURIComponent(id)}/report`);
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<T> {
    const url = new URL(path, this.base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const signed = await this.signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: {
        host: url.host,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload !== undefined ? { body: payload } : {}),
    });
    // A browser sets Host itself (to the value signed); fetch refuses to be given it.
    const { host: _host, ...headers } = signed.headers;
    let response: Response;
    try {
      response = await this.fetch(url, {
        method,
        headers,
        ...(payload !== undefined ? { body: payload } : {}),
      });
    } catch (error) {
      throw new AppApiError(
        `the status API at ${this.base.origin} did not answer`,
        0,
        { method, path },
        {
          cause: error,
        },
      );
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    if (response.ok) return parsed as T;
    const message = (parsed as { message?: string } | undefined)?.message ?? `HTTP ${response.status}`;
    throw new AppApiError(message, response.status, { method, path, body: parsed });
  }
}

/** A document's bytes in base64, as POST /quote takes them. */
export function base64Of(bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let binary = '';
  // In slices: String.fromCharCode takes its characters as arguments, and their count is bounded.
  for (let i = 0; i < view.length; i += 0x8000) {
    binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Sends a document through a submission's presigned POST (the form its policy signs). */
export async function uploadDocument(
  submission: Submission,
  bytes: ArrayBuffer,
  fetcher: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<void> {
  try {
    await sendUpload(submission.upload, submission.key, new Blob([bytes]), fetcher);
  } catch (error) {
    const request = { method: 'POST', path: submission.key };
    if (isUploadRefusedError(error)) {
      throw new AppApiError(error.message, error.status, { ...request, body: error.body });
    }
    throw new AppApiError('the upload did not reach the document bucket', 0, request, { cause: error });
  }
}
