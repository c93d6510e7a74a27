import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PythonEnvironmentError } from './errors.js';

/** Root of the project (the folder holding package.json). */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The pinned moto requirements. */
export const REQUIREMENTS_FILE = join(PROJECT_ROOT, 'localstack', 'requirements.txt');

/** Options for {@link ensureMotoVenv}. */
export interface MotoVenvOptions {
  /**
   * Where the virtualenv lives.
   * @default `$CLAUSE_REVIEW_VENV` or `<project>/.venv-moto`
   */
  readonly venvDir?: string;
  /** @default `$PYTHON` or 'python3' */
  readonly python?: string;
  /** Progress lines (installing takes a few seconds the first time). */
  readonly log?: (line: string) => void;
}

const MIN_PYTHON: readonly [number, number] = [3, 10];

function run(cmd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.error) return { ok: false, out: r.error.message };
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/** A virtualenv to make: where, from which Python, with what, and the file that shows it is done. */
export interface VenvSpec {
  readonly venvDir: string;
  readonly python: string;
  readonly requirementsFile: string;
  /** Path relative to the venv that exists once the install worked (`bin/moto_server`). */
  readonly marker: string;
  /** Oldest Python the requirements run on. */
  readonly minPython: readonly [number, number];
  /** What the venv is for, in messages (`the local AWS emulator (moto)`). */
  readonly purpose: string;
  readonly log?: (line: string) => void;
}

/**
 * Makes sure a project-local virtualenv holds pinned requirements and returns the path of its
 * marker. Idempotent: a stamp file with the hash of the requirements skips the install when
 * nothing changed.
 *
 * @throws PythonEnvironmentError naming what to install when Python, venv or pip is missing.
 */
export function ensureVenv(spec: VenvSpec): string {
  const { venvDir, python } = spec;
  const log = spec.log ?? (() => {});
  const requirements = readFileSync(spec.requirementsFile, 'utf8');
  const wanted = createHash('sha256').update(requirements).digest('hex');
  const stamp = join(venvDir, '.requirements.sha256');
  const marker = join(venvDir, spec.marker);
  if (existsSync(marker) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return marker;

  const min = spec.minPython.join('.');
  const version = run(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
  if (!version.ok) {
    throw new PythonEnvironmentError(
      `'${python}' was not found or does not run (${version.out}). ${spec.purpose} needs Python ${min} or newer: install it (Debian/Ubuntu: apt-get install python3 python3-venv), or set PYTHON to its path.`,
    );
  }
  const [major = 0, minor = 0] = version.out.split('.').map(Number);
  const [minMajor, minMinor] = spec.minPython;
  if (major < minMajor || (major === minMajor && minor < minMinor)) {
    throw new PythonEnvironmentError(
      `'${python}' is Python ${version.out}; ${spec.purpose} needs ${min} or newer. Install a newer Python or set PYTHON to one.`,
    );
  }
  if (!existsSync(join(venvDir, 'bin', 'pip'))) {
    log(`creating Python virtualenv in ${venvDir}`);
    const venv = run(python, ['-m', 'venv', venvDir]);
    if (!venv.ok) {
      throw new PythonEnvironmentError(
        `could not create a virtualenv with '${python} -m venv' (${venv.out}). Install Python's venv module (Debian/Ubuntu: apt-get install python3-venv).`,
      );
    }
  }
  log(`installing ${requirements.trim().split('\n').join(', ')} into ${venvDir}`);
  const pip = run(join(venvDir, 'bin', 'pip'), [
    'install',
    '--disable-pip-version-check',
    '-q',
    '-r',
    spec.requirementsFile,
  ]);
  if (!pip.ok || !existsSync(marker)) {
    throw new PythonEnvironmentError(
      `pip could not install ${spec.requirementsFile} (${pip.out.slice(-800)}). Check that PyPI is reachable, or install it by hand into ${venvDir}.`,
    );
  }
  writeFileSync(stamp, wanted);
  return marker;
}

/**
 * Makes sure the project-local virtualenv holds the pinned moto server and returns the
 * path of its `moto_server` executable.
 *
 * @throws PythonEnvironmentError naming what to install when python3, venv or pip is missing.
 */
export function ensureMotoVenv(options: MotoVenvOptions = {}): string {
  return ensureVenv({
    venvDir: options.venvDir ?? process.env.CLAUSE_REVIEW_VENV ?? join(PROJECT_ROOT, '.venv-moto'),
    python: options.python ?? process.env.PYTHON ?? 'python3',
    requirementsFile: REQUIREMENTS_FILE,
    marker: join('bin', 'moto_server'),
    minPython: MIN_PYTHON,
    purpose: 'The local AWS emulator (moto)',
    ...(options.log ? { log: options.log } : {}),
  });
}
