/**
 * Parsing where it can be stopped. PDF and DOCX readers and the clause splitter run synchronous
 * code that nothing in the same thread can interrupt, so a document that makes them work too
 * long or allocate too much would hold intake until Lambda kills it, on every retry. Here the
 * parse runs in a worker thread with a heap limit, and is watched from outside:
 *
 * - past its CPU time (`parseCpuMs` of the thread's own processing, thread-cpu.ts) or out of its
 *   heap, it is stopped and the document refused as `too-complex`: that is the document's doing;
 * - past its wall-clock time (`parseWallMs`) with CPU time to spare, it is stopped and a
 *   {@link ParseOvertimeError} thrown: the thread got too little of the machine, which says
 *   nothing about the document, so the caller tries again later instead of refusing it.
 *
 * The worker runs this very module: in the Lambda bundle that is the handler's own file, so no
 * second bundle is needed; from source (tests, the local CLI) it is this file, loaded with tsx.
 * A thread that answered reads the next document too (it stays warm between invocations in
 * Lambda); one stopped is ended. A new thread's start (loading the module graph) is not counted
 * against a document: its budget starts once the thread says it is ready.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  DocumentRejectedError,
  isDocumentRejectedError,
  ParseOvertimeError,
  type RejectionDetail,
  type RejectionReason,
} from './errors.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from './limits.js';
import { type ParsedDocument, type ParseInput, parseDocument } from './parse.js';
import { recordThreadId, type ThreadCpuSource, threadCpuClock, threadIdCell } from './thread-cpu.js';

const ROLE = 'clause-review:parse-document';

interface Job {
  readonly bytes: Uint8Array;
  readonly input: ParseInput;
}

type Answer =
  | { readonly parsed: ParsedDocument }
  | { readonly rejected: { reason: RejectionReason; message: string; detail?: RejectionDetail } }
  | { readonly failed: { name: string; message: string } };

/**
 * Parser threads kept between parses, by heap limit. Starting a thread loads the whole module
 * graph again (the handler bundle in Lambda; TypeScript through tsx from source), which costs far
 * more than reading a contract, so a thread that answered goes back here for the next document;
 * a thread stopped at a limit is never reused. Idle threads do not keep the process alive.
 */
const idle = new Map<number, Worker[]>();
/** Each thread's Linux thread id, as it wrote it (thread-cpu.ts). */
const threadIds = new WeakMap<Worker, Int32Array>();
/** Idle threads kept per heap limit: intake parses a batch of up to five uploads at once. */
const MAX_IDLE_THREADS = 5;
let threadsStarted = 0;

/** How many parser threads this process has started, and how many wait idle. */
export function parserThreads(): { readonly started: number; readonly idle: number } {
  return { started: threadsStarted, idle: [...idle.values()].reduce((n, ws) => n + ws.length, 0) };
}

/** The first message of a thread: its module graph is loaded and it reads documents now. */
const READY = 'ready';

/** Starts a parser thread and resolves once it is ready for a document. */
async function startThread(heapMb: number): Promise<Worker> {
  const tid = threadIdCell();
  const options = {
    workerData: { role: ROLE, tid },
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: 32 },
    stdout: false,
    stderr: false,
  };
  threadsStarted++;
  const worker = import.meta.url.endsWith('.ts')
    ? // From source the worker needs the TypeScript loader its parent runs with (tsx).
      new Worker(
        `import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs'))})` +
          `.then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`,
        { ...options, eval: true },
      )
    : new Worker(new URL(import.meta.url), options);
  threadIds.set(worker, tid);
  // A thread that fails or ends while idle leaves the pool; during a parse, the parse's own
  // listeners answer for it. Without a listener here, an idle thread's error would end the process.
  worker.on('error', () => {});
  worker.once('exit', () => {
    const waiting = idle.get(heapMb);
    if (waiting?.includes(worker))
      idle.set(
        heapMb,
        waiting.filter((w) => w !== worker),
      );
  });
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      worker.off('message', onReady);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onReady = (message: unknown) => {
      if (message !== READY) return;
      done();
      resolve();
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onExit = (code: number) => {
      done();
      reject(new Error(`the document parser exited with code ${code} before it was ready`));
    };
    worker.on('message', onReady);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
  return worker;
}

/** Threads being started ahead of any document (by {@link warmParserThread}), by heap size. */
const warming = new Map<number, Promise<Worker>>();

/**
 * Starts a parser thread before the first document asks for one, unless one waits idle or is
 * starting already: a thread's start loads the module graph (about a second of CPU from source),
 * which the first upload of a process would otherwise wait for before its parse even begins.
 */
export function warmParserThread(
  limits: Pick<DocumentLimits, 'parseHeapMb'> = DEFAULT_DOCUMENT_LIMITS,
): void {
  const heapMb = limits.parseHeapMb;
  if ((idle.get(heapMb)?.length ?? 0) > 0 || warming.has(heapMb)) return;
  const starting = startThread(heapMb);
  warming.set(heapMb, starting);
  starting.then(
    (worker) => {
      // A parse that asked while the thread was starting took it already.
      if (warming.get(heapMb) !== starting) return;
      warming.delete(heapMb);
      releaseThread(heapMb, worker);
    },
    () => {
      if (warming.get(heapMb) === starting) warming.delete(heapMb);
    },
  );
}

async function takeThread(heapMb: number): Promise<Worker> {
  let worker = idle.get(heapMb)?.pop();
  if (!worker) {
    const starting = warming.get(heapMb);
    warming.delete(heapMb);
    worker = await (starting ?? startThread(heapMb));
  }
  worker.ref();
  return worker;
}

