/**
 * The bounded parser for real: a worker thread with a heap limit and a deadline, run from source
 * (as tests and the local CLI run it) and from an esbuild bundle like the intake function's,
 * where the worker is the bundle itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { parserThreads, warmParserThread } from '../../lambdas/core/documents/bounded-parse.js';
import {
  DEFAULT_DOCUMENT_LIMITS,
  type DocumentRejectedError,
  isDocumentRejectedError,
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

  it('stops a parse at its deadline and refuses the document as too complex', async () => {
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseTimeoutMs: 200 };
    const error = await rejection(parseDocumentBounded(SLOW, { key: 'a.txt', maxBytes: 10_000_000, limits }));
    expect(error.reason).toBe('too-complex');
    expect(error.message).toMatch(/took longer than 0\.2 s/);
    expect(error.detail).toEqual({ parseTimeoutMs: 200 });
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
    const limits = { ...DEFAULT_DOCUMENT_LIMITS, parseTimeoutMs: 200 };
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
    expect(parserThreads()).toEqual({ started: before.started + 1, idle: before.idle + 1 });
    const input = { key: 'a.txt', maxBytes: 1_000_000, limits };
    expect(await parseDocumentBounded(CONTRACT, input)).toEqual(await parseDocument(CONTRACT, input));
    expect(parserThreads()).toEqual({ started: before.started + 1, idle: before.idle + 1 });
  });
});

describe('parseDocumentBounded in an esbuild bundle (as the intake function runs it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'clause-review-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the bundle itself as the worker, reuses it, and still stops at the deadline', async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      [
        `import { parseDocumentBounded, DEFAULT_DOCUMENT_LIMITS } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/core/documents/index.ts'))};`,
        `import { parserThreads } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/core/documents/bounded-parse.ts'))};`,
        'const utf8 = (s: string) => new TextEncoder().encode(s);',
        `const ok = await parseDocumentBounded(utf8(${JSON.stringify(new TextDecoder().decode(CONTRACT))}), { key: 'a.txt', maxBytes: 1e6 });`,
        `const again = await parseDocumentBounded(utf8(${JSON.stringify(new TextDecoder().decode(CONTRACT))}), { key: 'a.txt', maxBytes: 1e6 });`,
        "const slow = await parseDocumentBounded(utf8('1. '.repeat(200000)), { key: 'a.txt', maxBytes: 1e7, limits: { ...DEFAULT_DOCUMENT_LIMITS, parseTimeoutMs: 200 } }).catch((e) => e);",
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
