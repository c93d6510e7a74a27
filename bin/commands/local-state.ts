import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ProvisionedResources } from '../../localstack/provision.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';

/** What `local up` writes for other terminals: where everything runs, and its process id. */
export interface LocalState {
  readonly pid: number;
  readonly startedAt: string;
  readonly region: string;
  readonly awsEndpoint: string;
  readonly bedrockEndpoint: string;
  readonly apiUrl: string;
  /** Sign-in for people on the emulator (absent where the emulator has no Cognito). */
  readonly userPoolId?: string;
  readonly userPoolClientId?: string;
  readonly identityPoolId?: string;
  /** The reviewer app, served on loopback beside the API. */
  readonly appUrl?: string;
  readonly resources: ProvisionedResources;
}

/**
 * The state file of a running `local up`: `.clause-review/local.json` in the project (or under
 * `CLAUSE_REVIEW_STATE_DIR`), so `local down` and `--local` find it from any terminal.
 */
export function localStateFile(env: Record<string, string | undefined> = process.env): string {
  return join(env.CLAUSE_REVIEW_STATE_DIR ?? join(PROJECT_ROOT, '.clause-review'), 'local.json');
}

/** The state of a running local stack, or undefined when none was started. */
export function readLocalState(file = localStateFile()): LocalState | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as LocalState;
}

export function writeLocalState(state: LocalState, file = localStateFile()): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** Removes the state file, but only if it still belongs to `pid` (a newer `local up` may own it). */
export function removeLocalState(pid: number, file = localStateFile()): void {
  const state = readLocalState(file);
  if (state && state.pid === pid) rmSync(file, { force: true });
}

/** True when a process with this id exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
