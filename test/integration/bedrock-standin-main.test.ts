/** The stand-in as a standalone process (localstack/bedrock/main.ts). */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bedrock-stand-in-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function start(args: string[]): {
  child: ChildProcess;
  firstLine: Promise<string>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', 'localstack/bedrock/main.ts', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstLine = new Promise<string>((resolve) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', () => resolve(''));
  });
  return { child, firstLine, exit };
}

describe('main.ts', () => {
  it('prints its URL as one JSON line, serves the plan file and stops on SIGTERM', async () => {
    const planFile = join(dir, 'plan.json');
    await writeFile(planFile, JSON.stringify({ errorRates: { ThrottlingException: 0.5 } }));
    const { child, firstLine, exit } = start(['--port', '0', '--seed', '3', '--plan', planFile]);
    const { url } = JSON.parse(await firstLine) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const plan = (await (await fetch(`${url}/_stand-in/plan`)).json()) as { errorRates: unknown };
    expect(plan.errorRates).toEqual({ ThrottlingException: 0.5 });
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('refuses an invalid plan file with the reason', async () => {
    const planFile = join(dir, 'bad-plan.json');
    await writeFile(planFile, JSON.stringify({ errorRates: { ThrottlingException: 3 } }));
    const { child, exit } = start(['--plan', planFile]);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    expect(await exit).toBe(1);
    expect(stderr).toMatch(/errorRates\.ThrottlingException/);
  });
});
