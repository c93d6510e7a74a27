/**
 * How the runtime's and the local ground's errors are written (lambdas/core/error-guard.ts):
 * every error class names itself with a field that spells its own class name, because the
 * bundles are minified and a name taken from the class would be renamed; and the one type
 * guard helper is true for a class and its subclasses only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guardOf } from '../../../lambdas/core/error-guard.js';
import {
  HoldError,
  HoldStateError,
  isDecisionError,
  isHoldError,
} from '../../../lambdas/core/holds/errors.js';
import { isWriteRefused, StateError, WriteRefusedError } from '../../../lambdas/core/state/errors.js';

const ROOT = resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A class declaration: its name, what it extends, and its body up to the next top-level `}`. */
interface Declared {
  readonly file: string;
  readonly name: string;
  readonly base: string;
  readonly body: string;
}

function classesOf(file: string, text: string): Declared[] {
  return [
    ...text.matchAll(/^(?:export )?class (\w+)(?:<[^>{]*>)? extends (\w+)(?:<[^>{]*>)? \{\n([\s\S]*?)^\}/gm),
  ].map((m) => ({ file, name: m[1] ?? '', base: m[2] ?? '', body: m[3] ?? '' }));
}

/** The error classes among `declared`: those descending from Error through classes declared there. */
function errorClasses(declared: readonly Declared[]): Declared[] {
  const errors = new Set(['Error']);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of declared) {
      if (errors.has(c.base) && !errors.has(c.name)) {
        errors.add(c.name);
        grew = true;
      }
    }
  }
  return declared.filter((c) => c.name !== 'Error' && errors.has(c.base));
}

/** Why a class does not name itself as the rule asks, or undefined when it does. */
function namingProblem(c: Declared): string | undefined {
  const field = new RegExp(`^  override readonly name(?:: string)? = '${c.name}';$`, 'm');
  if (/\bthis\.name\s*=/.test(c.body)) return `${c.file}: ${c.name} sets this.name in its constructor`;
  if (!field.test(c.body)) return `${c.file}: ${c.name} does not name itself '${c.name}' with a field`;
  return undefined;
}

describe('error classes', () => {
  it('each name themselves with a field spelling their class name, in lambdas/ and localstack/', () => {
    const declared = ['lambdas', 'localstack'].flatMap((dir) =>
      sources(join(ROOT, dir)).flatMap((f) => classesOf(relative(ROOT, f), readFileSync(f, 'utf8'))),
    );
    const errors = errorClasses(declared);
    // The families of every errors.ts, and the lone classes beside them.
    expect(errors.length).toBeGreaterThan(60);
    expect(errors.flatMap((c) => namingProblem(c) ?? [])).toEqual([]);
  });

  it('finds a class that sets its name in the constructor, names itself wrongly or not at all', () => {
    const text = [
      'export class BaseError extends Error {',
      "  override readonly name: string = 'BaseError';",
      '}',
      'export class OldError extends BaseError {',
      '  constructor(message: string) {',
      '    super(message);',
      "    this.name = 'OldError';",
      '  }',
      '}',
      'export class CopiedError extends BaseError {',
      "  override readonly name = 'BaseError';",
      '}',
      'class SilentError extends OldError {',
      '  readonly code = 1;',
      '}',
      'class Plain extends Thing {',
      '}',
    ].join('\n');
    const found = errorClasses(classesOf('x.ts', text)).flatMap((c) => namingProblem(c) ?? []);
    expect(found).toEqual([
      'x.ts: OldError sets this.name in its constructor',
      "x.ts: CopiedError does not name itself 'CopiedError' with a field",
      "x.ts: SilentError does not name itself 'SilentError' with a field",
    ]);
  });

  it('keep their names, messages, causes and context', () => {
    const cause = new Error('ConditionalCheckFailedException');
    const refused = new WriteRefusedError('j-1', 'claim', { owner: 'w-2' }, { cause });
    expect([refused.name, refused.message, refused.cause, refused.jobId, refused.item]).toEqual([
      'WriteRefusedError',
      'the claim write of job j-1 was refused by its condition',
      cause,
      'j-1',
      { owner: 'w-2' },
    ]);
    expect(refused).toBeInstanceOf(StateError);
    const state = new HoldStateError('not paused', 'j-2', 'running');
    expect([state.name, state.message, state.jobId, state.status]).toEqual([
      'HoldStateError',
      'not paused',
      'j-2',
      'running',
    ]);
    expect(String(state)).toBe('HoldStateError: not paused');
  });
});

describe('guardOf', () => {
  it('is true for the class and its subclasses, and false for anything else', () => {
    const isHold = guardOf(HoldError);
    expect(isHold(new HoldError('x', 'j'))).toBe(true);
    expect(isHold(new HoldStateError('x', 'j', 'running'))).toBe(true);
    expect(isHold(new Error('x'))).toBe(false);
    expect(isHold({ name: 'HoldError', message: 'x' })).toBe(false);
    expect(isHold(undefined)).toBe(false);
    expect(isHoldError(new HoldStateError('x', 'j', 'running'))).toBe(true);
    expect(isDecisionError(new HoldStateError('x', 'j', 'running'))).toBe(false);
    expect(isWriteRefused(new WriteRefusedError('j', 'claim', undefined))).toBe(true);
    expect(isWriteRefused(new StateError('x', 'j'))).toBe(false);
  });
});
