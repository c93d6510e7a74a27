/**
 * Every job status is written by the one builder (`core/state/status-change.ts`), which moves
 * the status index the sweeper queries along with it: a status written anywhere else, or index
 * keys written by hand, fail here, the way import-boundaries.test.ts holds the layering.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const BUILDER = 'lambdas/core/state/status-change.ts';
/** Where the index's key format is defined. */
const KEYS = 'lambdas/core/state/keys.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sources(join(ROOT, 'lambdas')).map((f) => ({
  path: relative(ROOT, f),
  text: readFileSync(f, 'utf8'),
}));

/**
 * Status index keys written outside the builder: `gsi1pk`/`gsi1sk` anywhere but a query's key
 * condition, and `statusGsiPk(` anywhere but a query's values.
 */
function handWrittenIndexKeys(path: string, text: string): string[] {
  if (path === BUILDER || path === KEYS) return [];
  return text
    .split('\n')
    .map((line, i) => ({ line, at: `${path}:${i + 1}` }))
    .filter(({ line }) => /gsi1[ps]k/.test(line) && !line.includes('KeyConditionExpression'))
    .filter(({ line }) => !/IndexName|ProjectionExpression/.test(line))
    .map(({ at, line }) => `${at}: ${line.trim()}`)
    .concat(
      [...text.matchAll(/statusGsiPk\(/g)]
        .filter((m) => !/':pk':\s*$/.test(text.slice(Math.max(0, (m.index ?? 0) - 12), m.index)))
        .map(() => `${path}: statusGsiPk( outside a query`),
    );
}

/**
 * Job statuses set by hand: a `SET` of `#status` (or `status`) whose request's key, just
 * before it, is the job item's (`sk: JOB_SK`) rather than a checkpoint's or a ledger entry's.
 */
function handWrittenJobStatuses(path: string, text: string): string[] {
  if (path === BUILDER) return [];
  const found: string[] = [];
  for (const m of text.matchAll(/SET [^'`]*?(?:#status|\bstatus) = :/g)) {
    // The request's key comes just before its expression.
    const before = text.slice(Math.max(0, (m.index ?? 0) - 300), m.index);
    const keys = [...before.matchAll(/\bsk: ([A-Za-z_]+)/g)];
    if (keys.at(-1)?.[1] === 'JOB_SK') {
      const line = text.slice(0, m.index).split('\n').length;
      found.push(`${path}:${line}`);
    }
  }
  return found;
}

describe('job status writes', () => {
  it('go through status-change.ts, index keys included', () => {
    expect(files.flatMap((f) => handWrittenIndexKeys(f.path, f.text))).toEqual([]);
    expect(files.flatMap((f) => handWrittenJobStatuses(f.path, f.text))).toEqual([]);
  });

  it('would catch a status or index keys written by hand', () => {
    const handWritten = `
      new UpdateCommand({
        Key: { pk: jobPk(jobId), sk: JOB_SK },
        UpdateExpression: 'SET #status = :cancelled, updatedAt = :at, gsi1pk = :gpk, gsi1sk = :gsk',
        ExpressionAttributeValues: { ':gpk': statusGsiPk('cancelled') },
      })`;
    expect(handWrittenJobStatuses('lambdas/x.ts', handWritten)).toEqual(['lambdas/x.ts:4']);
    expect(handWrittenIndexKeys('lambdas/x.ts', handWritten)).toHaveLength(2);
    const checkpoint = `
      Key: { pk: jobPk(jobId), sk: JOB_SK },
      Key: { pk, sk: checkpointSk(chunk, stage) },
      UpdateExpression: 'SET #status = :done'`;
    expect(handWrittenJobStatuses('lambdas/x.ts', checkpoint)).toEqual([]);
    const query = `KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': statusGsiPk(status) }`;
    expect(handWrittenIndexKeys('lambdas/x.ts', query)).toEqual([]);
  });
});
