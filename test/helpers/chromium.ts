/**
 * Headless Chromium for the page tests, driven by puppeteer-core. The browser is the one the
 * project already has: CHROMIUM_PATH, else one on PATH, else the headless shell the
 * `@sparticuz/chromium` package carries (unpacked once), so `npm ci` is all a fresh machine
 * needs and nothing is downloaded at run time.
 */
import { execFileSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Executables tried in order on PATH when CHROMIUM_PATH is unset (a system browser first). */
const CANDIDATES = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome'];

/** Where the browser that ships inside the `@sparticuz/chromium` package is unpacked, per version. */
const CACHE = join(dirname(dirname(import.meta.dirname)), 'node_modules', '.cache', 'clause-review-chromium');

/** A system browser: CHROMIUM_PATH, or the first candidate on PATH; undefined when there is none. */
export function systemChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env.CHROMIUM_PATH;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`CHROMIUM_PATH names '${explicit}', which does not exist`);
    return explicit;
  }
  for (const name of CANDIDATES) {
    for (const dir of (env.PATH ?? '').split(delimiter)) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

/**
 * Unpacks the headless Chromium that the `@sparticuz/chromium` package carries (a brotli file,
 * so `npm ci` is all a fresh machine needs) into node_modules/.cache, once per package version.
 * The file is written beside its final name and renamed, so test processes that start together
 * never run a half-written browser. Fonts come from the system when it has any, else from the
 * package's own set.
 */
export async function bundledChromium(): Promise<{ path: string; env: Record<string, string> }> {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(dirname(require.resolve('@sparticuz/chromium')));
  const { version } = require(join(pkgDir, 'package.json')) as { version: string };
  const dir = join(CACHE, version);
  const path = join(dir, 'chromium');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(path)) {
    const partial = `${path}.${process.pid}.partial`;
    await pipeline(
      createReadStream(join(pkgDir, 'bin', 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, path);
  }
  return { path, env: hasSystemFonts() ? {} : { FONTCONFIG_PATH: await bundledFonts(pkgDir, dir) } };
}

/** Unpacks the package's fonts beside the browser once, with a fontconfig file naming them. */
async function bundledFonts(pkgDir: string, dir: string): Promise<string> {
  const fonts = join(dir, 'fonts');
  if (existsSync(join(fonts, 'fonts.conf'))) return fonts;
  const staging = mkdtempSync(join(dir, 'fonts-'));
  const tar = join(staging, 'fonts.tar');
  await pipeline(
    createReadStream(join(pkgDir, 'bin', 'fonts.tar.br')),
    createBrotliDecompress(),
    createWriteStream(tar),
  );
  execFileSync('tar', ['-xf', tar, '-C', staging]);
  rmSync(tar);
  writeFileSync(
    join(staging, 'fonts.conf'),
    `<?xml version="1.0"?>\n<fontconfig><dir>${fonts}</dir><cachedir>${join(dir, 'fonts-cache')}</cachedir></fontconfig>\n`,
  );
  try {
    renameSync(staging, fonts);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another process unpacked them first
  }
  return fonts;
}

/** Whether fontconfig's usual system folder holds any font (a minimal container may have none). */
function hasSystemFonts(): boolean {
  return existsSync('/usr/share/fonts') && readdirSync('/usr/share/fonts').length > 0;
}

/** The browser to run: a system one when present (CHROMIUM_PATH or PATH), else the bundled one. */
export async function chromiumExecutable(): Promise<{ path: string; env: Record<string, string> }> {
  const system = systemChromium();
  return system ? { path: system, env: {} } : bundledChromium();
}

/**
 * Flags for a machine that reaches nothing but loopback: no background requests (component
 * updates, sync, safe browsing lists), no first-run screens. puppeteer-core passes most of them
 * by default; they are named here so that a change of its defaults cannot bring the traffic back.
 * `--no-sandbox`: CI runs as root, where Chromium refuses its sandbox; the pages rendered are the
 * project's own.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
  '--window-size=1280,900',
];

/**
 * Starts the browser with {@link CHROMIUM_ARGS} and a fresh profile (a temporary
 * `--user-data-dir` that puppeteer removes on `close()`), talking to it over a pipe.
 * `downloadPath`: where the page's downloads go (they are refused otherwise).
 */
export async function launchChromium(options: { downloadPath?: string } = {}): Promise<Browser> {
  const browser = await chromiumExecutable();
  return puppeteer.launch({
    executablePath: browser.path,
    env: { ...process.env, ...browser.env },
    // The old headless mode's flag: what the headless shell takes, and new headless to a full Chromium.
    headless: 'shell',
    pipe: true,
    args: [...CHROMIUM_ARGS],
    defaultViewport: { width: 1280, height: 900 },
    ...(options.downloadPath
      ? { downloadBehavior: { policy: 'allow', downloadPath: options.downloadPath } }
      : {}),
  });
}

/** An accessibility rule axe-core found broken, and the elements it found it on. */
export interface A11yViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: string[];
}

/**
 * Runs axe-core in the page (injected from the `axe-core` package, past the page's content
 * security policy) and returns the violations at `serious` or `critical` impact, with the
 * elements each was found on.
 */
export async function seriousA11yViolations(page: Page): Promise<A11yViolation[]> {
  const require = createRequire(import.meta.url);
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(`${source};0`);
  return (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`,
  )) as A11yViolation[];
}

/** The (JSON) value of a page expression; a promise it gives is awaited. */
export function pageValue<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/**
 * Waits until a page expression is truthy (asked every 100 ms) and returns its value.
 * @throws TimeoutError when `timeout` ms pass first
 */
export async function pageUntil<T>(page: Page, expression: string, timeout = 30_000): Promise<T> {
  return (await (await page.waitForFunction(expression, { timeout, polling: 100 })).jsonValue()) as T;
}

/**
 * A PNG of the first element matching `selector`, with the page laid out `width` CSS pixels wide,
 * and at most `maxHeight` of the element's height.
 * @throws Error when no element matches
 */
export async function screenshotOf(
  page: Page,
  selector: string,
  width: number,
  maxHeight = Number.POSITIVE_INFINITY,
): Promise<Uint8Array> {
  await page.setViewport({ width, height: 900 });
  const element = await page.$(selector);
  const box = await element?.boundingBox();
  if (!element || !box) throw new Error(`no element matches ${selector} to picture`);
  return element.screenshot({
    clip: { x: 0, y: 0, width: box.width, height: Math.min(box.height, maxHeight) },
  });
}
