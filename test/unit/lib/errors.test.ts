/**
 * The validation rule of the infrastructure code, held the way import-boundaries.test.ts holds
 * the layering: lib/ raises no plain Error (every refusal is a ValidationError from
 * lib/errors.ts, or a subclass, carrying the construct it concerns), defines no error class
 * outside that family but the one the CLI reads deployed outputs with, and checks no number by
 * hand: ranges go through `checkRange` (lib/checks.ts) and its wording in lib/number-range.ts.
 * A check by hand is a test of a number's kind (`Number.isInteger`, `isSafeInteger`, `isFinite`,
 * `isNaN`, `% 1`) or a comparison with a bound (a number or a CONSTANT; a count's `.length` or
 * `.size` against one is no range).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
/** The one module allowed to test numbers: the range wording every check shares. */
const RANGE_MODULE = 'lib/number-range.ts';
/**
 * Error classes lib/ may define outside the ValidationError family, with why: StackOutputsError
 * is raised by the CLI reading a deployed stack's outputs, not by any construct or flag.
 */
const OTHER_ERRORS: Readonly<Record<string, string>> = { StackOutputsError: 'lib/stack-outputs.ts' };
const BUILT_IN_ERRORS = 'Error|TypeError|RangeError|SyntaxError';
/** A test of a number's kind. */
const NUMBER_KIND = /\b(?:Number\.)?(?:isInteger|isSafeInteger|isFinite|isNaN)\s*\(|%\s*1\b/;
/** A comparison with a bound: a number or a CONSTANT on either side, and no count on the left. */
const BOUND =
  /(?<!\.(?:length|size))\s(?:<|>|<=|>=)\s+(?:-?\d|[A-Z][A-Z0-9_]+\b)|\b(?:\d[\d_.]*|[A-Z][A-Z0-9_]+)\s(?:<|>|<=|>=)\s/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * A source without its comments (block comments, and line comments on lines of their own),
 * keeping its line breaks so that line numbers still point into the file.
 */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, '')).replace(/^[ \t]*\/\/.*$/gm, '');
}

/** Places in `text` (of `file`, relative to the root) that break the rule, one line each. */
function breaches(file: string, text: string): string[] {
  const found: string[] = [];
  const body = code(text);
  const lineOf = (index: number) => body.slice(0, index).split('\n').length;
  for (const m of body.matchAll(new RegExp(`\\b(?:new|throw)\\s+(${BUILT_IN_ERRORS})\\s*\\(`, 'g'))) {
    found.push(`${file}:${lineOf(m.index)} raises a plain ${m[1]}`);
  }
  for (const m of body.matchAll(
    new RegExp(`\\bclass\\s+(\\w+)\\s+extends\\s+(?:${BUILT_IN_ERRORS})\\b`, 'g'),
  )) {
    const name = m[1] ?? '';
    const allowed = (name === 'ValidationError' && file === 'lib/errors.ts') || OTHER_ERRORS[name] === file;
    if (!allowed) found.push(`${file}:${lineOf(m.index)} defines ${name} outside the ValidationError family`);
  }
  if (file !== RANGE_MODULE) {
    body.split('\n').forEach((line, i) => {
      if (NUMBER_KIND.test(line) || BOUND.test(line))
        found.push(`${file}:${i + 1} checks a number by hand instead of through checkRange`);
    });
  }
  return found;
}

describe('validation errors in lib/', () => {
  it('are ValidationErrors, and ranges are checked through checkRange', () => {
    const found = sources(join(ROOT, 'lib')).flatMap((f) =>
      breaches(relative(ROOT, f), readFileSync(f, 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('finds a plain Error however it is raised, and not one named in a comment or a cast', () => {
    const text = [
      '/**',
      ' * Throws new Error(…) no more.',
      ' */',
      '// throw new Error("old")',
      'const bad = () => new Error(`x`);',
      'if (x) throw Error("y");',
      'throw new',
      '  TypeError("z");',
      'const m = (error as Error).message;',
      "throw new ValidationError('OutOfRange', m, this);",
    ].join('\n');
    expect(breaches('lib/x.ts', text)).toEqual([
      'lib/x.ts:5 raises a plain Error',
      'lib/x.ts:6 raises a plain Error',
      'lib/x.ts:7 raises a plain TypeError',
    ]);
  });

  it('finds an error class outside the family, and a hand-written integer check', () => {
    const text = [
      'export class QueueError extends Error {}',
      'export class FlagError extends ValidationError {}',
      'if (!Number.isInteger(n) || n < 1) fail();',
    ].join('\n');
    expect(breaches('lib/x.ts', text)).toEqual([
      'lib/x.ts:1 defines QueueError outside the ValidationError family',
      'lib/x.ts:3 checks a number by hand instead of through checkRange',
    ]);
    expect(breaches('lib/errors.ts', 'export class ValidationError extends Error {}')).toEqual([]);
    expect(breaches(RANGE_MODULE, 'return Number.isInteger(value);')).toEqual([]);
  });

  it('finds a range checked by hand in any of its forms', () => {
    const text = [
      "if (typeof n !== 'number' || !Number.isSafeInteger(n)) fail();",
      'if (!Number.isFinite(rate)) fail();',
      'if (value % 1 !== 0) fail();',
      'if (n < 1) fail();',
      'if (days >= 3650) fail();',
      'if (budget > MAX_BUDGET_USD) fail();',
      'if (0 > n) fail();',
    ].join('\n');
    expect(breaches('lib/x.ts', text)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => `lib/x.ts:${n} checks a number by hand instead of through checkRange`),
    );
  });

  it('takes counts, generics and arrows for no range check', () => {
    const text = [
      'if (missing.length > 0) fail();',
      'const m = new Map<string, Readonly<Record<string, number>>>();',
      'const min = Math.min(...LANES.map((lane) => t.queues[lane].timeout));',
      'if (seen.size >= LIMITS.count) fail();',
      "const label = 'older > newer';",
    ].join('\n');
    expect(breaches('lib/x.ts', text)).toEqual([]);
  });
});
