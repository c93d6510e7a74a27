import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports (static, re-exports, dynamic) of a file under lambdas/ that leave lambdas/. */
function crossingsOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
    const target = relative(ROOT, resolve(dirname(file), m[1] ?? ''));
    if (!target.startsWith('lambdas/')) found.push(`${relative(ROOT, file)} → ${target}`);
  }
  return found;
}

/** The relative imports of a file under lib/ that reach into lambdas/ anywhere but lambdas/stack-interface.ts. */
function reachesOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
    const target = relative(ROOT, resolve(dirname(file), m[1] ?? ''));
    if (target.startsWith('lambdas/') && target !== 'lambdas/stack-interface.js')
      found.push(`${relative(ROOT, file)} → ${target}`);
  }
  return found;
}

/** Every relative import of a file (static, re-exports, type-only, dynamic), as paths from the root without extension. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)].map((m) =>
    relative(ROOT, resolve(dirname(file), m[1] ?? '')).replace(/\.js$/, ''),
  );
}

/** The import graph of the files under `dir`: each file (from the root, no extension) to what it imports. */
function graphOf(dir: string): Map<string, string[]> {
  return new Map(
    sources(join(ROOT, dir)).map((f) => [
      relative(ROOT, f).replace(/\.ts$/, ''),
      importsOf(f, readFileSync(f, 'utf8')),
    ]),
  );
}

/** The circles of a graph: its strongly connected parts of more than one file, each sorted (Tarjan). */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) part.push(w);
    if (part.length > 1) out.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/**
 * The floors of lambdas/core/, top first: a room (folder, or file of its own) imports only its
 * own floor and those below. The requests people make stand over what they read while a job runs,
 * over the stages that end or tidy a job, over those that hold and admit it; those rest on the
 * work a job does (the worker, the negotiation's reading, report.docx), the playbooks and the
 * state table, on the records every stage shares, on reading documents, and on the ground floor
 * of names and guards that import nothing of the pipeline.
 */
const FLOORS: readonly (readonly string[])[] = [
  ['jobs'],
  ['live'],
  ['finalize', 'sweeper', 'dlq', 'purge'],
  ['holds', 'intake'],
  ['worker', 'negotiation', 'report-docx', 'report-types'],
  ['playbooks', 'finalize-queue', 'model-shape-guard', 'stores'],
  ['state', 'screen', 'model-shape'],
  ['analysts', 'records'],
  ['documents', 'metrics'],
  ['clause', 'model-lifecycle'],
  ['lanes-and-limits', 'error-guard', 'json-bytes', 'model-catalogue', 'wordml'],
];

/** The rooms of lambdas/core/ that stand on no floor of {@link FLOORS}. */
function unfenced(): string[] {
  const rooms = readdirSync(join(ROOT, 'lambdas/core'), { withFileTypes: true })
    .filter((e) => e.isDirectory() || (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')))
    .map((e) => e.name.replace(/\.ts$/, ''));
  return rooms.filter((room) => !FLOORS.some((floor) => floor.includes(room)));
}

/** The imports in `graph` from a floor of {@link FLOORS} up to a higher one. */
function upwardOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const floorOf = (path: string) => {
    const [root, core, name] = path.split('/');
    if (root !== 'lambdas' || core !== 'core' || name === undefined) return -1;
    return FLOORS.findIndex((floor) => floor.includes(name));
  };
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => floorOf(from) > floorOf(to) && floorOf(to) >= 0).map((to) => `${from} → ${to}`),
  );
}

