/**
 * The status API as the reviewer app calls it: every request signed with SigV4 for
 * `execute-api` (API Gateway's IAM authorization), as the CLI signs them, with credentials from
 * the sign-in seam (session.ts) and sent with the browser's fetch. The routes are api-routes.ts,
 * the same for the CLI; this module adds the uploads and the answer shapes the views read.
 */
import type { DecisionBody, DecisionResponse, RedlineResponse } from '../api/holds-api.js';
import type { PlaybookList } from '../api/playbooks-api.js';
import type { FindingsView } from '../core/holds/review.js';
import type {
  JobView,
  QuoteRequest,
  QuoteView,
  ReportLinks,
  Submission,
  SubmitRequest,
} from '../core/jobs/index.js';
import type { JobListView, JobSummary, LiveFindingsView } from '../core/live/index.js';
import type { Negotiation, NegotiationChange, PlaybookReview, ReportClause } from '../core/report-types.js';
import { StatusApiRoutes } from './api-routes.js';
import { WebSha256 } from './sha256-web.js';
import { ApiSigner } from './signed-request.js';
import { isUploadRefusedError, sendUpload } from './upload-form.js';

export type {
  DecisionBody,
  DecisionResponse,
  FindingsView,
  JobListView,
  JobSummary,
  JobView,
  LiveFindingsView,
  Negotiation,
  NegotiationChange,
  PlaybookList,
  PlaybookReview,
  QuoteRequest,
  QuoteView,
  RedlineResponse,
  ReportClause,
  ReportLinks,
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

/** The API (or an upload) answered with an error; `message` is its own explanation. */
export class AppApiError extends Error {
  override readonly name = 'AppApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly context: { readonly method: string; readonly path: string; readonly body?: unknown },
    options?: ErrorOptions,
  ) {
    super(message, options);
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

/** The status API's routes (api-routes.ts), signed and sent with the browser's fetch. */
export class AppApi extends StatusApiRoutes {
  private readonly base: URL;
  private readonly signer: ApiSigner;
  private readonly fetch: typeof fetch;

  constructor(options: AppApiOptions) {
    super();
    this.signer = new ApiSigner({ ...options, sha256: WebSha256 });
    this.base = this.signer.base;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  protected async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<T> {
    const { url, headers: signedHeaders, payload } = await this.signer.sign(method, path, body, query);
    // A browser sets Host itself (to the value signed); fetch refuses to be given it.
    const { host: _host, ...headers } = signedHeaders;
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

/** Sends our version through a submission's second presigned POST (`against`); nothing when it has none. */
export async function uploadVersion(
  submission: Submission,
  bytes: ArrayBuffer,
  fetcher: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<void> {
  const against = submission.against;
  if (!against) return;
  try {
    await sendUpload(against.upload, against.key, new Blob([bytes]), fetcher);
  } catch (error) {
    const request = { method: 'POST', path: against.key };
    if (isUploadRefusedError(error)) {
      throw new AppApiError(error.message, error.status, { ...request, body: error.body });
    }
    throw new AppApiError('our version did not reach the document bucket', 0, request, { cause: error });
  }
}
