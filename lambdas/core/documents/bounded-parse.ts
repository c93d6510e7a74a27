/**
 * Parsing where it can be stopped. PDF and DOCX readers and the clause splitter run synchronous
 * code that nothing in the same thread can interrupt, so a document that makes them work too
 * long or allocate too much would hold intake until Lambda kills it, on every retry. Here the
 * parse runs in a worker thread with a heap limit, and is terminated at a deadline; either way
 * the document is refused as `too-complex`, with the object left where it was.
 *
 * The worker runs this very module: in the Lambda bundle that is the handler's own file, so no
 * second bundle is needed; from source (tests, the local CLI) it is this file, loaded with tsx.
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
import { DEFAULT_DOCUMENT_LIMITS } from './limits.js';
import { type ParsedDocument, type ParseInput, parseDocument } from './parse.js';

const ROLE = 'clause-review:parse-document';

interface Job {
  readonly role: typeof ROLE;
  readonly bytes: Uint8Array;
  readonly input: ParseInput;
}

type Answer =
  | { readonly parsed: ParsedDocument }
  | { readonly rejected: { reason: RejectionReason; message: string; detail?: RejectionDetail } }
  | { readonly failed: { name: string; message: string } };

/**
 * {@link parseDocument} in a worker thread bounded by `input.limits` (parse time and heap).
 *
 * @throws {DocumentRejectedError} as parseDocument does, and `too-complex` when the parse runs
 *   past its deadline or out of its heap.
 */
export async function parseDocumentBounded(bytes: Uint8Array, input: ParseInput): Promise<ParsedDocument> {
  const limits = input.limits ?? DEFAULT_DOCUMENT_LIMITS;
  const fromSource = import.meta.url.endsWith('.ts');
  const job: Job = { role: ROLE, bytes: bytes.slice(), input };
  const options = {
    workerData: job,
    transferList: [job.bytes.buffer as ArrayBuffer],
    resourceLimits: { maxOldGenerationSizeMb: limits.parseHeapMb, maxYoungGenerationSizeMb: 32 },
    stdout: false,
    stderr: false,
  };
  const worker = fromSource
    ? // From source the worker needs the TypeScript loader its parent runs with (tsx).
      new Worker(
        `import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs'))})` +
          `.then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`,
        { ...options, eval: true },
      )
    : new Worker(new URL(import.meta.url), options);
  const seconds = (limits.parseTimeoutMs / 1000).toLocaleString('en-US');
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
      worker.once('message', (answer: Answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      worker.once('error', (error: Error & { code?: string }) => {
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
      });
      worker.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the document parser exited with code ${code} before answering`));
      });
    });
    if ('parsed' in answer) return answer.parsed;
    if ('rejected' in answer) {
      const { reason, message, detail } = answer.rejected;
      throw new DocumentRejectedError(reason, message, detail ? { detail } : {});
    }
    throw Object.assign(new Error(answer.failed.message), { name: answer.failed.name });
  } finally {
    await worker.terminate();
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

if (!isMainThread && (workerData as Partial<Job> | undefined)?.role === ROLE && parentPort) {
  const port = parentPort;
  void answer(workerData as Job).then((a) => port.postMessage(a));
}
