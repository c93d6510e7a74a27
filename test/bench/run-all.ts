/**
 * `npm run bench`: a plain queue of model calls as the bar, the pipeline under load (three contract sizes, then ten jobs at once), then
 * the adaptive limiter against the stand-in's capacity model, alone and as four processes
 * sharing one model's limit, then four processes sharing one model's tokens- and
 * requests-per-minute budgets against a stand-in that enforces them, the offline analysts and
 * what intake reads of a contract (parties, defined terms, kind) against CUAD's labels
 * (`agreement`, `facts`); a thousand small jobs from
 * ten owners, one of them hot (`thousand`, `--jobs N`, default 1,000), and a burst of tiny
 * uploads (`thousand-burst`, `--burst N`, default 5,000), and the development set reviewed with
 * the default playbook (`redlines`), all three left out of a plain `npm run bench`
 * for their length. Figures only; nothing here asserts a time (machines are shared and noisy).
 * The stand-in's own throughput is measured by `npm run bench:standin`.
 *
 *   npm run bench [-- --only baseline,small,sample,largest,concurrent,cost,playbook,limiter,fleet,tpm,hostile,agreement,facts]
 *   npm run bench -- --only thousand [--jobs 1000] [--max-jobs-per-owner N]
 *   npm run bench -- --only thousand-burst [--burst 5000] [--max-jobs-per-owner N]
 *   npm run bench -- --only redlines         the development set reviewed with the default playbook
 *
 * The crowd benches run with the stack's default owner cap unless `--max-jobs-per-owner` names
 * another (0: none).
 */
import { parseArgs } from 'node:util';
import { runAgreementBench } from './agreement.js';
import { runContractFactsBench } from './contract-facts.js';
import { type CostLeverRun, formatCostBench, formatCostLevers, runCostBench } from './cost.js';
import { formatHostileBench, runHostileBench } from './hostile.js';
import { formatLimiterBench, runLimiterBench } from './limiter.js';
import { formatFleetBench, runFleetBench } from './limiter-fleet.js';
import {
  BENCH_CONTRACT,
  formatPipelineBench,
  LARGEST_CONTRACT,
  MEDIUM_CONTRACT,
  runPipelineBench,
  SMALL_CONTRACT,
} from './pipeline.js';
import { formatPlainQueueBench, runPlainQueueBench } from './plain-queue.js';
import { formatPlaybookQuotes, playbookQuotes, runPlaybookCostRun } from './playbook-cost.js';
import { runRedlinesBench } from './redlines.js';
import { formatThousand, runThousand, thousandOptions } from './thousand.js';
import { BURST_DEFAULTS, formatBurst, runBurst } from './thousand-burst.js';
import { CROWD_DEFAULTS } from './thousand-rig.js';
import { formatTpmBench, runTpmBench } from './tpm.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    jobs: { type: 'string' },
    burst: { type: 'string' },
    'max-jobs-per-owner': { type: 'string' },
  },
});
const only = values.only ? new Set(values.only.split(',')) : undefined;
const want = (name: string) => !only || only.has(name);
/** Scenarios too long for a plain run: only when named. */
const named = (name: string) => only?.has(name) ?? false;

if (want('baseline')) {
  console.log('\n== the bar: a plain queue, one request per model call (no ledger, ceiling or checkpoints)');
  for (const [label, file] of [
    ['README sample prompts', BENCH_CONTRACT],
    ['Verizon prompts', LARGEST_CONTRACT],
  ] as const) {
    const r = await runPlainQueueBench({ file, latencyMs: 400, capacity: 12, seconds: 40 });
    console.log(formatPlainQueueBench(label, r));
  }
}

const scenarios: { name: string; label: string; files: string[] }[] = [
  { name: 'small', label: 'small contract (web hosting, 77 calls)', files: [SMALL_CONTRACT] },
  { name: 'sample', label: 'README sample (supply agreement, 3,366 calls)', files: [BENCH_CONTRACT] },
  { name: 'largest', label: 'largest contract (Verizon, 8,382 calls)', files: [LARGEST_CONTRACT] },
  {
    name: 'concurrent',
    label: 'ten jobs at once (transportation agreement, 572 calls each)',
    files: Array.from({ length: 10 }, () => MEDIUM_CONTRACT),
  },
];
for (const s of scenarios.filter((x) => want(x.name))) {
  const options = {
    latencyMs: 400,
    capacity: 12,
    files: s.files,
    log: (line: string) => console.error(line),
  };
  console.log(`\n== pipeline: ${s.label}`);
  console.log(formatPipelineBench(s.name, options, await runPipelineBench(options)));
}

/** The primary model before Claude Haiku 5.5, for the cost levers. */
const HAIKU_4_5 = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

