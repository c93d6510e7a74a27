/**
 * Which browser the page tests run: a system one named by CHROMIUM_PATH or found on PATH, else
 * the one the `@sparticuz/chromium` package carries, unpacked once, so `npm ci` is enough; and
 * how it is started for a machine that reaches nothing but loopback.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundledChromium, CHROMIUM_ARGS, launchChromium, systemChromium } from '../../helpers/chromium.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function binDir(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'clause-review-bin-'));
  dirs.push(dir);
  for (const name of names) {
    writeFileSync(join(dir, name), '#!/bin/sh\n');
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

describe('systemChromium', () => {
  it('takes CHROMIUM_PATH first, and names it when it does not exist', () => {
    const dir = binDir('my-chrome', 'chromium');
    expect(systemChromium({ CHROMIUM_PATH: join(dir, 'my-chrome'), PATH: dir })).toBe(join(dir, 'my-chrome'));
    expect(() => systemChromium({ CHROMIUM_PATH: join(dir, 'absent') })).toThrow(
      `CHROMIUM_PATH names '${join(dir, 'absent')}', which does not exist`,
    );
  });

  it('prefers the headless shell on PATH, and finds none on an empty PATH', () => {
    const a = binDir('chromium');
    const b = binDir('chromium-headless-shell');
    expect(systemChromium({ PATH: `${a}:${b}` })).toBe(join(b, 'chromium-headless-shell'));
    expect(systemChromium({ PATH: a })).toBe(join(a, 'chromium'));
    expect(systemChromium({ PATH: binDir() })).toBeUndefined();
  });
});

describe('bundledChromium', () => {
  it('unpacks the packaged browser into an executable that runs, and reuses it', async () => {
    const first = await bundledChromium();
    expect(existsSync(first.path)).toBe(true);
    expect(statSync(first.path).mode & 0o111).not.toBe(0);
    expect(
      execFileSync(first.path, ['--version'], { env: { ...process.env, ...first.env } }).toString(),
    ).toMatch(/^Chromium \d+\./);
    const mtime = statSync(first.path).mtimeMs;
    const again = await bundledChromium();
    expect(again.path).toBe(first.path);
    expect(statSync(again.path).mtimeMs).toBe(mtime);
  }, 120_000);
});

describe('launchChromium', () => {
  it('starts the browser with the closed-network flags and a fresh profile, removed on close', async () => {
    const browser = await launchChromium();
    const args = browser.process()?.spawnargs ?? [];
    let profile = '';
    try {
      for (const flag of CHROMIUM_ARGS) expect(args).toContain(flag);
      profile = args.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length) ?? '';
      expect(profile.startsWith(tmpdir())).toBe(true);
      expect(existsSync(profile)).toBe(true);
      const page = await browser.newPage();
      await page.goto('data:text/html,<p>rendered</p>');
      expect(await page.evaluate('document.querySelector("p").textContent')).toBe('rendered');
    } finally {
      await browser.close();
    }
    expect(existsSync(profile)).toBe(false);
  }, 60_000);
});
