/**
 * A vitest reporter that ends each run with the slowest test files: how long each took to
 * load (imports and top-level set-up, such as a harness started at the top of the file) and
 * to run (tests and hooks), and the sum of all files against the run's wall clock, so the next
 * slow file is visible and so is how well the workers overlapped.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { FILE_TIMES, recordedFileTimes } from './longest-first-sequencer.js';

/** One test file's times, in milliseconds. */
export interface FileTime {
  readonly file: string;
  /** Importing the file and everything it runs at its top level, and collecting its tests. */
  readonly loadMs: number;
  /** Its tests and hooks. */
  readonly runMs: number;
}

const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);

/**
 * The closing table: the `top` slowest files by load plus run time, then the sums.
 *
 * @example
 * fileTimesTable([{ file: 'test/a.test.ts', loadMs: 1200, runMs: 30_000 }], 40_000, 10)
 */
export function fileTimesTable(files: readonly FileTime[], wallMs: number, top: number): string {
  const total = (f: FileTime) => f.loadMs + f.runMs;
  const slowest = [...files].sort((a, b) => total(b) - total(a)).slice(0, top);
  const load = files.reduce((n, f) => n + f.loadMs, 0);
  const run = files.reduce((n, f) => n + f.runMs, 0);
  return [
    `Slowest ${slowest.length} of ${files.length} test files (seconds: load, run, total)`,
    ...slowest.map((f) => `${seconds(f.loadMs)}${seconds(f.runMs)}${seconds(total(f))}  ${f.file}`),
    `${seconds(load)}${seconds(run)}${seconds(load + run)}  all files, over ${seconds(wallMs).trim()} s of wall clock`,
  ].join('\n');
}

/** Options of {@link FileTimesReporter}, as vitest passes them: `['./file-times-reporter.ts', { top: 20 }]`. */
export interface FileTimesReporterOptions {
  /** How many files the table lists. @default 15 */
  readonly top?: number;
  /** Where the table goes. @default console.log */
  readonly write?: (text: string) => void;
  /**
   * Whether to record each file's time into `test/file-times.json` (merged with the times
   * already there), where the longest-first order finds it on a fresh clone. @default false
   */
  readonly record?: boolean;
}

/** The reporter: add it beside the default one in vitest.config.ts. */
export default class FileTimesReporter implements Reporter {
  private started = Date.now();
  private root = '';
  private readonly top: number;
  private readonly write: (text: string) => void;
  private readonly record: boolean;

  constructor(options: FileTimesReporterOptions = {}) {
    this.top = options.top ?? 15;
    this.write = options.write ?? ((text) => console.log(text));
    this.record = options.record ?? false;
  }

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunStart(): void {
    this.started = Date.now();
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const files = modules.map((m) => {
      const d = m.diagnostic();
      return {
        file: m.moduleId.startsWith(`${this.root}/`) ? m.moduleId.slice(this.root.length + 1) : m.moduleId,
        loadMs: d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration,
        runMs: d.duration,
      };
    });
    if (files.length > 1) this.write(`\n${fileTimesTable(files, Date.now() - this.started, this.top)}\n`);
    if (this.record) {
      const times = recordedFileTimes(this.root);
      for (const f of files) times[f.file] = Math.round(f.loadMs + f.runMs);
      const sorted = Object.fromEntries(Object.entries(times).sort(([a], [b]) => (a < b ? -1 : 1)));
      writeFileSync(join(this.root, FILE_TIMES), `${JSON.stringify(sorted, null, 2)}\n`);
    }
  }
}
