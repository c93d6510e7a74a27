/**
 * The Word add-in's build (bin/addin-bundle.ts): `npm run build:addin -- DIR` writes the task
 * pane's page and script, the sign-in page and script, styles, icons and a manifest.xml that the
 * manifest schema accepts; `local up` serves the pages with the add-in's own frame policy; and
 * the `addin manifest` command writes the manifest of a stack or of the local one.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleAddin, DEV_BASE, iconPng, writeAddin } from '../../../bin/addin-bundle.js';
import { bundleApp } from '../../../bin/app-bundle.js';
import { addinCommand, manifestFromOutputs } from '../../../bin/commands/addin.js';
import { isCliError } from '../../../bin/commands/cli-error.js';
import {
  addinContentSecurityPolicy,
  addinSignInContentSecurityPolicy,
  appContentSecurityPolicy,
} from '../../../lambdas/shared/app-csp.js';
import { addinId } from '../../../lib/addin-manifest.js';
import { PROJECT_ROOT } from '../../../lib/project-root.js';
import { startLocalApp } from '../../../localstack/runtime/local-app.js';
import { schemaErrors } from '../../helpers/addin-schema.js';
import { capture } from '../../helpers/cli-target.js';

const dir = mkdtempSync(join(tmpdir(), 'clause-review-addin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run build:addin -- DIR', () => {
  it('writes the pages, their scripts, styles, icons and a manifest the schema accepts', async () => {
    const out = join(dir, 'build');
    execFileSync(process.execPath, ['--import', 'tsx', 'bin/addin-bundle.ts', out], { cwd: PROJECT_ROOT });
    expect(readdirSync(out).sort()).toEqual([
      'addin.css',
      'icon-16.png',
      'icon-32.png',
      'icon-64.png',
      'icon-80.png',
      'manifest.xml',
      'sign-in.html',
      'sign-in.js',
      'taskpane.html',
      'taskpane.js',
    ]);
    const manifest = readFileSync(join(out, 'manifest.xml'), 'utf8');
    expect(await schemaErrors(manifest)).toEqual([]);
    expect(manifest).toContain(`<SourceLocation DefaultValue="${DEV_BASE}taskpane.html"/>`);
    const page = readFileSync(join(out, 'taskpane.html'), 'utf8');
    // Office.js from Microsoft's CDN first, then the pane; styles are the app's and the pane's.
    expect(page.indexOf('https://appsforoffice.microsoft.com/lib/1/hosted/office.js')).toBeLessThan(
      page.indexOf('src="taskpane.js"'),
    );
    expect(page).toContain('href="../app.css"');
    const js = readFileSync(join(out, 'taskpane.js'), 'utf8');
    expect(js).not.toMatch(/["']node:/);
    expect(js).toMatch(/execute-api/);
    const signIn = readFileSync(join(out, 'sign-in.js'), 'utf8');
    expect(signIn).toMatch(/messageParent/);
    // The app's SRP sign-in brings the `buffer` package, which reads Node's `global`: globalThis here.
    for (const script of [js, signIn]) expect(script).not.toMatch(/[^.\w]global\./);
  });

  it('draws each icon at its size, as PNG', () => {
    for (const size of [16, 32, 64, 80]) {
      const png = iconPng(size);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
    }
  });

  it('writes no manifest when not told where the pages are served', async () => {
    const out = join(dir, 'stack-build');
    const written = await writeAddin(out);
    expect(written.map((f) => f.slice(out.length + 1))).not.toContain('manifest.xml');
  });
});

describe('the add-in on local up', () => {
  it('is served under addin/ with the frame policy of the add-in; the app keeps frame denial', async () => {
    const connect = {
      api: 'http://127.0.0.1:1',
      cognito: ['http://127.0.0.1:2'],
      buckets: ['http://127.0.0.1:2'],
    };
    const app = await startLocalApp({
      files: new Map([...(await bundleApp()), ...(await bundleAddin())]),
      apiUrl: 'http://127.0.0.1:1/',
      region: 'us-east-1',
      connect,
    });
    try {
      const pane = await fetch(`${app.url}addin/taskpane.html`);
      expect(pane.status).toBe(200);
      // The add-in's policy from the app's connections, over plain HTTP.
      const csp = pane.headers.get('content-security-policy') ?? '';
      expect(csp).toBe(addinContentSecurityPolicy({ ...connect, https: false }));
      expect(csp).toMatch(/frame-ancestors https:\/\/\*\.officeapps\.live\.com /);
      // The sign-in page opens in a window of its own: nothing may frame it.
      const signIn = await fetch(`${app.url}addin/sign-in.html`);
      expect(signIn.headers.get('content-security-policy')).toBe(
        addinSignInContentSecurityPolicy({ ...connect, https: false }),
      );
      expect(signIn.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(signIn.headers.get('x-frame-options')).toBe('DENY');
      expect(csp).toMatch(/script-src 'self' https:\/\/appsforoffice\.microsoft\.com/);
      expect(csp).toContain("connect-src 'self' http://127.0.0.1:1 http://127.0.0.1:2");
      expect(pane.headers.get('x-frame-options')).toBeNull();
      expect(pane.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await fetch(`${app.url}addin/icon-32.png`)).headers.get('content-type')).toBe('image/png');
      const index = await fetch(app.url);
      expect(index.headers.get('content-security-policy')).toBe(
        appContentSecurityPolicy({ ...connect, https: false }),
      );
      expect(index.headers.get('x-frame-options')).toBe('DENY');
    } finally {
      await app.close();
    }
  });
});

describe('clause-review addin manifest', () => {
  it("names a deployed stack's app, and refuses a stack without one", () => {
    expect(manifestFromOutputs({ AppUrl: 'https://d1.cloudfront.net/' }, 'review-prod')).toEqual({
      base: 'https://d1.cloudfront.net/addin/',
      deployment: 'review-prod',
      supportUrl: 'https://d1.cloudfront.net/',
    });
    const refused = (() => {
      try {
        manifestFromOutputs({}, 'old');
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(isCliError(refused) && refused.message).toMatch(/stack 'old' has no AppUrl output/);
  });

  it('writes the local stack’s manifest, or one for an HTTPS proxy in front of it', async () => {
    const stateDir = join(dir, 'state');
    const previous = process.env.CLAUSE_REVIEW_STATE_DIR;
    process.env.CLAUSE_REVIEW_STATE_DIR = stateDir;
    try {
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(
        join(stateDir, 'local.json'),
        JSON.stringify({
          pid: process.pid,
          appUrl: 'http://127.0.0.1:4100/',
          apiUrl: 'http://127.0.0.1:4200/',
        }),
      );
      const out = join(dir, 'local-manifest.xml');
      const io = capture();
      expect(await addinCommand(['manifest', '--local', '--out', out], io)).toBe(0);
      const xml = readFileSync(out, 'utf8');
      expect(xml).toContain('<SourceLocation DefaultValue="http://127.0.0.1:4100/addin/taskpane.html"/>');
      expect(xml).toContain(`<Id>${addinId('local')}</Id>`);
      expect(io.stderr.join('\n')).toMatch(/HTTPS only/);
      const proxied = capture();
      await addinCommand(
        ['manifest', '--local', '--out', out, '--base', 'https://localhost:3000/addin/'],
        proxied,
      );
      expect(await schemaErrors(readFileSync(out, 'utf8'))).toEqual([]);
      expect(readFileSync(out, 'utf8')).toContain('https://localhost:3000/addin/taskpane.html');
      expect(proxied.stderr.join('\n')).not.toMatch(/HTTPS only/);
      await expect(
        addinCommand(['manifest', '--local', '--base', 'http://example.com/addin/'], capture()),
      ).rejects.toThrow(/--base: Office loads add-ins over HTTPS only/);
    } finally {
      if (previous === undefined) delete process.env.CLAUSE_REVIEW_STATE_DIR;
      else process.env.CLAUSE_REVIEW_STATE_DIR = previous;
    }
  });
});
