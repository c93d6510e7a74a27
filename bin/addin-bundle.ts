/**
 * Bundles the Word add-in (lambdas/app/addin/) with esbuild: its task pane page and script, the
 * sign-in page Office's dialog opens and its script, its styles and icons, served beside the
 * reviewer app under `addin/` (the pages use the app's app.css and config.json one folder up).
 * `npm run build:addin -- DIR [--base URL] [--deployment NAME]` writes them and a manifest.xml
 * naming `base` (default `https://localhost:3000/addin/`, where Office's own tooling serves
 * add-ins in development) into DIR.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import { build } from 'esbuild';
import { ADDIN_FILES, ADDIN_PATH, type AddinManifestOptions, addinManifest } from '../lib/addin-manifest.js';
import type { AppFile, AppFiles } from '../localstack/runtime/local-app.js';
import { BROWSER_BUILD } from './app-bundle.js';

const ADDIN = join(fileURLToPath(new URL('..', import.meta.url)), 'lambdas', 'app', 'addin');

/** Where `build:addin` points the manifest when not told: Office's development server's address. */
export const DEV_BASE = 'https://localhost:3000/addin/';

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/**
 * The add-in's icon at `size` pixels: a page with three lines of text, its corner folded, on the
 * app's blue (https://www.w3.org/TR/png-3/ for the format).
 */
export function iconPng(size: number): Buffer {
  const px = Buffer.alloc(size * (size * 4 + 1));
  const u = size / 16;
  for (let y = 0; y < size; y++) {
    const row = y * (size * 4 + 1);
    for (let x = 0; x < size; x++) {
      const page =
        x >= 4 * u &&
        x < 12 * u &&
        y >= 2 * u &&
        y < 14 * u &&
        !(x >= 10 * u && y < 4 * u && x - 10 * u > y - 2 * u);
      const line =
        page && x >= 5.5 * u && x < 10.5 * u && [5, 8, 11].some((l) => y >= l * u && y < (l + 1) * u);
      const [r, g, b] = line ? [11, 87, 208] : page ? [255, 255, 255] : [11, 87, 208];
      px.set([r, g, b, 255], row + 1 + x * 4);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(px)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const file = (body: Buffer, contentType: string): AppFile => ({ body, contentType });

/** The add-in's files by path below the app (`addin/taskpane.html`, …); `minify` for hosting. */
export async function bundleAddin(options: { minify?: boolean } = {}): Promise<AppFiles> {
  const r = await build({
    ...BROWSER_BUILD,
    entryPoints: { taskpane: join(ADDIN, 'main.ts'), 'sign-in': join(ADDIN, 'dialog.ts') },
    outdir: '/addin',
    minify: options.minify ?? false,
  });
  const js = (name: string) => {
    const out = r.outputFiles.find((f) => f.path === `/addin/${name}.js`);
    if (!out) throw new Error(`esbuild produced no ${name}.js of lambdas/app/addin/`);
    return file(Buffer.from(out.contents), 'text/javascript; charset=utf-8');
  };
  const html = (name: string) => file(readFileSync(join(ADDIN, name)), 'text/html; charset=utf-8');
  const files: [string, AppFile][] = [
    [ADDIN_FILES.taskpane, html(ADDIN_FILES.taskpane)],
    [ADDIN_FILES.signIn, html(ADDIN_FILES.signIn)],
    ['taskpane.js', js('taskpane')],
    ['sign-in.js', js('sign-in')],
    ['addin.css', file(readFileSync(join(ADDIN, 'addin.css')), 'text/css; charset=utf-8')],
    ...Object.entries(ADDIN_FILES.icons).map(
      ([size, name]) => [name, file(iconPng(Number(size)), 'image/png')] as [string, AppFile],
    ),
  ];
  return new Map(files.map(([name, f]) => [`${ADDIN_PATH}${name}`, f]));
}

/**
 * Writes the add-in's files into `dir` (the add-in's own folder), with a manifest.xml when
 * `manifest` says where they will be served.
 */
export async function writeAddin(dir: string, manifest?: AddinManifestOptions): Promise<string[]> {
  const files = new Map(
    [...(await bundleAddin({ minify: true }))].map(([path, f]) => [path.slice(ADDIN_PATH.length), f.body]),
  );
  if (manifest) files.set(ADDIN_FILES.manifest, Buffer.from(addinManifest(manifest)));
  mkdirSync(dir, { recursive: true });
  for (const [name, body] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), body);
  }
  return [...files.keys()].map((n) => join(dir, n));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { base: { type: 'string' }, deployment: { type: 'string' } },
  });
  const dir = positionals[0] ?? 'dist/addin';
  const base = values.base ?? DEV_BASE;
  for (const f of await writeAddin(dir, { base, deployment: values.deployment ?? 'clause-review' })) {
    console.log(f);
  }
}
