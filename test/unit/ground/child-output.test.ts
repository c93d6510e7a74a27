import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { watchChild } from '../../../localstack/child-output.js';

describe('watchChild', () => {
  it('keeps the last lines a server printed and its exit code, for the error a failed start raises', async () => {
    const child = spawn(
      process.execPath,
      [
        '-e',
        "for (let i = 0; i < 5; i++) console.log('line ' + i); console.error('failing'); process.exit(3)",
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const closed = new Promise((resolve) => child.once('close', resolve));
    const watched = watchChild(child, 3);
    expect(watched.exitCode()).toBeUndefined();
    await watched.gone;
    // Output written before the exit may still be in the pipes; it is all in once they close.
    await closed;
    expect(watched.exitCode()).toBe(3);
    expect(watched.output()).toContain('failing');
    expect(watched.output().split('\n').filter(Boolean).length).toBeLessThanOrEqual(6);
  });

  it('stops keeping output once quiet, without blocking the pipes', async () => {
    const child = spawn(process.execPath, ['-e', "setTimeout(() => { console.log('later'); }, 100)"], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const watched = watchChild(child, 10);
    watched.quiet();
    await watched.gone;
    expect(watched.output()).toBe('');
    expect(watched.exitCode()).toBe(0);
  });
});
