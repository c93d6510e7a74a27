/**
 * Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * the browser reads commands from fd 3 and writes replies to fd 4, each a JSON message ended
 * by a NUL byte), so tests can render a page and read what the browser computed without a
 * WebSocket client or a browser-automation package.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
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
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';

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

interface Reply {
  readonly id?: number;
  readonly method?: string;
  readonly sessionId?: string;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string };
  readonly params?: Record<string, unknown>;
}

/** One browser process and one page in it. */
export class Chromium {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private readonly waiters: { method: string; resolve: () => void }[] = [];
  private sessionId = '';
  private exited: Error | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly profileDir: string,
    private readonly pageDir: string,
  ) {
    const out = child.stdio[4] as Readable;
    let buffered = Buffer.alloc(0);
    out.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let end = buffered.indexOf(0); end >= 0; end = buffered.indexOf(0)) {
        this.dispatch(JSON.parse(buffered.subarray(0, end).toString('utf8')) as Reply);
        buffered = buffered.subarray(end + 1);
      }
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-4000);
    });
    child.on('exit', (code, signal) => {
      this.exited = new Error(`Chromium exited (code ${code}, signal ${signal}): ${stderr.trim()}`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  /** Starts the browser and opens a blank page. */
  static async launch(): Promise<Chromium> {
    const profileDir = mkdtempSync(join(tmpdir(), 'clause-review-chromium-'));
    const pageDir = mkdtempSync(join(tmpdir(), 'clause-review-page-'));
    const browserExe = await chromiumExecutable();
    const child = spawn(
      browserExe.path,
      [
        '--headless',
        '--remote-debugging-pipe',
        // CI runs as root, where Chromium refuses its sandbox; the pages rendered are the project's own.
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--hide-scrollbars',
        '--window-size=1280,900',
        `--user-data-dir=${profileDir}`,
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: { ...process.env, ...browserExe.env } },
    );
    const browser = new Chromium(child, profileDir, pageDir);
    try {
      const { targetId } = (await browser.send('Target.createTarget', { url: 'about:blank' })) as {
        targetId: string;
      };
      const { sessionId } = (await browser.send('Target.attachToTarget', { targetId, flatten: true })) as {
        sessionId: string;
      };
      browser.sessionId = sessionId;
      await browser.send('Page.enable', {}, sessionId);
      await browser.send('Runtime.enable', {}, sessionId);
    } catch (error) {
      await browser.close();
      throw error;
    }
    return browser;
  }

  private dispatch(message: Reply): void {
    if (message.id !== undefined) {
      const p = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (!p) return;
      if (message.error) p.reject(new Error(`DevTools: ${message.error.message} (${message.error.code})`));
      else p.resolve(message);
      return;
    }
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i];
      if (w && w.method === message.method) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private send(method: string, params: Record<string, unknown> = {}, sessionId?: string) {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.nextId++;
    const reply = new Promise<Reply>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    (this.child.stdio[3] as Writable).write(
      `${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`,
    );
    return reply.then((r) => r.result ?? {});
  }

  private event(method: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }

  /** Loads `html` from a file (as a saved report is opened) and waits for its load event. */
  async load(html: string): Promise<void> {
    const file = join(this.pageDir, `page-${this.nextId}.html`);
    writeFileSync(file, html);
    const loaded = this.event('Page.loadEventFired');
    const r = (await this.send('Page.navigate', { url: pathToFileURL(file).href }, this.sessionId)) as {
      errorText?: string;
    };
    if (r.errorText) throw new Error(`Chromium could not load ${file}: ${r.errorText}`);
    await loaded;
  }

  /** Navigates to a URL (an app served on loopback) and waits for its load event. */
  async navigate(url: string): Promise<void> {
    const loaded = this.event('Page.loadEventFired');
    const r = (await this.send('Page.navigate', { url }, this.sessionId)) as { errorText?: string };
    if (r.errorText) throw new Error(`Chromium could not load ${url}: ${r.errorText}`);
    await loaded;
  }

  /**
   * Waits until a page expression is truthy and returns its value.
   * @throws Error naming the expression when `timeoutMs` passes first
   */
  async waitFor<T>(expression: string, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.evaluate<T>(expression);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${expression}`);
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }

  /** Waits for an element matching `selector` to be in the page. */
  waitForSelector(selector: string, timeoutMs = 30_000): Promise<boolean> {
    return this.waitFor(`!!document.querySelector(${JSON.stringify(selector)})`, timeoutMs);
  }

  /**
   * Clicks the middle of the first element matching `selector` with the mouse, as a person
   * would (pressed and released where the element is drawn, after scrolling it into view).
   * @throws Error when no element matches
   */
  async click(selector: string): Promise<void> {
    const at = await this.evaluate<{ x: number; y: number } | null>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return null;
        el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()`,
    );
    if (!at) throw new Error(`no element matches ${selector}`);
    for (const type of ['mouseMoved', 'mousePressed', 'mouseReleased']) {
      await this.send(
        'Input.dispatchMouseEvent',
        { type, x: at.x, y: at.y, button: 'left', clickCount: type === 'mouseMoved' ? 0 : 1 },
        this.sessionId,
      );
    }
  }

  /** Focuses the element matching `selector` and types `text` into it. */
  async type(selector: string, text: string): Promise<void> {
    const found = await this.evaluate<boolean>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return false; el.focus(); return true; })()`,
    );
    if (!found) throw new Error(`no element matches ${selector}`);
    await this.send('Input.insertText', { text }, this.sessionId);
  }

  /** Presses a key (`Tab`, `Enter`, ` `) on whatever has the focus. */
  async press(key: 'Tab' | 'Enter' | ' '): Promise<void> {
    const codes = { Tab: 9, Enter: 13, ' ': 32 } as const;
    const base = { key, code: key === ' ' ? 'Space' : key, windowsVirtualKeyCode: codes[key] };
    await this.send(
      'Input.dispatchKeyEvent',
      { type: 'keyDown', ...base, ...(key === 'Enter' ? { text: '\r' } : key === ' ' ? { text: ' ' } : {}) },
      this.sessionId,
    );
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...base }, this.sessionId);
  }

  /** Puts files into the file input matching `selector`, as choosing them in the dialog does. */
  async setFiles(selector: string, files: readonly string[]): Promise<void> {
    const { root } = (await this.send('DOM.getDocument', { depth: 0 }, this.sessionId)) as {
      root: { nodeId: number };
    };
    const { nodeId } = (await this.send(
      'DOM.querySelector',
      { nodeId: root.nodeId, selector },
      this.sessionId,
    )) as { nodeId: number };
    if (!nodeId) throw new Error(`no element matches ${selector}`);
    await this.send('DOM.setFileInputFiles', { nodeId, files }, this.sessionId);
  }

  /** Lets the page download files into `dir` (each under the name the server or link gives it). */
  async allowDownloads(dir: string): Promise<void> {
    await this.send('Browser.setDownloadBehavior', {
      behavior: 'allow',
      downloadPath: dir,
      eventsEnabled: true,
    });
  }

  /**
   * Runs axe-core in the page (injected from the `axe-core` package) and returns the
   * violations at `serious` or `critical` impact, with the elements each was found on.
   */
  async seriousA11yViolations(): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
    const require = createRequire(import.meta.url);
    const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    await this.evaluate<unknown>(`${source};0`);
    return this.evaluate(
      `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`,
    );
  }

  /** Evaluates a JavaScript expression in the page and returns its (JSON) value. */
  async evaluate<T>(expression: string): Promise<T> {
    const r = (await this.send(
      'Runtime.evaluate',
      { expression, returnByValue: true, awaitPromise: true },
      this.sessionId,
    )) as { result: { value: T }; exceptionDetails?: { exception?: { description?: string }; text: string } };
    if (r.exceptionDetails) {
      throw new Error(
        `page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`,
      );
    }
    return r.result.value;
  }

  /**
   * A PNG of the part of the page an element covers (at most `maxHeight` of it), rendered
   * `width` CSS pixels wide.
   * @throws Error when no element matches `selector`
   */
  async screenshot(selector: string, width = 1100, maxHeight = Number.POSITIVE_INFINITY): Promise<Buffer> {
    await this.send(
      'Emulation.setDeviceMetricsOverride',
      { width, height: 900, deviceScaleFactor: 1, mobile: false },
      this.sessionId,
    );
    const box = await this.evaluate<{ x: number; y: number; width: number; height: number } | null>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return null;
        const r = el.getBoundingClientRect();
        return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height }; })()`,
    );
    if (!box) throw new Error(`no element matches ${selector}`);
    const r = (await this.send(
      'Page.captureScreenshot',
      {
        format: 'png',
        captureBeyondViewport: true,
        clip: { ...box, height: Math.min(box.height, maxHeight), scale: 1 },
      },
      this.sessionId,
    )) as { data: string };
    return Buffer.from(r.data, 'base64');
  }

  /** Closes the browser and removes its profile and pages. */
  async close(): Promise<void> {
    if (!this.exited) {
      const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.send('Browser.close').catch(() => {});
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(this.profileDir, { recursive: true, force: true });
    rmSync(this.pageDir, { recursive: true, force: true });
  }
}
