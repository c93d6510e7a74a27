/**
 * The Bedrock Runtime stand-in's HTTP side: one loopback port speaking both HTTP/1.1 and
 * HTTP/2 cleartext, because the SDK's default Node handler (NodeHttp2Handler) talks h2c with
 * prior knowledge to an `http://` endpoint while NodeHttpHandler talks HTTP/1.1.
 *
 * A plain TCP server reads the first bytes of each connection: the HTTP/2 preface starts with
 * `PRI`, which no HTTP/1.1 method does, so the socket goes to an HTTP/2 or an HTTP/1.1 server
 * accordingly. Both share one request handler through Node's compatibility API.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2, {
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import net, { type AddressInfo, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { AccountingSnapshot } from './accounting.js';
import { type Catalogue, DEFAULT_REGION } from './catalogue.js';
import { controlPlane, isControlPlanePath, regionOfAuthorization } from './control-plane.js';
import { bedrockError, UNKNOWN_OPERATION } from './errors.js';
import { type FaultPlan, type FaultPlanPatch, isFaultPlanError } from './fault-plan.js';
import type { OfflineAnalystName } from './heuristic-types.js';
import { type CallChannel, STAND_IN_HEADER, StandInEngine, type WireResponse } from './stand-in-engine.js';

/** Options of {@link startBedrockStandIn}. */
export interface BedrockStandInOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Loopback only: the stand-in must never be reachable from the network. */
  host?: '127.0.0.1';
  /** Seed of every random decision (default 1). */
  seed?: number;
  /** Initial fault plan, merged over the default (no faults, no latency, unlimited capacity). */
  plan?: FaultPlanPatch;
  /**
   * Clock in epoch milliseconds (default `Date.now`): tokens-per-minute window, prompt-cache
   * TTL, lifecycle dates. `advanceClock` (or `POST /_stand-in/clock`) moves it forward.
   */
  now?: () => number;
  /** The models Bedrock knows (default: catalogue.ts). */
  catalogue?: Catalogue;
  /** Which offline analyst answers (default `learned`; `heuristic` for the keyword lexicon). */
  analyst?: OfflineAnalystName;
}

/** A running stand-in. */
export interface BedrockStandIn {
  /** Endpoint for `new BedrockRuntimeClient({ endpoint })`, e.g. `http://127.0.0.1:43121`. */
  readonly url: string;
  readonly port: number;
  /** Merges a partial plan (or replaces the plan, from the default, with `replace`). Throws `FaultPlanError`. */
  setPlan(patch: FaultPlanPatch, options?: { replace?: boolean }): FaultPlan;
  getPlan(): FaultPlan;
  accounting(): AccountingSnapshot;
  resetAccounting(): void;
  /**
   * Clears the books, capacity state and prompt cache and reseeds (with `seed`, else the
   * current seed); as `POST /_stand-in/reset`. The clock keeps its advance.
   */
  reset(seed?: number): number;
  /** Moves the stand-in's clock forward by `ms` and returns the new time (epoch ms); as `POST /_stand-in/clock {"advanceMs": ms}`. */
  advanceClock(ms: number): number;
  /** The stand-in's clock (epoch ms). */
  now(): number;
  /** Stops listening and destroys every connection, including hung requests and HTTP/2 sessions. */
  close(): Promise<void>;
}

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

const CONTROL_PREFIX = '/_stand-in/';
const MAX_BODY_BYTES = 25 * 1024 * 1024;
const H2_PREFACE_START = 'PRI';
const REPLACE_QUERY = /(^|&)replace=(true|1)(&|$)/;

function send(res: AnyResponse, response: WireResponse): void {
  // HTTP/2 compatibility responses have no `destroyed`; their stream does.
  const gone = 'stream' in res ? res.stream.destroyed : res.destroyed;
  if (res.writableEnded || gone) return;
  const headers = { ...response.headers, 'content-length': String(Buffer.byteLength(response.body)) };
  (res as ServerResponse).writeHead(response.status, headers);
  (res as ServerResponse).end(response.body);
}

function json(status: number, value: unknown): WireResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', [STAND_IN_HEADER.name]: STAND_IN_HEADER.value },
    body: JSON.stringify(value),
  };
}

/** A channel that reports when the client leaves before the answer is complete. */
function channelFor(res: AnyResponse): CallChannel {
  let closed = false;
  let listeners: (() => void)[] | undefined;
  // An HTTP/2 response reports its stream's end on the stream, not on itself.
  const target = 'stream' in res ? res.stream : res;
  target.once('close', () => {
    if ('stream' in res ? res.writableEnded : res.writableFinished) return;
    closed = true;
    for (const listener of listeners ?? []) listener();
    listeners = undefined;
  });
  return {
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) {
        listener();
        return () => {};
      }
      listeners ??= [];
      listeners.push(listener);
      return () => {
        if (listeners) listeners = listeners.filter((l) => l !== listener);
      };
    },
  };
}