function releaseThread(heapMb: number, worker: Worker): void {
  const waiting = idle.get(heapMb) ?? [];
  if (waiting.length >= MAX_IDLE_THREADS) {
    void worker.terminate();
    return;
  }
  worker.unref();
  waiting.push(worker);
  idle.set(heapMb, waiting);
}

/** The shortest wait between two readings of the thread's CPU time, in milliseconds. */
const MIN_CHECK_MS = 20;

const RESAVE = 'Save or export the contract again as plain PDF, Word or text, and upload that.';

/** Options of {@link parseDocumentBounded} beyond the document's own. */
export interface BoundedParseOptions {
  /** Where the parser thread's CPU time is read. @default Node's own measure where it has one */
  readonly cpuSource?: ThreadCpuSource;
}

/**
 * {@link parseDocument} in a worker thread bounded by `input.limits`: the thread's CPU time, its
 * heap, and the wall clock.
 *
 * @throws {DocumentRejectedError} as parseDocument does, and `too-complex` when the parse uses
 *   more than its CPU time or its heap.
 * @throws {ParseOvertimeError} when the wall-clock limit comes first: try again later.
 */
export async function parseDocumentBounded(
  bytes: Uint8Array,
  input: ParseInput,
  options: BoundedParseOptions = {},
): Promise<ParsedDocument> {
  const limits = input.limits ?? DEFAULT_DOCUMENT_LIMITS;
  // A copy of its own to transfer: a Buffer's slice() is a view, often of a pool shared with others.
  const job: Job = { bytes: new Uint8Array(bytes), input };
  const worker = await takeThread(limits.parseHeapMb);
  const clock = threadCpuClock(worker, threadIds.get(worker) ?? threadIdCell(), options.cpuSource);
  const startedAt = performance.now();
  const cpuAtStart = await clock();
  let reusable = false;
  let timer: NodeJS.Timeout | undefined;
  let onMessage: ((answer: Answer) => void) | undefined;
  let onError: ((error: Error & { code?: string }) => void) | undefined;
  let onExit: ((code: number) => void) | undefined;
  try {
    const answer = await new Promise<Answer>((resolve, reject) => {
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
      };
      // The thread's CPU time cannot grow faster than the wall clock, so a reading taken after
      // waiting out the CPU time left is never late by more than MIN_CHECK_MS of CPU.
      const check = async () => {
        const cpu = await clock();
        if (settled) return;
        const elapsed = performance.now() - startedAt;
        // Without a measure of the thread, the wall clock bounds its CPU time from above.
        const used = cpu !== undefined && cpuAtStart !== undefined ? cpu - cpuAtStart : elapsed;
        if (used >= limits.parseCpuMs) {
          settle();
          const seconds = (limits.parseCpuMs / 1000).toLocaleString('en-US');
          reject(
            new DocumentRejectedError(
              'too-complex',
              `Reading the document took more than ${seconds} s of processing, far more than any contract needs, so it was stopped. ${RESAVE}`,
              { detail: { parseCpuMs: limits.parseCpuMs } },
            ),
          );
        } else if (elapsed >= limits.parseWallMs) {
          settle();
          reject(new ParseOvertimeError(Math.round(used), limits.parseWallMs, limits.parseCpuMs));
        } else {
          const wait = Math.min(limits.parseCpuMs - used, limits.parseWallMs - elapsed);
          timer = setTimeout(() => void check(), Math.max(MIN_CHECK_MS, wait));
        }
      };
      timer = setTimeout(() => void check(), Math.min(limits.parseCpuMs, limits.parseWallMs));
      onMessage = (answer) => {
        settle();
        reusable = true;
        resolve(answer);
      };
      onError = (error) => {
        settle();
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new DocumentRejectedError(
                'too-complex',
                `Reading the document needed more than ${limits.parseHeapMb} MB of memory, far more than any contract needs, so it was stopped. ${RESAVE}`,
                { cause: error, detail: { parseHeapMb: limits.parseHeapMb } },
              )
            : error,
        );
      };
      onExit = (code) => {
        settle();
        reject(new Error(`the document parser exited with code ${code} before answering`));
      };
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage(job, [job.bytes.buffer as ArrayBuffer]);
    });
    if ('parsed' in answer) return answer.parsed;
    if ('rejected' in answer) {
      const { reason, message, detail } = answer.rejected;
      throw new DocumentRejectedError(reason, message, detail ? { detail } : {});
    }
    throw Object.assign(new Error(answer.failed.message), { name: answer.failed.name });
  } finally {
    clearTimeout(timer);
    if (onMessage) worker.off('message', onMessage);
    if (onError) worker.off('error', onError);
    if (onExit) worker.off('exit', onExit);
    if (reusable) releaseThread(limits.parseHeapMb, worker);
    else await worker.terminate();
  }
}

async function answer(job: Job): Promise<Answer> {
  try {
    return { parsed: await parseDocument(job.bytes, job.input) };
  } catch (error) {
    if (isDocumentRejectedError(error)) {
      return {
        rejected: {
          reason: error.reason,
          message: error.message,
          ...(error.detail ? { detail: error.detail } : {}),
        },
      };
    }
    const e = error instanceof Error ? error : new Error(String(error));
    return { failed: { name: e.name, message: e.message } };
  }
}

const role = workerData as { role?: string; tid?: Int32Array } | undefined;
if (!isMainThread && role?.role === ROLE && parentPort) {
  const port = parentPort;
  recordThreadId(role.tid);
  // One document at a time: the parent sends the next only after this one's answer.
  port.on('message', (job: Job) => {
    void answer(job).then((a) => port.postMessage(a));
  });
  port.postMessage(READY);
}
