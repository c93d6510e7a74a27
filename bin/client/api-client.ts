/**
 * The CLI's client of the status API: the routes of lambdas/app/api-routes.ts (the same the
 * reviewer app and the add-in call), every request signed with SigV4 for `execute-api` and sent
 * with Node's http with the headers exactly as signed; a refusal for now (429, 503) is waited out
 * as it asks, a few times.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Submission } from '../../lambdas/api/jobs-api.js';
import { StatusApiRoutes } from '../../lambdas/app/api-routes.js';
import { ApiSigner, type SignedRequest } from '../../lambdas/app/signed-request.js';
import { isUploadRefusedError, sendUpload } from '../../lambdas/app/upload-form.js';
import type { StaticCredentials } from '../../lambdas/shared/aws-clients.js';
import { Sha256 } from '../../lambdas/shared/sha256.js';

/** Credentials, or a provider of them (an SDK client's `config.credentials`). */
export type CredentialSource = StaticCredentials | (() => Promise<StaticCredentials>);

/** Where the status API is and how to sign for it. */
export interface ApiClientOptions {
  /** Base URL of the API (the stack's `ApiUrl` output, or the local API's URL). */
  readonly url: string;
  readonly region: string;
  readonly credentials: CredentialSource;
}

/** The API answered with an error status; `message` is the API's own explanation. */
export class ApiRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

/** True for an error answer of the status API. */
export function isApiRequestError(error: unknown): error is ApiRequestError {
  return error instanceof ApiRequestError;
}

/** A raw answer. */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  readonly body: unknown;
  /** The body as received (a download that is not text, such as report.docx). */
  readonly bytes: Uint8Array;
}

/** Sends one HTTP request; the signer's headers are sent exactly as signed (host included). */
export function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: Uint8Array | string,
): Promise<ApiResponse> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const text = bytes.toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed, bytes });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Refusals for now a call waits out before it gives the refusal to its caller. */
const RETRIES = 4;

/** The longest `Retry-After` a call waits itself, in seconds. */
const LONGEST_WAIT_SECONDS = 10;

/**
 * How long to wait before asking again: the answer's `Retry-After` (seconds), or a second for a
 * 429 without one (API Gateway's throttle names none); undefined when the wait is too long to
 * make unasked, or the 503 names none (a busy quote is the caller's to send again).
 */
function waitOf(r: ApiResponse): number | undefined {
  const header = r.headers['retry-after'];
  const seconds = header === undefined ? undefined : Number(Array.isArray(header) ? header[0] : header);
  if (seconds === undefined || !Number.isFinite(seconds)) return r.status === 429 ? 1000 : undefined;
  return seconds <= LONGEST_WAIT_SECONDS ? Math.max(0, seconds) * 1000 : undefined;
}

/**
 * A client of the status API that signs every request with SigV4 for `execute-api`, as API
 * Gateway's IAM authorization requires.
 *
 * @example
 * const api = new ApiClient({ url, region: 'eu-west-1', credentials: s3.config.credentials });
 * const { submissionId, upload } = await api.submit({ filename: 'msa.pdf', lane: 'batch' });
 */
export class ApiClient extends StatusApiRoutes {
  private readonly signer: ApiSigner;

  constructor(options: ApiClientOptions) {
    super();
    this.signer = new ApiSigner({ ...options, sha256: Sha256 });
  }

  /** Signs a request without sending it: the URL, the headers to send as they are, and the body. */
  sign(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<SignedRequest> {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return this.signer.sign(
      method,
      path,
      payload,
      query,
      payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(payload)) },
    );
  }

  /** Sends a signed request; returns whatever status came back. */
  async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<ApiResponse> {
    const { url, headers, payload } = await this.sign(method, path, body, query);
    return send(url, method, headers, payload);
  }

  protected async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<T> {
    let r = await this.request(method, path, body, query);
    // A refusal for now (the caller's budget of the route, the stage's throttle, the user pool
    // not answering) is waited out as it asks, a few times; a longer wait is the caller's to make.
    for (let tries = 1; tries <= RETRIES && (r.status === 429 || r.status === 503); tries++) {
      const wait = waitOf(r);
      if (wait === undefined) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
      r = await this.request(method, path, body, query);
    }
    if (r.status >= 200 && r.status < 300) return r.body as T;
    const message = (r.body as { message?: string } | undefined)?.message ?? (r.text || `HTTP ${r.status}`);
    throw new ApiRequestError(message, r.status, r.body);
  }
}

/**
 * Uploads our version, the one a submission's document answers, through its second presigned POST
 * (`against`); before the document, so intake finds it. Does nothing for a submission with none.
 * @throws ApiRequestError when the file is over the limit (not sent) or S3 refuses it
 */
export async function uploadVersion(submission: Submission, bytes: Uint8Array): Promise<void> {
  if (!submission.against) return;
  try {
    await sendUpload(submission.against.upload, submission.against.key, bytes);
  } catch (error) {
    if (!isUploadRefusedError(error)) throw error;
    throw new ApiRequestError(error.message, error.status, error.body);
  }
}

/**
 * Uploads a document through a submission's presigned POST. Returns the version S3 gave the
 * upload.
 * @throws ApiRequestError when the document is over the limit (not sent) or S3 refuses it
 */
export async function uploadDocument(submission: Submission, bytes: Uint8Array): Promise<string | undefined> {
  try {
    return (await sendUpload(submission.upload, submission.key, bytes)).versionId;
  } catch (error) {
    if (!isUploadRefusedError(error)) throw error;
    throw new ApiRequestError(error.message, error.status, error.body);
  }
}