describe('import boundaries', () => {
  it('infrastructure (lib/) reaches the runtime only through lambdas/stack-interface.ts', () => {
    const reaches = sources(join(ROOT, 'lib')).flatMap((f) => reachesOf(f, readFileSync(f, 'utf8')));
    expect(reaches).toEqual([]);
  });

  it('finds a lib/ import of any other runtime module', () => {
    const file = join(ROOT, 'lib/x.ts');
    const text = [
      "import { METRIC } from '../lambdas/core/metrics/index.js';",
      "import type { Lane } from '../lambdas/stack-interface.js';",
      "export { API_ROUTES } from '../lambdas/api/routes.js';",
    ].join('\n');
    expect(reachesOf(file, text)).toEqual([
      'lib/x.ts → lambdas/core/metrics/index.js',
      'lib/x.ts → lambdas/api/routes.js',
    ]);
  });

  it('the batch worker image copies nothing from lib/', () => {
    const dockerfile = readFileSync(join(ROOT, 'lambdas/batch-worker/Dockerfile'), 'utf8');
    expect(dockerfile).not.toMatch(/^COPY\s+lib\b/m);
  });

  it('runtime code (lambdas/) never imports infrastructure code (lib/), bin/, localstack/ or test/', () => {
    const crossings = sources(join(ROOT, 'lambdas')).flatMap((f) => crossingsOf(f, readFileSync(f, 'utf8')));
    expect(crossings).toEqual([]);
  });

  it('finds such an import, a type-only one or a re-export too', () => {
    const file = join(ROOT, 'lambdas/core/x.ts');
    const text = [
      "import type { Lane } from '../../lib/topology.js';",
      "export { q } from '../../localstack/x.js';",
      "import { ok } from './contracts.js';",
    ].join('\n');
    expect(crossingsOf(file, text)).toEqual([
      'lambdas/core/x.ts → lib/topology.js',
      'lambdas/core/x.ts → localstack/x.js',
    ]);
  });

  it('no file of the job pipeline imports a folder on a higher floor of it', () => {
    expect(upwardOf(graphOf('lambdas/core'))).toEqual([]);
  });

  it('puts every room of the job pipeline on a floor', () => {
    expect(unfenced()).toEqual([]);
  });

  it('finds an import back up a floor, a type-only one too, and lets one down or across pass', () => {
    const graph = new Map([
      ['lambdas/core/state/jobs', ['lambdas/core/intake/quote', 'lambdas/core/state/keys']],
      ['lambdas/core/intake/admission', ['lambdas/core/finalize-queue', 'lambdas/core/holds/pause']],
      ['lambdas/core/holds/review', ['lambdas/core/finalize/report-types', 'lambdas/core/analysts/index']],
    ]);
    expect(upwardOf(graph)).toEqual([
      'lambdas/core/state/jobs → lambdas/core/intake/quote',
      'lambdas/core/holds/review → lambdas/core/finalize/report-types',
    ]);
    const file = join(ROOT, 'lambdas/core/state/jobs.ts');
    expect(importsOf(file, "import type { CostQuote } from '../intake/quote.js';")).toEqual([
      'lambdas/core/intake/quote',
    ]);
  });

  it('lambdas/text/ (shared with the browser bundles) imports nothing outside itself, no node module either', () => {
    const files = sources(join(ROOT, 'lambdas/text'));
    expect(files.length).toBeGreaterThan(3);
    const outside = files.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      const relativeOut = importsOf(f, text).filter((to) => !to.startsWith('lambdas/text/'));
      const packages = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^.'"][^'"]*)['"]/g)].map(
        (m) => m[1],
      );
      return [...relativeOut, ...packages].map((to) => `${relative(ROOT, f)} → ${to}`);
    });
    expect(outside).toEqual([]);
  });

  it('the pipeline (lambdas/core/) never imports the browser code (lambdas/app/), a type-only import neither', () => {
    const up = [...graphOf('lambdas/core')].flatMap(([from, targets]) =>
      targets.filter((to) => to.startsWith('lambdas/app/')).map((to) => `${from} → ${to}`),
    );
    expect(up).toEqual([]);
  });

  it('has no import circle in lambdas/ or lib/, type-only imports included', () => {
    expect(circlesOf(graphOf('lambdas'))).toEqual([]);
    expect(circlesOf(graphOf('lib'))).toEqual([]);
  });

  it('finds a circle through any number of files, and none in a chain', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', ['e']],
      ['e', []],
    ]);
    expect(circlesOf(graph)).toEqual([['a', 'b', 'c']]);
    expect(
      circlesOf(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });
});
