/**
 * Sending a submission's document, as the reviewer app (from a browser) and the CLI (from Node)
 * both do: the presigned POST's fields as they are, then the document as `file`, the last field
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-UsingHTTPPOST.html). Browser code, like
 * the rest of the app: only the platform's `fetch`, `FormData` and `Blob`, and types from the
 * pipeline, so the CLI can use it as it is.
 */
import type { UploadForm } from '../core/jobs/index.js';

/** What the uploader is told of a file over the upload's limit (the sizes in bytes: exact). */
export function overLimitMessage(bytes: number, maxBytes: number): string {
  return (
    `The file is ${bytes.toLocaleString('en-US')} bytes, which is over the ${maxBytes.toLocaleString('en-US')}-byte ` +
    'limit of an upload. Upload a smaller file, for example the contract without its attachments.'
  );
}

/** S3 refused the upload, or it was over the limit and not sent at all (`status` 0). */
export class UploadRefusedError extends Error {
  override readonly name = 'UploadRefusedError';

  constructor(
    message: string,
    /** The HTTP status S3 answered; 0 when the upload was not sent. */
    readonly status: number,
    /** S3's error code (`EntityTooLarge`, `AccessDenied`), `too-large` when not sent, '' when not S3's. */
    readonly code: string,
    /** S3's answer as it came. */
    readonly body = '',
  ) {
    super(message);
  }
}

/** True for an {@link UploadRefusedError}. */
export function isUploadRefusedError(error: unknown): error is UploadRefusedError {
  return error instanceof UploadRefusedError;
}

/** An element of S3's XML error answer, unescaped. */
function element(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m?.[1]
    ?.replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replaceAll('&amp;', '&');
}

/**
 * What S3's refusal of an upload means for the person uploading: the size limit in their terms
 * for `EntityTooLarge`, S3's own message otherwise.
 */
export function refusalOf(status: number, body: string): UploadRefusedError {
  const code = element(body, 'Code') ?? '';
  const proposed = Number(element(body, 'ProposedSize'));
  const allowed = Number(element(body, 'MaxSizeAllowed'));
  const detail =
    code === 'EntityTooLarge' && proposed > 0 && allowed > 0
      ? overLimitMessage(proposed, allowed)
      : (element(body, 'Message') ?? body.slice(0, 300));
  const answer = code ? `HTTP ${status}, ${code}` : `HTTP ${status}`;
  return new UploadRefusedError(`the upload was refused (${answer}): ${detail}`, status, code, body);
}

/**
 * Sends a document through a submission's upload form and returns the version S3 gave it. A
 * document over the form's `maxBytes` is not sent: S3 would refuse it after reading it all.
 *
 * @throws UploadRefusedError when the document is over the limit or S3 refuses the upload;
 *   a network failure is thrown as `fetch` throws it.
 * @example
 * const { versionId } = await sendUpload(submission.upload, submission.key, bytes);
 */
export async function sendUpload(
  upload: UploadForm,
  key: string,
  document: Blob | Uint8Array,
  fetcher: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<{ readonly versionId?: string }> {
  const blob = document instanceof Blob ? document : new Blob([document as Uint8Array<ArrayBuffer>]);
  if (blob.size > upload.maxBytes) {
    throw new UploadRefusedError(overLimitMessage(blob.size, upload.maxBytes), 0, 'too-large');
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
  form.append('file', blob, key.slice(key.lastIndexOf('/') + 1));
  const response = await fetcher(upload.url, { method: upload.method, body: form });
  if (!response.ok) throw refusalOf(response.status, await response.text());
  await response.arrayBuffer();
  const versionId = response.headers.get('x-amz-version-id');
  return versionId && versionId !== 'null' ? { versionId } : {};
}
