/**
 * The clause-review CLI: a thin dispatcher over bin/commands/. `npx clause-review --help`.
 */

import { parseArgs } from 'node:util';
import { LANES } from '../lambdas/core/lanes-and-limits.js';
import { isLocalStackError } from '../localstack/errors.js';
import { ADDIN_USAGE, addinCommand } from './commands/addin.js';
import { cancelCommand, reportCommand, statusCommand } from './commands/api-commands.js';
import { CliError, isCliError, PROCESS_IO } from './commands/cli-error.js';
import { dlqCommand } from './commands/dlq.js';
import { DOCTOR_USAGE, doctorCommand } from './commands/doctor.js';
import {
  decideCommand,
  findingsCommand,
  pauseCommand,
  redlineCommand,
  resumeCommand,
} from './commands/hold-commands.js';
import { jobsCommand, liveFindingsCommand } from './commands/live-commands.js';
import { localCommand } from './commands/local.js';
import { PLAN_USAGE, planCommand } from './commands/plan.js';
import { PLAYBOOK_USAGE, playbookCommand } from './commands/playbook-commands.js';
import { PURGE_USAGE, purgeCommand } from './commands/purge.js';
import { review } from './commands/review.js';
import { submitCommand } from './commands/submit-command.js';
import { resolveTarget, splitTargetArgs, TARGET_USAGE } from './commands/target.js';

const USAGE = `clause-review — failure-tolerant contract review

Usage:
  clause-review submit <file> [--lane ${LANES.join('|')}] [--ceiling USD] [--analysts a,b,…] [--allow-partial]
                       [--gate none|critical|high] [--review-hours H] [--playbook NAME[@VERSION]]
                       [--contract-type TYPE] [--party NAME] [--all-analysts] [--full-panel] [--against FILE|JOB_ID] [--dry-run]
                                             upload a contract through the status API; prints the job id
                                             (--against: the version it answers, ours: an earlier job, or a file uploaded with it)
                                             (--dry-run: print the signed request and where it would go; send nothing)
  clause-review status <job> [--watch]       status, progress bar, cost (a job id j-… or submission id s-…)
  clause-review cancel <job>                 cancel a job that has not ended (paused or awaiting review included)
  clause-review pause <job>                  stop starting model calls; chunks in flight stop at their next check
  clause-review resume <job>                 continue a paused job from its checkpoints (no answered call is made again)
  clause-review jobs [--limit N] [--after CURSOR]
                                             your jobs, newest first: status, chunks done, cost
  clause-review jobs --awaiting-approval     the jobs whose review waits for an approver group you are in
  clause-review findings <job> [--once] [--json]
                                             each clause (id, risk, categories) as its chunk consolidates, until the job ends
  clause-review findings <job> --gated       the findings a review gate holds (or, once reported, every significant one),
                                             with a playbook's escalations and proposed redlines
  clause-review decide <job> <finding...> approve|override --score N|reject [--note TEXT]
  clause-review decide <job> --approve-all [--note TEXT]
                                             record a reviewer's decision; the last one lets the report be written
                                             (an escalated finding: its approver group's members, approve or reject)
  clause-review redline accept|reject <job> <redline...> [--note TEXT]   or   redline accept|reject <job> --all
  clause-review redline edit <job> <redline> --text TEXT|--text-file FILE|--edits JSON [--note TEXT]
                                             decide a proposed redline: report.docx writes it, leaves it out, or your edit
  clause-review report <job> [--out DIR] [--open]
                                             presigned links to report.json/html, or download them into DIR/<job>/
  clause-review review <file...> [options]   review contracts on the embedded local stack, start to finish
  clause-review local up [--prefix P] [--workers N] [--latency-ms MS] [--invocations N] [--analyst learned|heuristic]
                       [--max-jobs-per-owner N] [--https-origin URL] [--owners-decide-own-escalations]
                                             start moto + the Bedrock stand-in + the pipeline + the status API + the reviewer app (Ctrl-C stops);
                                             --max-jobs-per-owner N: an owner's jobs over N wait as 'queued' (default: the stack's, 10; 0: no cap);
                                             --https-origin URL: an HTTPS proxy in front of the app, for Word (docs/word-addin.md);
                                             --owners-decide-own-escalations: a team of one decides the escalations on its own jobs
  clause-review local down                   stop a 'local up' running in another terminal
  clause-review purge <job>                  delete an ended job's document (every version), work files, reports and items
  clause-review dlq ls|redrive|triage        dead letters: list, redrive, classify (clause-review dlq --help)
  clause-review doctor [--local] [--model ID] check every configured Bedrock model: lifecycle, access, how it is invoked, and one request of the workers' shape
  clause-review plan <file...> [--defaults]  time, cost and the binding limit of a batch at the account's quotas (plan --help)
  clause-review playbook validate|put|list|show
                                             the positions a contract is reviewed against (playbook --help)
  clause-review addin manifest [--out FILE] [--base URL]
                                             the Word add-in's manifest.xml for the stack (addin --help)

${TARGET_USAGE}

Options of review:
  --lane ${LANES.join('|').padEnd(18)} processing lane (default realtime: Lambda handlers; batch: Fargate-style worker processes)
  --ceiling USD             cost ceiling per document in dollars (default 20; a ceiling below the quote is refused;
                            --budget, its earlier name, is still read)
  --fault-rate R            share of model calls the stand-in fails with transient errors (default 0)
  --workers N               batch-lane worker processes (default 2)
  --concurrency N           model calls in flight per worker (default 8)
  --latency-ms MS           stand-in latency per call (default 0)
  --seed N                  seed of the stand-in's fault plan (default 1)
  --out DIR                 where reports go (default ./reports)
  --timeout S               give up waiting after S seconds (default 1800)
  --allow-partial           run even when --ceiling is below the quote's expected cost, up to the ceiling
  --model ID                every analyst's primary model for this run (checked before upload: a retired model is refused)
  --playbook NAME[@VERSION] review against a playbook: a shipped one (default, nda), or a playbook file, put first
  --contract-type TYPE      the playbook's contract type whose topics apply (default: read from the title or file name)
  --party NAME              with --playbook, the party the review is for, as the contract names it ("Franchisee", "Acme Inc.");
                            default: the playbook's side matched to the contract's parties
  --all-analysts            with --playbook, ask every analyst, even one the playbook gives nothing to judge
  --full-panel              ask every analyst about every clause (default: the relevance screen first leaves out the analysts a clause cannot concern)
  --against FILE|JOB_ID     the version the documents answer (ours): each is compared with it, their differences judged and answered

Answers on the local stack come from the stand-in's offline learned analyst (trained on CUAD lawyer labels), not a legal-grade model.`;

