/**
 * Size limits of a status API request, shared by the handler and the local API server so both
 * refuse the same requests. API Gateway's HTTP API refuses requests whose request line and
 * header values exceed 10240 bytes or whose payload exceeds 10 MB before the function runs
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html); the
 * function's own body limit is far smaller, as a submission is a few hundred bytes of JSON;
 * only POST /quote, which carries the document, reads more.
 */
import { MAX_QUOTE_DOCUMENT_BYTES } from '../core/jobs/index.js';
import { MAX_PLAYBOOK_SOURCE_BYTES } from '../core/playbooks/index.js';
import { HeadersTooLargeError, PayloadTooLargeError } from './errors.js';
import type { RouteName } from './routes.js';

/** Most bytes of request body the API reads. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Most bytes of a POST /quote body: the document in base64 (4/3 of its bytes) and the options. */
export const MAX_QUOTE_BODY_BYTES = Math.ceil(MAX_QUOTE_DOCUMENT_BYTES / 3) * 4 + MAX_BODY_BYTES;

/**
 * Most bytes of a POST /playbooks body: the playbook file as a JSON string (twice its bytes,
 * for line breaks and quotes written as escapes) and the rest of the body.
 */
export const MAX_PLAYBOOK_BODY_BYTES = 2 * MAX_PLAYBOOK_SOURCE_BYTES + MAX_BODY_BYTES;

/** Most bytes of request body the API reads for a route (any route when none matched). */
export function maxBodyBytes(route: RouteName | undefined): number {
  if (route === 'put-playbook') return MAX_PLAYBOOK_BODY_BYTES;
  return route === 'quote' ? MAX_QUOTE_BODY_BYTES : MAX_BODY_BYTES;
}

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
  /** The body limit of the route asked for. @default MAX_BODY_BYTES */
  readonly maxBodyBytes?: number;
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
    const limit = request.maxBodyBytes ?? MAX_BODY_BYTES;
    if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLargeError(declared, limit);
  }
}
