/**
 * The bounded parser for real: a worker thread with a heap limit, a CPU-time limit and a
 * wall-clock limit, run from source (as tests and the local CLI run it) and from an esbuild
 * bundle like the intake function's, where the worker is the bundle itself.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parserThreads, warmParserThread } from '../../lambdas/core/documents/bounded-parse.js';
import {
  DEFAULT_DOCUMENT_LIMITS,
  type DocumentRejectedError,
  isDocumentRejectedError,
  isParseOvertimeError,
  type ParseOvertimeError,
  parseDocument,
  parseDocumentBounded,
} from '../../lambdas/core/documents/index.js';
import { ESM_REQUIRE_BANNER } from '../../lib/pipeline-functions.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const CONTRACT = utf8(
  '1. Term. This Agreement lasts two years from the Effective Date.\n\n2. Fees. The Client pays each invoice within 30 days.',
);
/** Text whose splitting takes a while (200,000 candidate labels): long enough for a short deadline. */
const SLOW = utf8('1. '.repeat(200_000));
/** The README's sample contract. */
const SAMPLE = readFileSync(
  join(
    PROJECT_ROOT,
    'test/fixtures/contracts/BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt',
  ),
);

async function overtime(promise: Promise<unknown>): Promise<ParseOvertimeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isParseOvertimeError(error)) throw new Error(`expected a wall-clock overrun, got ${String(error)}`);
  return error;
}

async function rejection(promise: Promise<unknown>): Promise<DocumentRejectedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isDocumentRejectedError(error)) throw new Error(`expected a rejection, got ${String(error)}`);
  return error;
}

describe('parseDocumentBounded from source', () => {
  it('answers what parseDocument answers', async () => {
    const input = { key: 'a.txt', maxBytes: 1_000_000 };
    expect(await parseDocumentBounded(CONTRACT, input)).toEqual(await parseDocument(CONTRACT, input));
  });

  it('passes a rejection on with its reason, message and detail', async () => {
    const error = await rejection(parseDocumentBounded(utf8('   '), { key: 'a.txt', maxBytes: 1_000 }));
    expect(error.reason).toBe('empty');
    expect(error.message).toMatch(/only blank space/);
    expect(error.detail).toEqual({ bytes: 3 });
  });

  it('stops a parse past its CPU time and refuses the document as too complex', async () => {
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 200 };
    const error = await rejection(parseDocumentBounded(SLOW, { key: 'a.txt', maxBytes: 10_000_000, limits }));
    expect(error.reason).toBe('too-complex');
    expect(error.message).toMatch(/took more than 0\.2 s of processing/);
    expect(error.detail).toEqual({ parseCpuMs: 200 });
  });

  it('measures the CPU time from Linux where Node has no measure of the thread', async () => {
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 200 };
    const input = { key: 'a.txt', maxBytes: 10_000_000, limits };
    const error = await rejection(parseDocumentBounded(SLOW, input, { cpuSource: 'proc' }));
    expect(error.detail).toEqual({ parseCpuMs: 200 });
    const small = { key: 'a.txt', maxBytes: 1_000_000 };
    expect(await parseDocumentBounded(CONTRACT, small, { cpuSource: 'proc' })).toEqual(
      await parseDocument(CONTRACT, small),
    );
  });

  it('does not refuse a parse the wall clock stopped with CPU time to spare: it says to try again', async () => {
    // CPU time never runs ahead of the wall clock, so 50 ms of wall clock leave the minute unused.
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 60_000, parseWallMs: 50 };
    const error = await overtime(parseDocumentBounded(SLOW, { key: 'a.txt', maxBytes: 10_000_000, limits }));
    expect(isDocumentRejectedError(error)).toBe(false);
    expect(error.wallMs).toBe(50);
    expect(error.cpuLimitMs).toBe(60_000);
    expect(error.cpuMs).toBeLessThan(60_000);
    expect(error.message).toMatch(/the machine was busy/);
  });

  it('stops a parse that runs out of its heap and refuses the document as too complex', async () => {
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseHeapMb: 16 };
    const error = await rejection(parseDocumentBounded(SLOW, { key: 'a.txt', maxBytes: 10_000_000, limits }));
    expect(error.reason).toBe('too-complex');
    expect(error.message).toMatch(/more than 16 MB of memory/);
  });

  it('reads the next documents on the thread that answered, and never on one it stopped', async () => {
    const input = { key: 'a.txt', maxBytes: 1_000_000 };
    const expected = await parseDocument(CONTRACT, input);
    expect(await parseDocumentBounded(CONTRACT, input)).toEqual(expected);
    const warm = parserThreads();
    for (let i = 0; i < 3; i++) expect(await parseDocumentBounded(CONTRACT, input)).toEqual(expected);
    expect(parserThreads()).toEqual(warm);

    // The stopped parse takes the idle thread and ends it; the next document gets a new one.
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 200 };
    await rejection(parseDocumentBounded(SLOW, { key: 'a.txt', maxBytes: 10_000_000, limits }));
    expect(parserThreads()).toEqual({ started: warm.started, idle: warm.idle - 1 });
    expect(await parseDocumentBounded(CONTRACT, input)).toEqual(expected);
    expect(parserThreads()).toEqual({ started: warm.started + 1, idle: warm.idle });
  });

  it('parses uploads at once on threads of their own, and keeps them for the next batch', async () => {
    const input = { key: 'a.txt', maxBytes: 1_000_000 };
    const expected = await parseDocument(CONTRACT, input);
    const batch = () => Promise.all(Array.from({ length: 5 }, () => parseDocumentBounded(CONTRACT, input)));
    expect(await batch()).toEqual(Array(5).fill(expected));
    const after = parserThreads();
    expect(after.idle).toBe(5);
    expect(await batch()).toEqual(Array(5).fill(expected));
    expect(parserThreads()).toEqual(after);
  });

  it('starts a thread ahead of the first document, which that document then reads on', async () => {
    // A heap limit of its own, so that no earlier test's thread waits for it.
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseHeapMb: 96 };
    const before = parserThreads();
    warmParserThread(limits);
    warmParserThread(limits);
    // One thread starts at once; it waits idle once its modules are loaded.
    expect(parserThreads()).toEqual({ started: before.started + 1, idle: before.idle });
    await vi.waitFor(() => expect(parserThreads().idle).toBe(before.idle + 1), { timeout: 30_000 });
    warmParserThread(limits);
    expect(parserThreads()).toEqual({ started: before.started + 1, idle: before.idle + 1 });
    const input = { key: 'a.txt', maxBytes: 1_000_000, limits };
    expect(await parseDocumentBounded(CONTRACT, input)).toEqual(await parseDocument(CONTRACT, input));
    expect(parserThreads()).toEqual({ started: before.started + 1, idle: before.idle + 1 });
  });
});

