/**
 * The size rule, held the way import-boundaries.test.ts holds the layering: no source file in
 * lambdas/, lib/, bin/ or localstack/ over 500 lines, and no function there over 80, which Biome
 * counts (`noExcessiveLinesPerFunction`, blank lines skipped) as an error in `npx biome check`.
 * This test holds the first itself and holds Biome's configuration of the second, so neither
 * can be dropped quietly. Outside the rule, as in `biome.json`: generated files and the report
 * page's own assets.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DIRS = ['lambdas', 'lib', 'bin', 'localstack'] as const;
const MAX_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;
const ASSETS = 'lambdas/core/finalize/assets/';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    if (!e.name.endsWith('.ts') || e.name.endsWith('.d.ts') || e.name.endsWith('.generated.ts')) return [];
    return relative(ROOT, path).startsWith(ASSETS) ? [] : [path];
  });
}

/** Lines of a source, a final newline not counting as one more. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

interface BiomeOverride {
  readonly includes?: readonly string[];
  readonly linter?: {
    readonly rules?: {
      readonly complexity?: {
        readonly noExcessiveLinesPerFunction?: {
          readonly level?: string;
          readonly options?: { readonly maxLines?: number; readonly skipBlankLines?: boolean };
        };
      };
    };
  };
}

describe('the size rule', () => {
  it(`keeps every source file at ${MAX_FILE_LINES} lines or fewer`, () => {
    const long = DIRS.flatMap((d) => sources(join(ROOT, d)))
      .map((f) => ({ path: relative(ROOT, f), lines: lineCount(readFileSync(f, 'utf8')) }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.path} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });

  it(`has Biome refuse a function over ${MAX_FUNCTION_LINES} lines in every one of those folders`, () => {
    const biome = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as {
      overrides?: BiomeOverride[];
    };
    const covered = DIRS.filter((dir) =>
      (biome.overrides ?? []).some((o) => {
        const rule = o.linter?.rules?.complexity?.noExcessiveLinesPerFunction;
        return (
          o.includes?.includes(`${dir}/**`) &&
          rule?.level === 'error' &&
          rule.options?.maxLines === MAX_FUNCTION_LINES
        );
      }),
    );
    expect(covered).toEqual([...DIRS]);
  });

  it('counts lines as an editor shows them', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\n\nb')).toBe(3);
  });
});