const REVIEW_OPTIONS = {
  lane: { type: 'string' },
  ceiling: { type: 'string' },
  budget: { type: 'string' },
  'fault-rate': { type: 'string' },
  workers: { type: 'string' },
  concurrency: { type: 'string' },
  'latency-ms': { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  timeout: { type: 'string' },
  model: { type: 'string' },
  playbook: { type: 'string' },
  'contract-type': { type: 'string' },
  party: { type: 'string' },
  'all-analysts': { type: 'boolean' },
  'full-panel': { type: 'boolean' },
  'allow-partial': { type: 'boolean' },
  against: { type: 'string' },
} as const;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    PROCESS_IO.out(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'dlq') {
    const { target: options, rest: dlqArgs } = splitTargetArgs(rest);
    if (dlqArgs.length === 0 || dlqArgs.includes('--help') || dlqArgs.includes('-h')) {
      // Usage only: dlqCommand prints it for `<sub> --help` before touching a client, so no stack is needed.
      const code = await dlqCommand(['ls', '--help'], {
        clients: {} as never,
        resources: {} as never,
        print: PROCESS_IO.out,
      });
      return dlqArgs.length === 0 ? 2 : code;
    }
    const target = await resolveTarget(options);
    try {
      return await dlqCommand(dlqArgs, {
        clients: target.clients,
        resources: target.resources,
        print: PROCESS_IO.out,
      });
    } finally {
      target.destroy();
    }
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    PROCESS_IO.out(
      command === 'doctor'
        ? DOCTOR_USAGE
        : command === 'purge'
          ? PURGE_USAGE
          : command === 'plan'
            ? PLAN_USAGE
            : command === 'playbook'
              ? PLAYBOOK_USAGE
              : command === 'addin'
                ? ADDIN_USAGE
                : USAGE,
    );
    return 0;
  }
  switch (command) {
    case 'submit':
      return submitCommand(rest, PROCESS_IO);
    case 'status':
      return statusCommand(rest, PROCESS_IO);
    case 'cancel':
      return cancelCommand(rest, PROCESS_IO);
    case 'report':
      return reportCommand(rest, PROCESS_IO);
    case 'pause':
      return pauseCommand(rest, PROCESS_IO);
    case 'resume':
      return resumeCommand(rest, PROCESS_IO);
    case 'findings':
      return rest.includes('--gated')
        ? findingsCommand(rest, PROCESS_IO)
        : liveFindingsCommand(rest, PROCESS_IO);
    case 'jobs':
      return jobsCommand(rest, PROCESS_IO);
    case 'decide':
      return decideCommand(rest, PROCESS_IO);
    case 'redline':
      return redlineCommand(rest, PROCESS_IO);
    case 'local':
      return localCommand(rest, PROCESS_IO);
    case 'purge':
      return purgeCommand(rest, PROCESS_IO);
    case 'doctor':
      return doctorCommand(rest, PROCESS_IO);
    case 'plan':
      return planCommand(rest, PROCESS_IO);
    case 'playbook':
      return playbookCommand(rest, PROCESS_IO);
    case 'addin':
      return addinCommand(rest, PROCESS_IO);
    case 'review': {
      const { positionals, values } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: REVIEW_OPTIONS,
      });
      return review(positionals, values as Record<string, string | undefined>);
    }
    default:
      throw new CliError(`unknown command '${argv.join(' ')}'\n\n${USAGE}`);
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (isCliError(error)) {
    PROCESS_IO.err(`error: ${error.message}`);
    process.exitCode = error.exitCode;
  } else if (isLocalStackError(error)) {
    PROCESS_IO.err(`error: ${error.message}`);
    process.exitCode = 2;
  } else if (
    error instanceof TypeError &&
    'code' in error &&
    String(error.code).startsWith('ERR_PARSE_ARGS')
  ) {
    PROCESS_IO.err(`error: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else throw error;
}
