/**
 * Size limits of a status API request, shared by the handler and the local API server so both
 * refuse the same requests. API Gateway's HTTP API refuses requests whose request line and
 * header values exceed 10240 bytes or whose payload exceeds 10 MB before the function runs
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html); the
 * function's own body limit is far smaller, as a submission is a few hundred bytes of JSON.
 */
import { HeadersTooLargeError, PayloadTooLargeError } from './errors.js';

/** Most bytes of request body the API reads. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Most bytes of request line plus header values, API Gateway's HTTP API quota. */
export const MAX_HEADER_BYTES = 10_240;

/** What the limits are checked against: sizes known before the body is read. */
export interface RequestSize {
  /** The request line (`POST /jobs?x=1 HTTP/1.1`). */
  readonly requestLine: string;
  /** Header values, as sent (names are not counted, as API Gateway does not count them). */
  readonly headerValues: readonly string[];
  /** The `content-length` header, when the request has one. */
  readonly contentLength?: string;
}

/**
 * Throws when the request line and headers, or the declared body, are over the limit: decided
 * from the lengths alone, so a caller can be refused before a byte of the body is read.
 *
 * @throws HeadersTooLargeError (431), PayloadTooLargeError (413)
 */
export function checkRequestSize(request: RequestSize): void {
  const headerBytes = request.headerValues.reduce(
    (n, v) => n + Buffer.byteLength(v),
    Buffer.byteLength(request.requestLine),
  );
  if (headerBytes > MAX_HEADER_BYTES) throw new HeadersTooLargeError(headerBytes, MAX_HEADER_BYTES);
  if (request.contentLength !== undefined) {
    const declared = Number(request.contentLength);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      throw new PayloadTooLargeError(declared, MAX_BODY_BYTES);
    }
  }
}
