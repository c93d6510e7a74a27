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

/**
 * Makes sure the project-local virtualenv holds the pinned moto server and returns the
 * path of its `moto_server` executable. Idempotent: a stamp file with the hash of
 * requirements.txt skips the install when nothing changed.
 *
 * @throws PythonEnvironmentError naming what to install when python3, venv or pip is missing.
 */
export function ensureMotoVenv(options: MotoVenvOptions = {}): string {
  const venvDir = options.venvDir ?? process.env.CLAUSE_REVIEW_VENV ?? join(PROJECT_ROOT, '.venv-moto');
  const python = options.python ?? process.env.PYTHON ?? 'python3';
  const log = options.log ?? (() => {});
  const requirements = readFileSync(REQUIREMENTS_FILE, 'utf8');
  const wanted = createHash('sha256').update(requirements).digest('hex');
  const stamp = join(venvDir, '.requirements.sha256');
  const motoServer = join(venvDir, 'bin', 'moto_server');
  if (existsSync(motoServer) && existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted)
    return motoServer;

  const version = run(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
  if (!version.ok) {
    throw new PythonEnvironmentError(
      `'${python}' was not found or does not run (${version.out}). The local AWS emulator (moto) needs Python ${MIN_PYTHON.join('.')} or newer: install python3 (Debian/Ubuntu: apt-get install python3 python3-venv), or set PYTHON to its path.`,
    );
  }
  const [major = 0, minor = 0] = version.out.split('.').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new PythonEnvironmentError(
      `'${python}' is Python ${version.out}; moto needs ${MIN_PYTHON.join('.')} or newer. Install a newer python3 or set PYTHON to one.`,
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
    REQUIREMENTS_FILE,
  ]);
  if (!pip.ok || !existsSync(motoServer)) {
    throw new PythonEnvironmentError(
      `pip could not install moto from ${REQUIREMENTS_FILE} (${pip.out.slice(-800)}). Check that PyPI is reachable, or install it by hand into ${venvDir}.`,
    );
  }
  writeFileSync(stamp, wanted);
  return motoServer;
}
