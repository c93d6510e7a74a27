/**
 * Parsing where it can be stopped. PDF and DOCX readers and the clause splitter run synchronous
 * code that nothing in the same thread can interrupt, so a document that makes them work too
 * long or allocate too much would hold intake until Lambda kills it, on every retry. Here the
 * parse runs in a worker thread with a heap limit, and is terminated at a deadline; either way
 * the document is refused as `too-complex`, with the object left where it was.
 *
 * The worker runs this very module: in the Lambda bundle that is the handler's own file, so no
 * second bundle is needed; from source (tests, the local CLI) it is this file, loaded with tsx.
 * A thread that answered reads the next document too (it stays warm between invocations in
 * Lambda); one stopped at a deadline or out of memory is ended.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  DocumentRejectedError,
  isDocumentRejectedError,
  type RejectionDetail,
  type RejectionReason,
} from './errors.js';
import { DEFAULT_DOCUMENT_LIMITS, type DocumentLimits } from './limits.js';
import { type ParsedDocument, type ParseInput, parseDocument } from './parse.js';

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
 * a thread stopped at its deadline or out of its heap is never reused. Idle threads do not keep
 * the process alive.
 */
const idle = new Map<number, Worker[]>();
/** Idle threads kept per heap limit: intake parses a batch of up to five uploads at once. */
const MAX_IDLE_THREADS = 5;
let threadsStarted = 0;

/** How many parser threads this process has started, and how many wait idle. */
export function parserThreads(): { readonly started: number; readonly idle: number } {
  return { started: threadsStarted, idle: [...idle.values()].reduce((n, ws) => n + ws.length, 0) };
}

function startThread(heapMb: number): Worker {
  const options = {
    workerData: { role: ROLE },
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
  return worker;
}

/**
 * Starts a parser thread before the first document asks for one, unless one waits idle already:
 * a thread's start loads the module graph (about a second of CPU from source), which the first
 * upload of a process would otherwise wait for before its parse even begins.
 */
export function warmParserThread(
  limits: Pick<DocumentLimits, 'parseHeapMb'> = DEFAULT_DOCUMENT_LIMITS,
): void {
  if ((idle.get(limits.parseHeapMb)?.length ?? 0) > 0) return;
  releaseThread(limits.parseHeapMb, startThread(limits.parseHeapMb));
}

function takeThread(heapMb: number): Worker {
  const worker = idle.get(heapMb)?.pop() ?? startThread(heapMb);
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

/**
 * {@link parseDocument} in a worker thread bounded by `input.limits` (parse time and heap).
 *
 * @throws {DocumentRejectedError} as parseDocument does, and `too-complex` when the parse runs
 *   past its deadline or out of its heap.
 */
export async function parseDocumentBounded(bytes: Uint8Array, input: ParseInput): Promise<ParsedDocument> {
  const limits = input.limits ?? DEFAULT_DOCUMENT_LIMITS;
  const job: Job = { bytes: bytes.slice(), input };
  const worker = takeThread(limits.parseHeapMb);
  const seconds = (limits.parseTimeoutMs / 1000).toLocaleString('en-US');
  let reusable = false;
  let onMessage: ((answer: Answer) => void) | undefined;
  let onError: ((error: Error & { code?: string }) => void) | undefined;
  let onExit: ((code: number) => void) | undefined;
  try {
    const answer = await new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new DocumentRejectedError(
            'too-complex',
            `Reading the document took longer than ${seconds} s, far longer than any contract needs, so it was stopped. ` +
              'Save or export the contract again as plain PDF, Word or text, and upload that.',
            { detail: { parseTimeoutMs: limits.parseTimeoutMs } },
          ),
        );
      }, limits.parseTimeoutMs);
      onMessage = (answer) => {
        clearTimeout(timer);
        reusable = true;
        resolve(answer);
      };
      onError = (error) => {
        clearTimeout(timer);
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new DocumentRejectedError(
                'too-complex',
                `Reading the document needed more than ${limits.parseHeapMb} MB of memory, far more than any contract needs, so it was stopped. ` +
                  'Save or export the contract again as plain PDF, Word or text, and upload that.',
                { cause: error, detail: { parseHeapMb: limits.parseHeapMb } },
              )
            : error,
        );
      };
      onExit = (code) => {
        clearTimeout(timer);
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

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === ROLE && parentPort) {
  const port = parentPort;
  // One document at a time: the parent sends the next only after this one's answer.
  port.on('message', (job: Job) => {
    void answer(job).then((a) => port.postMessage(a));
  });
}
