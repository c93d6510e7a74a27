import { closeSync, constants, mkdirSync, openSync, realpathSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { CliError } from './cli-error.js';

/** True when `path` is `root` or inside it. */
function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Writes `files` into the folder `name` under `outDir`, and nowhere else: the folder and each
 * file name must be a single plain path segment, the folder must resolve (symbolic links
 * followed) inside `outDir`, and no file may be a symbolic link, so neither a document's name
 * nor something already in `outDir` can send a write elsewhere. Returns the paths written.
 *
 * @example writeConfined('reports', 'Master_Agreement', { 'report.html': html })
 */
export function writeConfined(
  outDir: string,
  name: string,
  files: Readonly<Record<string, string | Uint8Array>>,
): string[] {
  const segment = /^(?!\.{1,2}$)[^/\\\0]+$/;
  for (const part of [name, ...Object.keys(files)]) {
    if (!segment.test(part)) {
      throw new CliError(`refusing to write '${part}': an output name must be one plain file or folder name`);
    }
  }
  const root = resolve(outDir);
  mkdirSync(root, { recursive: true });
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const realRoot = realpathSync(root);
  if (!inside(realRoot, realpathSync(dir))) {
    throw new CliError(`refusing to write into ${dir}: it resolves outside ${realRoot}`);
  }
  const written: string[] = [];
  for (const [file, body] of Object.entries(files)) {
    const path = join(dir, file);
    // O_NOFOLLOW: opening a symbolic link fails (ELOOP) rather than writing where it points.
    let fd: number;
    try {
      fd = openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0),
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') {
        throw new CliError(`refusing to write ${path}: it is a symbolic link`, 1, { cause: error });
      }
      throw error;
    }
    try {
      writeFileSync(fd, body);
    } finally {
      closeSync(fd);
    }
    written.push(path);
  }
  return written;
}
