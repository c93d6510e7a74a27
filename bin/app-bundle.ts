/**
 * Bundles the reviewer app (lambdas/app/) into static files with esbuild: index.html,
 * app.css and one app.js for browsers. `local up` serves them from memory;
 * `npm run build:app -- DIR` writes them to DIR for hosting (beside a config.json the host writes).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';
import type { AppFile, AppFiles } from '../localstack/runtime/local-app.js';

const APP = join(fileURLToPath(new URL('..', import.meta.url)), 'lambdas', 'app');

/** How the app's browser code is bundled (the Word add-in's too): one ES module per page, kept in memory. */
export const BROWSER_BUILD = {
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'silent',
  // amazon-cognito-identity-js brings the `buffer` package, which reads Node's `global`.
  define: { global: 'globalThis' },
} as const satisfies BuildOptions;

/** Bundles the app; `minify` for hosting. */
export async function bundleApp(options: { minify?: boolean } = {}): Promise<AppFiles> {
  const r = await build({
    ...BROWSER_BUILD,
    entryPoints: [join(APP, 'main.ts')],
    minify: options.minify ?? false,
  });
  const js = r.outputFiles[0];
  if (!js) throw new Error('esbuild produced no bundle of lambdas/app/main.ts');
  return new Map<string, AppFile>([
    ['index.html', { body: readFileSync(join(APP, 'index.html')), contentType: 'text/html; charset=utf-8' }],
    ['app.css', { body: readFileSync(join(APP, 'app.css')), contentType: 'text/css; charset=utf-8' }],
    ['app.js', { body: Buffer.from(js.contents), contentType: 'text/javascript; charset=utf-8' }],
  ]);
}

/** Writes the bundled app into `dir`. */
export async function writeApp(dir: string): Promise<string[]> {
  const files = await bundleApp({ minify: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, file] of files) writeFileSync(join(dir, name), file.body);
  return [...files.keys()].map((n) => join(dir, n));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? 'dist/app';
  for (const f of await writeApp(dir)) console.log(f);
}
