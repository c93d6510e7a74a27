/** Runs the package's bin entry as `npx clause-review` runs it, and collects what it printed. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';

/** How a CLI run ended: its exit code and everything it wrote. */
export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `clause-review <args>` in the project's root, with `env` as its environment. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/clause-review.js'), ...args], {
      cwd: PROJECT_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
