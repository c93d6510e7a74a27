/**
 * Installs LocalStack to run on this machine without Docker (host mode), inside the project:
 * its virtualenv on Python 3.13 with the pins it needs, and what its DynamoDB provider would
 * download at start (Java 21, DynamoDB Local 2.x and a Java agent), from what is here instead:
 * the system JDK (17 or later, which DynamoDB Local 2.x needs), DynamoDB Local 2.6.1 and its
 * dependencies from Maven Central, and an agent compiled from `dynamodb-local/NoOpAgent.java`.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { guardOf } from '../lambdas/core/error-guard.js';
import { LocalStackError } from './errors.js';
import { ensureVenv, PROJECT_ROOT } from './python-venv.js';

/** The pinned LocalStack requirements. */
export const LOCALSTACK_REQUIREMENTS = join(PROJECT_ROOT, 'localstack', 'requirements-localstack.txt');

/** Where LocalStack's host-mode file system lives (`FILESYSTEM_ROOT`): its libraries, cache and state. */
export const LOCALSTACK_ROOT = join(PROJECT_ROOT, '.localstack');

/** LocalStack's `config.dirs.var_libs` under {@link LOCALSTACK_ROOT}. */
export const LOCALSTACK_LIBS = join(LOCALSTACK_ROOT, 'var', 'lib', 'localstack', 'lib');

/** DynamoDB Local as LocalStack's installer lays it out (`dynamodb-local/2`). */
const DDB_DIR = join(LOCALSTACK_LIBS, 'dynamodb-local', '2');
const DDB_VERSION = '2.6.1';

/** Something LocalStack needs could not be installed; the message says what to do. */
export class LocalStackInstallError extends LocalStackError {
  override readonly name = 'LocalStackInstallError';
}

/** True when installing LocalStack's parts failed. */
export const isLocalStackInstallError = guardOf(LocalStackInstallError);

/** What a LocalStack start needs: the venv's Python and the file-system root. */
export interface LocalStackInstall {
  readonly python: string;
  readonly root: string;
}

function run(cmd: string, args: string[], cwd?: string): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...(cwd ? { cwd } : {}) });
  if (r.error) return { ok: false, out: r.error.message };
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

function must(what: string, r: { ok: boolean; out: string }, fix: string): string {
  if (!r.ok) throw new LocalStackInstallError(`${what} failed (${r.out.slice(-600)}). ${fix}`);
  return r.out;
}

/**
 * Python 3.13 (LocalStack 2026.3 does not import on 3.11 or 3.12): `$LOCALSTACK_PYTHON`,
 * `python3.13` on PATH, or a pyenv 3.13 install.
 */
export function findPython313(): string {
  const candidates = [process.env.LOCALSTACK_PYTHON];
  const pyenv = join(process.env.PYENV_ROOT ?? join(process.env.HOME ?? '/root', '.pyenv'), 'versions');
  if (existsSync(pyenv)) {
    for (const v of readdirSync(pyenv)
      .filter((v) => v.startsWith('3.13'))
      .sort()
      .reverse()) {
      candidates.push(join(pyenv, v, 'bin', 'python3.13'));
    }
  }
  candidates.push(...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'python3.13')));
  // A pyenv shim exists on PATH even where it cannot run the version: ask each one.
  const found = candidates.find(
    (c): c is string =>
      c !== undefined &&
      c !== '' &&
      existsSync(c) &&
      run(c, ['-c', 'import sys; assert sys.version_info[:2] == (3, 13)']).ok,
  );
  if (!found) {
    throw new LocalStackInstallError(
      'LocalStack 2026.3 needs Python 3.13, and none was found (LOCALSTACK_PYTHON, ~/.pyenv/versions/3.13*, python3.13 on PATH): install it (pyenv install 3.13) or set LOCALSTACK_PYTHON.',
    );
  }
  return found;
}

/** The system JDK's home, when its `java` is 17 or later. */
function javaHome(): string {
  const out = must(
    'java -XshowSettings:properties -version',
    run('java', ['-XshowSettings:properties', '-version']),
    'DynamoDB Local 2.x needs Java 17 or later: install a JDK (apt-get install openjdk-17-jdk-headless).',
  );
  const home = /java\.home = (.+)/.exec(out)?.[1]?.trim();
  const major = Number(/java\.specification\.version = (\d+)/.exec(out)?.[1] ?? '0');
  if (!home || major < 17) {
    throw new LocalStackInstallError(
      `DynamoDB Local 2.x needs Java 17 or later; 'java' is ${major || 'unknown'} (${home ?? 'no java.home'}).`,
    );
  }
  return home;
}

/**
 * A jar manifest: each line at most 72 bytes, continued on lines that start with a space, as
 * the JAR specification requires.
 */