if (want('cost')) {
  const runs: CostLeverRun[] = [];
  for (const [contract, file] of [
    ['README sample', BENCH_CONTRACT],
    ['Verizon', LARGEST_CONTRACT],
  ] as const) {
    for (const [lever, metadata] of [
      ['Haiku 4.5, full panel', { model: HAIKU_4_5, 'full-panel': 'true' }],
      ['Haiku 4.5, relevance screen', { model: HAIKU_4_5 }],
      ['Haiku 5.5, full panel', { 'full-panel': 'true' }],
      ['Haiku 5.5, relevance screen (the defaults)', {}],
    ] as const) {
      const run = await runCostBench(file, (line) => console.error(line), {
        'ceiling-usd': '100',
        ...metadata,
      });
      runs.push({ contract, lever, run });
    }
  }
  console.log('\n== cost of the README sample with the default models: caching and document context');
  const defaults = runs.find((r) => r.contract === 'README sample' && r.lever.endsWith('(the defaults)'));
  if (defaults) console.log(formatCostBench(defaults.run));
  console.log('\n== the levers: calls, tokens and dollars, by model and panel');
  console.log(formatCostLevers(runs));
}

if (want('playbook')) {
  console.log(
    "\n== a playbook's effect on calls and cost: the quote with and without one, then the sample run against 'default'",
  );
  for (const [name, file] of [
    ['README sample (supply agreement)', BENCH_CONTRACT],
    ['largest contract (Verizon service agreement)', LARGEST_CONTRACT],
  ] as const)
    console.log(formatPlaybookQuotes(name, await playbookQuotes(file)));
  console.log(await runPlaybookCostRun(BENCH_CONTRACT, (line) => console.error(line)));
}

if (want('limiter')) {
  console.log('\n== adaptive limiter against the stand-in capacity model');
  console.log(formatLimiterBench(await runLimiterBench({})));
}

if (want('fleet')) {
  console.log('\n== four worker processes sharing one model limit (joining 10 s apart), and each alone');
  for (const sharing of [true, false]) console.log(formatFleetBench(await runFleetBench({ sharing })));
}

if (want('tpm')) {
  console.log("\n== four worker processes sharing one model's tokens- and requests-per-minute budgets");
  console.log(formatTpmBench(await runTpmBench()));
}

if (want('hostile')) {
  console.log('\n== hostile documents through the bounded parser (one process per case)');
  console.log(formatHostileBench(runHostileBench()));
}

if (want('agreement')) {
  console.log(
    '\n== offline analysts against CUAD lawyer labels (development set, pairs of clause and risk category)',
  );
  console.log(
    (await runAgreementBench()) ?? 'skipped: the development set (../shared/corpus/contracts) is not here',
  );
}

if (want('facts')) {
  console.log(
    "\n== a contract's parties, defined terms and kind, read from its text, against CUAD's labels (development set)",
  );
  console.log(
    (await runContractFactsBench()) ??
      'skipped: the development set (../shared/corpus/contracts) is not here',
  );
}

if (named('redlines')) {
  console.log(
    '\n== redlines a lawyer keeps: the development set reviewed with --playbook default, read from report.json and report.docx',
  );
  console.log(
    (await runRedlinesBench()) ?? 'skipped: the development set (../shared/corpus/contracts) is not here',
  );
}

if (named('thousand')) {
  console.log('\n== a thousand small jobs from ten owners, one of them hot; then one quiet owner alone');
  const result = await runThousand(
    thousandOptions(
      [
        ...(values.jobs ? ['--jobs', values.jobs] : []),
        ...(values['max-jobs-per-owner'] ? ['--max-jobs-per-owner', values['max-jobs-per-owner']] : []),
      ],
      (line) => console.error(line),
    ),
  );
  console.log(formatThousand(result));
  console.log(JSON.stringify(result));
}

if (named('thousand-burst')) {
  const uploads = values.burst === undefined ? BURST_DEFAULTS.uploads : Number(values.burst);
  if (!Number.isInteger(uploads) || uploads < 1)
    throw new RangeError(`--burst must be a whole number ≥ 1; got '${values.burst}'`);
  console.log(`\n== a burst of ${uploads} tiny uploads: every one recorded and waiting or started`);
  const cap = Number(values['max-jobs-per-owner'] ?? CROWD_DEFAULTS.maxJobsPerOwner);
  if (!Number.isInteger(cap) || cap < 0)
    throw new RangeError(
      `--max-jobs-per-owner must be a whole number ≥ 0; got '${values['max-jobs-per-owner']}'`,
    );
  const result = await runBurst({
    ...BURST_DEFAULTS,
    uploads,
    maxJobsPerOwner: cap,
    log: (line) => console.error(line),
  });
  console.log(formatBurst(result));
  console.log(JSON.stringify(result));
}
