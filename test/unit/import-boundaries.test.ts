import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

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

/** The relative imports of a file under lib/ that reach into lambdas/ anywhere but the contracts module. */
function reachesOf(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
    const target = relative(ROOT, resolve(dirname(file), m[1] ?? ''));
    if (target.startsWith('lambdas/') && target !== 'lambdas/contracts.js')
      found.push(`${relative(ROOT, file)} → ${target}`);
  }
  return found;
}

describe('import boundaries', () => {
  it('infrastructure (lib/) reaches the runtime only through lambdas/contracts.ts', () => {
    const reaches = sources(join(ROOT, 'lib')).flatMap((f) => reachesOf(f, readFileSync(f, 'utf8')));
    expect(reaches).toEqual([]);
  });

  it('finds a lib/ import of any other runtime module', () => {
    const file = join(ROOT, 'lib/x.ts');
    const text = [
      "import { METRIC } from '../lambdas/core/metrics/index.js';",
      "import type { Lane } from '../lambdas/contracts.js';",
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
});
