/**
 * The size rule, held the way import-boundaries.test.ts holds the layering: no source file in
 * lambdas/, lib/, bin/, localstack/ or .ci/ over 400 lines, whatever its language (TypeScript,
 * JavaScript, Python, CSS, HTML, shell, Java, a Dockerfile), no test module (test/, TypeScript)
 * over 500, and no TypeScript function in the sources over 80, which Biome counts
 * (`noExcessiveLinesPerFunction`, blank lines skipped) as an error in `npx biome check`. This test
 * holds the first two itself and holds Biome's configuration of the third, so none can be dropped
 * quietly. Outside the rule: data (JSON, YAML, XML, text), generated modules and type
 * declarations; a file of a kind named in neither list fails the test until it is named in one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIRS = ['lambdas', 'lib', 'bin', 'localstack', '.ci'] as const;
/** The folders Biome's function rule covers (it reads TypeScript and JavaScript). */
const FUNCTION_DIRS = ['lambdas', 'lib', 'bin', 'localstack'] as const;
const MAX_FILE_LINES = 400;
/** Test modules: a test file, or the fixtures and helpers tests share. */
const MAX_TEST_FILE_LINES = 500;
const MAX_FUNCTION_LINES = 80;
/** Source languages, by how a file's name ends. */
const SOURCE = ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.py', '.css', '.html', '.sh', '.java'];
/** Data and configuration: not held to the rule. */
const DATA = ['.json', '.yaml', '.yml', '.xml', '.txt', '.md'];
/** Made by a tool, not written: outside the rule. */
const GENERATED = ['.generated.ts', '.d.ts'];
const SKIPPED_DIRS = new Set(['node_modules', '__pycache__', 'cdk.out']);

/** Every file under `dir`, relative to the root. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : files(path);
    return [relative(ROOT, path)];
  });
}

/** What the rule makes of a file: a source to hold, data or generated to leave, or unknown. */
function kindOf(path: string, text: () => string): 'source' | 'outside' | 'unknown' {
  const name = basename(path);
  if (GENERATED.some((end) => name.endsWith(end))) return 'outside';
  if (SOURCE.includes(extname(name)) || name === 'Dockerfile') return 'source';
  if (DATA.includes(extname(name))) return 'outside';
  // An executable script without an extension (`.ci/run`) says its language on its first line.
  return extname(name) === '' && text().startsWith('#!') ? 'source' : 'unknown';
}

const ALL = DIRS.flatMap((d) => files(join(ROOT, d)));
const TESTS = files(join(ROOT, 'test')).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

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
  it(`keeps every source file at ${MAX_FILE_LINES} lines or fewer, in every language`, () => {
    const long = ALL.filter((f) => kindOf(f, () => read(f)) === 'source')
      .map((path) => ({ path, lines: lineCount(read(path)) }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.path} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });

  it(`keeps every test module at ${MAX_TEST_FILE_LINES} lines or fewer`, () => {
    const long = TESTS.map((path) => ({ path, lines: lineCount(read(path)) }))
      .filter((f) => f.lines > MAX_TEST_FILE_LINES)
      .map((f) => `${f.path} (${f.lines} lines)`);
    expect(TESTS.length).toBeGreaterThan(300);
    expect(long).toEqual([]);
  });

  it('knows every kind of file in those folders, so a new language is not left out unseen', () => {
    expect(ALL.filter((f) => kindOf(f, () => read(f)) === 'unknown')).toEqual([]);
  });

  it("reads a file's kind from its name, or from its first line when it has no extension", () => {
    const kinds = (
      [
        ['localstack/moto_serve.py', ''],
        ['lambdas/app/app.css', ''],
        ['lambdas/app/index.html', ''],
        ['lambdas/batch-worker/Dockerfile', ''],
        ['.ci/run', '#!/usr/bin/env bash\n'],
        ['lambdas/core/finalize/report-assets.generated.ts', ''],
        ['localstack/bedrock/learned/weights.json', ''],
        ['localstack/notes', 'plain words\n'],
        ['localstack/tool.rs', ''],
      ] as const
    ).map(([path, text]) => kindOf(path, () => text));
    expect(kinds).toEqual([
      'source',
      'source',
      'source',
      'source',
      'source',
      'outside',
      'outside',
      'unknown',
      'unknown',
    ]);
  });

  it(`has Biome refuse a function over ${MAX_FUNCTION_LINES} lines in every one of those folders`, () => {
    const biome = JSON.parse(readFileSync(join(ROOT, 'biome.json'), 'utf8')) as {
      overrides?: BiomeOverride[];
    };
    const covered = FUNCTION_DIRS.filter((dir) =>
      (biome.overrides ?? []).some((o) => {
        const rule = o.linter?.rules?.complexity?.noExcessiveLinesPerFunction;
        return (
          o.includes?.includes(`${dir}/**`) &&
          rule?.level === 'error' &&
          rule.options?.maxLines === MAX_FUNCTION_LINES
        );
      }),
    );
    expect(covered).toEqual([...FUNCTION_DIRS]);
  });

  it('counts lines as an editor shows them', () => {
    expect(lineCount('')).toBe(0);
    expect(lineCount('a')).toBe(1);
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\n\nb')).toBe(3);
  });
});