/**
 * Starts a stand-in on loopback and resolves once it is listening.
 *
 * @example
 * ```ts
 * const standIn = await startBedrockStandIn({ seed: 42, plan: { errorRates: { ThrottlingException: 0.05 } } });
 * const bedrock = new BedrockRuntimeClient({
 *   endpoint: standIn.url,
 *   region: 'us-east-1',
 *   credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
 * });
 * // ... run the pipeline against `bedrock` ...
 * expect(duplicateBilledCalls(standIn.accounting())).toEqual([]);
 * await standIn.close();
 * ```
 *
 * Bedrock's model rules and lifecycle (catalogue.ts), a fixed clock, forced stop reasons:
 * ```ts
 * const standIn = await startBedrockStandIn({
 *   now: () => Date.parse('2026-11-23T12:00:00Z'),
 *   plan: { catalogue: { enforce: true }, stopReasons: { refusal: 0.05, max_tokens: 0.02 } },
 * });
 * standIn.setPlan({
 *   catalogue: { lifecycle: { 'anthropic.claude-haiku-4-5-20251001-v1:0': { status: 'LEGACY', endOfLifeTime: '2026-12-19' } } },
 * });
 * standIn.advanceClock(5 * 60_000 + 1); // prompt-cache entries expire; `POST /_stand-in/clock {"advanceMs": ...}` over HTTP
 * // The control plane (GetFoundationModel, ListFoundationModels, GetInferenceProfile,
 * // ListInferenceProfiles) answers on the same URL: new BedrockClient({ endpoint: standIn.url, ... }).
 * ```
 */
export async function startBedrockStandIn(options: BedrockStandInOptions = {}): Promise<BedrockStandIn> {
  const host = options.host ?? '127.0.0.1';
  const engine = new StandInEngine({
    seed: options.seed,
    plan: options.plan,
    now: options.now,
    catalogue: options.catalogue,
    analyst: options.analyst,
  });

  const server = await listen(requestHandler(engine), host, options.port ?? 0);
  const port = server.port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    setPlan: (patch, setOptions) => engine.setPlan(patch, setOptions),
    getPlan: () => engine.getPlan(),
    accounting: () => engine.accounting(),
    resetAccounting: () => engine.resetAccounting(),
    reset: (seed) => engine.reset(seed),
    advanceClock: (ms) => engine.advanceClock(ms),
    now: () => engine.nowMs(),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(resolve);
        engine.close();
      });
      return closing;
    },
  };
}

function unknownOperation(engine: StandInEngine, method: string, path: string): WireResponse {
  return engine.errorResponse({
    name: 'UnknownOperationException',
    status: UNKNOWN_OPERATION.status,
    errorType: UNKNOWN_OPERATION.errorType,
    message: `Unknown operation ${method} ${path}. The clause-review Bedrock stand-in implements Converse (POST /model/{modelId}/converse) and the control plane's GetFoundationModel, ListFoundationModels, GetInferenceProfile and ListInferenceProfiles.`,
  });
}

/** The stand-in's own control routes under `/_stand-in/`: plan, accounting, reset, clock, health. */
function control(
  engine: StandInEngine,
  method: string,
  path: string,
  query: string,
  body: string,
): WireResponse {
  const route = `${method} ${path.slice(CONTROL_PREFIX.length)}`;
  let input: unknown = {};
  if (body.trim().length > 0) {
    try {
      input = JSON.parse(body);
    } catch {
      return json(400, { message: 'Body is not valid JSON.' });
    }
  }
  switch (route) {
    case 'GET plan':
      return json(200, engine.getPlan());
    case 'PUT plan':
    case 'PATCH plan':
      try {
        const replace = REPLACE_QUERY.test(query);
        return json(200, engine.setPlan(input as FaultPlanPatch, { replace }));
      } catch (error) {
        if (isFaultPlanError(error)) return json(400, { message: error.message });
        throw error;
      }
    case 'GET accounting':
      return json(200, engine.accounting());
    case 'POST reset': {
      const seed =
        typeof input === 'object' && input !== null ? (input as { seed?: unknown }).seed : undefined;
      if (seed !== undefined && !Number.isInteger(seed))
        return json(400, { message: 'seed must be an integer.' });
      return json(200, { seed: engine.reset(seed as number | undefined) });
    }
    case 'GET clock':
      return json(200, { nowMs: engine.nowMs(), now: new Date(engine.nowMs()).toISOString() });
    case 'POST clock': {
      const advanceMs =
        typeof input === 'object' && input !== null
          ? (input as { advanceMs?: unknown }).advanceMs
          : undefined;
      if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs) || advanceMs < 0)
        return json(400, { message: 'advanceMs must be a finite, non-negative number.' });
      const nowMs = engine.advanceClock(advanceMs);
      return json(200, { nowMs, now: new Date(nowMs).toISOString() });
    }
    case 'GET health': {
      // CPU time lets benchmarks report the stand-in's cost per call, not just throughput.
      const cpu = process.cpuUsage();
      return json(200, { ok: true, cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system });
    }
    default:
      return unknownOperation(engine, method, path);
  }
}

