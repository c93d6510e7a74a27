/** The reviewer app's bundle (esbuild) and the loopback server `local up` serves it with. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleApp, writeApp } from '../../../bin/app-bundle.js';
import { appContentSecurityPolicy } from '../../../lambdas/shared/app-csp.js';
import { startLocalApp } from '../../../localstack/runtime/local-app.js';

const dir = mkdtempSync(join(tmpdir(), 'clause-review-app-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the app bundle', () => {
  it('is three static files for browsers: no Node built-in and nothing of the pipeline in app.js', async () => {
    const written = await writeApp(dir);
    expect(readdirSync(dir).sort()).toEqual(['app.css', 'app.js', 'index.html']);
    expect(written).toHaveLength(3);
    const js = readFileSync(join(dir, 'app.js'), 'utf8');
    expect(js).not.toMatch(/["']node:/);
    expect(js).not.toMatch(/DynamoDB|BedrockRuntime/);
    // Browsers have no Node `global` (the SRP library's `buffer` reads it): it is globalThis here.
    expect(js).not.toMatch(/[^.\w]global\./);
    expect(js).toMatch(/execute-api/);
    // amazon-cognito-identity-js (SRP sign-in) is about 90 KB of it, minified; the app's own views
    // (jobs, a contract, its review, their changes, the upload form) about 70 KB.
    expect(js.length).toBeLessThan(180_000);
  });
});

describe('startLocalApp', () => {
  it('serves the files and config.json with the security headers, 404 for others and 405 for writes', async () => {
    const app = await startLocalApp({
      files: await bundleApp(),
      apiUrl: 'http://127.0.0.1:1/',
      region: 'us-east-1',
      connect: {
        api: 'http://127.0.0.1:1',
        cognito: ['http://127.0.0.1:2'],
        buckets: ['http://127.0.0.1:2'],
      },
    });
    try {
      const index = await fetch(app.url);
      expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // The one policy the hosted app is served with, for these origins, over plain HTTP.
      const csp = index.headers.get('content-security-policy') ?? '';
      expect(csp).toBe(
        appContentSecurityPolicy({
          api: 'http://127.0.0.1:1',
          cognito: ['http://127.0.0.1:2'],
          buckets: ['http://127.0.0.1:2'],
          https: false,
        }),
      );
      expect(csp.split('; ')).toContain("connect-src 'self' http://127.0.0.1:1 http://127.0.0.1:2");
      expect(csp).not.toContain('*');
      expect(index.headers.get('x-frame-options')).toBe('DENY');
      expect(await index.text()).toContain('src="app.js"');
      const config = (await (await fetch(new URL('config.json', app.url))).json()) as { apiUrl: string };
      expect(config.apiUrl).toBe('http://127.0.0.1:1/');
      expect((await fetch(new URL('app.js', app.url))).headers.get('content-type')).toMatch(/javascript/);
      expect((await fetch(new URL('nope.js', app.url))).status).toBe(404);
      const put = await fetch(app.url, { method: 'PUT', body: 'x' });
      expect([put.status, put.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
      expect(app.origin).toBe(new URL(app.url).origin);
    } finally {
      await app.close();
    }
  });
});
