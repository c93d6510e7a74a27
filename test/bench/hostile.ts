/**
 * Hostile documents through the bounded parser, one fresh process per case so that each peak
 * memory figure is that case's own: outcome, time and the process's peak resident memory (the
 * parse's worker thread included). Targets: every case at most 10 s and 512 MB.
 *
 *   npx tsx test/bench/hostile.ts
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  isDocumentRejectedError,
  isParseOvertimeError,
  parseDocumentBounded,
} from '../../lambdas/core/documents/index.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { HOSTILE_CASES } from '../hostile/generate.js';

interface CaseFigures {
  readonly key: string;
  readonly name: string;
  readonly bytes: number;
  readonly outcome: string;
  readonly expected: string;
  readonly seconds: number;
  /** Peak resident memory of the process, MB; `baselineMb` before the parse began. */
  readonly peakMb: number;
  readonly baselineMb: number;
}

const mb = () => process.resourceUsage().maxRSS / 1024;

async function runCase(key: string): Promise<CaseFigures> {
  const c = HOSTILE_CASES.find((x) => x.key === key);
  if (!c) throw new Error(`no hostile case '${key}'`);
  const bytes = c.build();
  const baselineMb = mb();
  const started = performance.now();
  let outcome: string;
  try {
    const parsed = await parseDocumentBounded(bytes, { key: c.key, maxBytes: 10 * 1024 * 1024 });
    outcome = `accepted (${parsed.clauses.length} clauses)`;
  } catch (error) {
    // A wall-clock stop with CPU time left: this machine was too busy, the case says nothing.
    if (isParseOvertimeError(error)) outcome = 'stopped by the wall clock (a busy machine)';
    else if (isDocumentRejectedError(error)) outcome = error.reason;
    else throw error;
  }
  return {
    key,
    name: c.name,
    bytes: bytes.length,
    outcome,
    expected: c.expect,
    seconds: (performance.now() - started) / 1000,
    peakMb: mb(),
    baselineMb,
  };
}

/** Every case, each in its own process. */
export function runHostileBench(): CaseFigures[] {
  return HOSTILE_CASES.map((c) => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--case', c.key],
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    const line = r.stdout.trim().split('\n').at(-1) ?? '';
    if (r.status !== 0 || !line.startsWith('{')) {
      throw new Error(`hostile case ${c.key} failed (exit ${r.status}): ${r.stderr.slice(-500)}`);
    }
    return JSON.parse(line) as CaseFigures;
  });
}

export function formatHostileBench(rows: readonly CaseFigures[]): string {
  const ok = (r: CaseFigures) =>
    (r.expected === 'accepted' ? r.outcome.startsWith('accepted') : r.outcome === r.expected) &&
    r.seconds <= 10 &&
    r.peakMb <= 512;
  return [
    '| case | file | outcome | time | peak memory (process, before parse) | within 10 s and 512 MB |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${(r.bytes / 1024).toFixed(0)} KB | ${r.outcome} | ${r.seconds.toFixed(2)} s | ${r.peakMb.toFixed(0)} MB (${r.baselineMb.toFixed(0)} MB) | ${ok(r) ? 'yes' : 'NO'} |`,
    ),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { case: { type: 'string' } } });
  if (values.case) console.log(JSON.stringify(await runCase(values.case)));
  else console.log(formatHostileBench(runHostileBench()));
}
