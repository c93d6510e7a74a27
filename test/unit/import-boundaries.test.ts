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

describe('import boundaries', () => {
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
