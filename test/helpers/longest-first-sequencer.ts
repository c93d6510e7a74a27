/**
 * Orders test files longest first within each project, so that a long file does not start
 * last and leave one worker running it alone at the end of the run. A file's time is the one
 * vitest remembers from this machine's last run, else the one recorded in `test/file-times.json`
 * (a fresh clone remembers nothing; `RECORD_FILE_TIMES=1 npx vitest run` records a run's times
 * there); a file neither knows goes first, as vitest's own order puts it.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where recorded file times live, relative to the project root. */
export const FILE_TIMES = 'test/file-times.json';

/** Recorded milliseconds per test file (path from the project root); none when there is no record. */
export function recordedFileTimes(root: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(join(root, FILE_TIMES), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/**
 * `files` by project name, then within a project unknown files first and the rest longest
 * first; ties keep their order.
 */
export function longestFirst<T>(
  files: readonly T[],
  projectOf: (file: T) => string,
  timeOf: (file: T) => number | undefined,
): T[] {
  const known = (f: T) => timeOf(f) ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => {
    const pa = projectOf(a);
    const pb = projectOf(b);
    if (pa !== pb) return pa < pb ? -1 : 1;
    const ta = known(a);
    const tb = known(b);
    return ta === tb ? 0 : ta > tb ? -1 : 1;
  });
}

/** The sequencer: `sequence: { sequencer: LongestFirstSequencer }` in vitest.config.ts. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const recorded = recordedFileTimes(root);
    return longestFirst(
      files,
      (spec) => spec.project.name,
      (spec) => {
        const path = relative(root, spec.moduleId);
        return this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)?.duration ?? recorded[path];
      },
    );
  }
}