export function manifestText(attributes: Readonly<Record<string, string>>): string {
  const lines: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    let rest = `${name}: ${value}`;
    lines.push(rest.slice(0, 72));
    rest = rest.slice(72);
    while (rest.length > 0) {
      lines.push(` ${rest.slice(0, 71)}`);
      rest = rest.slice(71);
    }
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * DynamoDB Local 2.6.1 from Maven Central: its jar as `DynamoDBLocal.jar`, its dependencies
 * (native SQLite libraries included) in `DynamoDBLocal_lib/`, and a manifest whose Class-Path
 * names them as Maven names them, since LocalStack starts it with `java -jar`.
 */
function installDynamoDbLocal(python: string, log: (line: string) => void): void {
  const jar = join(DDB_DIR, 'DynamoDBLocal.jar');
  if (existsSync(jar)) return;
  log(`fetching DynamoDB Local ${DDB_VERSION} and its dependencies from Maven Central into ${DDB_DIR}`);
  const lib = join(DDB_DIR, 'DynamoDBLocal_lib');
  mkdirSync(lib, { recursive: true });
  must(
    'mvn dependency:copy-dependencies',
    run('mvn', [
      '-q',
      '-B',
      '-f',
      join(PROJECT_ROOT, 'localstack', 'dynamodb-local', 'pom.xml'),
      'dependency:copy-dependencies',
      `-DoutputDirectory=${lib}`,
    ]),
    'Maven (mvn) must be installed and Maven Central reachable.',
  );
  const fetched = join(lib, `DynamoDBLocal-${DDB_VERSION}.jar`);
  const classPath = [
    '.',
    ...readdirSync(lib)
      .filter((f) => f.endsWith('.jar') && f !== `DynamoDBLocal-${DDB_VERSION}.jar`)
      .sort()
      .map((f) => `DynamoDBLocal_lib/${f}`),
  ].join(' ');
  const manifest = join(DDB_DIR, 'MANIFEST.MF');
  writeFileSync(
    manifest,
    manifestText({
      'Manifest-Version': '1.0',
      'Main-Class': 'com.amazonaws.services.dynamodbv2.local.main.ServerRunner',
      'Class-Path': classPath,
    }),
  );
  // The jar's own manifest names a differently laid-out lib folder: write ours in its place.
  const rewrite = `import sys, zipfile
src, dst, manifest = sys.argv[1:4]
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as zout:
    zout.writestr('META-INF/MANIFEST.MF', open(manifest, 'rb').read())
    for item in zin.infolist():
        if item.filename.upper() != 'META-INF/MANIFEST.MF':
            zout.writestr(item, zin.read(item.filename))
`;
  must(
    'rewriting the DynamoDB Local manifest',
    run(python, ['-c', rewrite, fetched, `${jar}.tmp`, manifest]),
    '',
  );
  renameSync(`${jar}.tmp`, jar);
  rmSync(fetched);
}

/** The agent LocalStack starts DynamoDB Local with, compiled from our no-op source. */
function installAgent(log: (line: string) => void): void {
  const agent = join(DDB_DIR, 'ddb-local-loader-0.1.jar');
  if (existsSync(agent)) return;
  log(`compiling the DynamoDB Local agent into ${agent}`);
  const build = mkdtempSync(join(tmpdir(), 'clause-review-agent-'));
  try {
    must(
      'javac NoOpAgent.java',
      run('javac', ['-d', build, join(PROJECT_ROOT, 'localstack', 'dynamodb-local', 'NoOpAgent.java')]),
      'A JDK (javac) 17 or later is needed.',
    );
    writeFileSync(
      join(build, 'MANIFEST.MF'),
      manifestText({ 'Manifest-Version': '1.0', 'Premain-Class': 'NoOpAgent' }),
    );
    must('jar', run('jar', ['cfm', agent, join(build, 'MANIFEST.MF'), '-C', build, 'NoOpAgent.class']), '');
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
}

/**
 * Makes sure LocalStack and what its DynamoDB needs are installed in the project; idempotent
 * and quick once done.
 * @throws PythonEnvironmentError or LocalStackInstallError naming what is missing
 */
export function ensureLocalStack(options: { log?: (line: string) => void } = {}): LocalStackInstall {
  const log = options.log ?? (() => {});
  const venvDir = process.env.CLAUSE_REVIEW_LOCALSTACK_VENV ?? join(PROJECT_ROOT, '.venv-localstack');
  ensureVenv({
    venvDir,
    python: findPython313(),
    requirementsFile: LOCALSTACK_REQUIREMENTS,
    marker: join('lib', 'python3.13', 'site-packages', 'localstack', 'runtime', 'main.py'),
    minPython: [3, 13],
    purpose: 'LocalStack 2026.3',
    log,
  });
  const python = join(venvDir, 'bin', 'python');
  // LocalStack's Java 21 slot: the system JDK (DynamoDB Local 2.x runs on 17 or later).
  const java = join(LOCALSTACK_LIBS, 'java', '21');
  if (!existsSync(join(java, 'bin', 'java'))) {
    mkdirSync(dirname(java), { recursive: true });
    rmSync(java, { recursive: true, force: true });
    symlinkSync(javaHome(), java);
  }
  installDynamoDbLocal(python, log);
  installAgent(log);
  return { python, root: LOCALSTACK_ROOT };
}