describe('parseDocumentBounded in an esbuild bundle (as the intake function runs it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clause-review-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the bundle itself as the worker, reuses it, and still stops at the CPU limit', async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      [
        `import { parseDocumentBounded, DEFAULT_DOCUMENT_LIMITS } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/core/documents/index.ts'))};`,
        `import { parserThreads } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/core/documents/bounded-parse.ts'))};`,
        'const utf8 = (s: string) => new TextEncoder().encode(s);',
        `const ok = await parseDocumentBounded(utf8(${JSON.stringify(new TextDecoder().decode(CONTRACT))}), { key: 'a.txt', maxBytes: 1e6 });`,
        `const again = await parseDocumentBounded(utf8(${JSON.stringify(new TextDecoder().decode(CONTRACT))}), { key: 'a.txt', maxBytes: 1e6 });`,
        "const slow = await parseDocumentBounded(utf8('1. '.repeat(200000)), { key: 'a.txt', maxBytes: 1e7, limits: { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 200 } }).catch((e) => e);",
        `const after = await parseDocumentBounded(utf8(${JSON.stringify(new TextDecoder().decode(CONTRACT))}), { key: 'a.txt', maxBytes: 1e6 });`,
        'console.log(JSON.stringify({ clauses: [ok, again, after].map((d) => d.clauses.length), slow: slow.reason, threads: parserThreads() }));',
      ].join('\n'),
    );
    const outfile = join(dir, 'index.mjs');
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minify: true,
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: 'error',
    });
    const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    // The idle thread kept at the end does not hold the process: it exits by itself (status 0).
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      clauses: [2, 2, 2],
      slow: 'too-complex',
      threads: { started: 2, idle: 1 },
    });
  }, 60_000);
});

describe('parseDocumentBounded on a busy machine', () => {
  const spinners: ChildProcess[] = [];
  afterAll(() => {
    for (const child of spinners) child.kill('SIGKILL');
  });

  it('accepts the README sample while every core is busy with other work', async () => {
    // Two spinning processes per core: the parser thread gets a third of a core at best.
    const busy = availableParallelism() * 2;
    for (let i = 0; i < busy; i++) {
      spinners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
    // Let the spinners take the cores before the parse starts.
    await new Promise((r) => setTimeout(r, 1000));
    // A second of the thread's CPU, twenty times what the sample needs, on a thread of its own
    // (a heap limit no other test uses), started under the load as a cold intake starts one.
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseCpuMs: 1_000, parseHeapMb: 200 };
    const input = { key: 'sample.txt', maxBytes: 10 * 1024 * 1024, limits };
    const startedAt = performance.now();
    const parsed = await parseDocumentBounded(SAMPLE, input);
    const wallMs = Math.round(performance.now() - startedAt);
    for (const child of spinners) child.kill('SIGKILL');
    expect(parsed.clauses.length).toBe((await parseDocument(SAMPLE, input)).clauses.length);
    expect(parsed.clauses.length).toBeGreaterThan(300);
    console.log(
      `README sample parsed under ${busy} spinning processes on ${availableParallelism()} cores ` +
        `(load ${loadavg()[0]?.toFixed(1)}): ${wallMs} ms of wall clock with the thread's start, ` +
        `within a CPU limit of ${limits.parseCpuMs} ms; ${parsed.clauses.length} clauses`,
    );
  }, 120_000);
});