/** Serves one request: Converse, the control plane, or the stand-in's control routes. */
async function route(
  engine: StandInEngine,
  req: AnyRequest,
  res: AnyResponse,
  body: string,
  arrivedAt: number,
): Promise<void> {
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path.startsWith('/model/') && path.endsWith('/converse') && path.length > 16) {
    if (method !== 'POST') return send(res, unknownOperation(engine, method, path));
    const region = regionOfAuthorization(req.headers.authorization);
    const response = await engine.converse(path.slice(7, -9), body, channelFor(res), { region, arrivedAt });
    if (response?.deliverAfterMs) await delay(response.deliverAfterMs);
    if (response) send(res, response);
    return;
  }
  if (method === 'GET' && isControlPlanePath(path)) {
    const region = regionOfAuthorization(req.headers.authorization) ?? DEFAULT_REGION;
    const result = controlPlane(engine, path, q === -1 ? '' : url.slice(q + 1), region);
    // Request ids from crypto, not the engine's seeded stream, so control-plane calls never
    // shift the ids of seeded Converse answers.
    const requestId = randomUUID();
    if (!result.ok)
      return send(res, engine.errorResponse(bedrockError(result.name, result.message), requestId));
    const response = json(200, result.body);
    return send(res, { ...response, headers: { ...response.headers, 'x-amzn-RequestId': requestId } });
  }
  if (path.startsWith(CONTROL_PREFIX))
    return send(res, control(engine, method, path, q === -1 ? '' : url.slice(q + 1), body));
  send(res, unknownOperation(engine, method, path));
}

/** Reads a request's body (refusing one over Bedrock's limit) and routes it. */
function requestHandler(engine: StandInEngine): (req: AnyRequest, res: AnyResponse) => void {
  return (req, res) => {
    // The model's latency runs from here: the request's arrival, before its body is read.
    const arrivedAt = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('error', () => {});
    res.on('error', () => {});
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) {
        return send(res, json(413, { message: 'Input is too long for requested model.' }));
      }
      const body =
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
      route(engine, req, res, body, arrivedAt).catch((error: unknown) => {
        send(
          res,
          json(500, {
            message: `Stand-in failure: ${error instanceof Error ? error.message : String(error)}`,
          }),
        );
      });
    });
  };
}

/**
 * Listens on one TCP port for HTTP/1.1 and HTTP/2 (prior knowledge) alike, telling them apart
 * by the first bytes, as the SDK may speak either. `close` ends every session and socket.
 */
async function listen(
  onRequest: (req: AnyRequest, res: AnyResponse) => void,
  host: string,
  port: number,
): Promise<{ port: number; close(done: () => void): void }> {
  const h1 = http.createServer({ noDelay: true }, onRequest);
  // Longer than SDK agents keep idle sockets, so a reused socket is never closed under a request.
  h1.keepAliveTimeout = 60_000;
  h1.headersTimeout = 65_000;
  h1.on('clientError', (_error, socket) => socket.destroy());
  const h2 = http2.createServer({ settings: { maxConcurrentStreams: 1000 } }, onRequest);
  const sessions = new Set<ServerHttp2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
  });
  h2.on('sessionError', () => {});

  const sockets = new Set<Socket>();
  const tcp = net.createServer({ noDelay: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head: Buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      // Wait until the first three bytes are in, unless they already cannot spell "PRI".
      if (head.length < H2_PREFACE_START.length && H2_PREFACE_START.startsWith(head.toString('latin1')))
        return;
      socket.off('data', onData);
      socket.pause();
      socket.unshift(head);
      if (head.subarray(0, 3).toString('latin1') === H2_PREFACE_START) {
        // Http2Session drains bytes already buffered on the socket itself; resuming here would
        // hand them to nobody.
        h2.emit('connection', socket);
      } else {
        h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', onData);
  });

  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  return {
    port: (tcp.address() as AddressInfo).port,
    close: (done) => {
      tcp.close(() => done());
      for (const session of sessions) session.destroy();
      for (const socket of sockets) socket.destroy();
      h1.closeAllConnections();
    },
  };
}
