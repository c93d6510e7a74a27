/**
 * The wire of the local status API, as API Gateway's HTTP API keeps it: CORS answered before
 * anything else, bodies read up to a bound, early answers drained so they are not lost to a
 * reset, and requests Node's parser refuses answered as API Gateway answers them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { MAX_HEADER_BYTES } from '../../lambdas/api/limits.js';
import { APP_API_CORS } from '../../lambdas/shared/app-csp.js';

/**
 * CORS as API Gateway's HTTP API does it once configured (the stack's rule, APP_API_CORS): it answers a preflight OPTIONS
 * itself, without authorization or a route, and adds the CORS headers to every answer to an
 * allowed origin
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-cors.html).
 * Returns true when the request was a preflight and has been answered.
 */
export function applyCors(
  req: IncomingMessage,
  res: ServerResponse,
  allowOrigin: ((origin: string) => boolean) | undefined,
): boolean {
  const origin = req.headers.origin;
  const allowed = origin !== undefined && allowOrigin?.(origin) === true;
  if (allowed) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
  }
  if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
  res.writeHead(
    204,
    allowed
      ? {
          'access-control-allow-methods': APP_API_CORS.allowMethods.join(','),
          'access-control-allow-headers': APP_API_CORS.allowHeaders.join(','),
          'access-control-max-age': String(APP_API_CORS.maxAgeSeconds),
        }
      : {},
  );
  res.end();
  drain(req);
  return true;
}

/** Bytes of an unwanted body drained after an early answer before the connection is dropped. */
export const MAX_DRAIN_BYTES = 32 * 1024 * 1024;

/**
 * Node's own header limit, far above the API's so that the API's rule decides; a request past
 * this one is answered by the server's `clientError` handler, with the same 431.
 */
export const NODE_MAX_HEADER_SIZE = 256 * 1024;

/** The body, up to `limit` bytes; undefined when it runs past (a body sent without a length). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.off('data', onData);
        resolve(undefined);
      } else chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Reads and discards what the caller still sends after an early answer, so the answer is not
 * lost to a connection reset; a caller that keeps sending past a bound is cut off.
 */
export function drain(req: IncomingMessage): void {
  let drained = 0;
  req.on('data', (c: Buffer) => {
    drained += c.length;
    if (drained > MAX_DRAIN_BYTES) req.destroy();
  });
  req.resume();
}

export function reply(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(text);
}

/** Answers before the body was read: the connection closes, and what is still coming is drained. */
export function replyEarly(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers = {},
): void {
  reply(res, status, body, { connection: 'close', ...headers });
  drain(req);
}

export function singleValued(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/** A URL's query parameters, a repeated one as a list (as SigV4 canonicalises them). */
export function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return query;
}

/**
 * Answers a request Node's parser refused, as API Gateway does: 431 for a request line and
 * headers over its limit, 400 for anything else it cannot read.
 */
export function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    tooLarge
      ? {
          error: 'HeadersTooLargeError',
          message: `the request line and headers are over ${MAX_HEADER_BYTES} bytes`,
        }
      : { message: 'Bad Request' },
  );
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
