/**
 * `submit <file>`: the CLI's flags turned into a POST /jobs request, the document uploaded
 * through the presigned form the API answers, or with --dry-run the signed request shown.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isLane, LANE_CHOICES } from '../../lambdas/core/lanes-and-limits.js';
import { dollars } from '../../lambdas/text/money.js';
import { uploadDocument, uploadVersion } from '../client/api-client.js';
import { awaitsIntake, parse, type TargetResolver, withTarget } from './api-commands.js';
import { ceilingFlag } from './ceiling-flag.js';
import { CliError, type CliIo } from './cli-error.js';
import { resolveTarget, type Target } from './target.js';

/** `submit`'s flags. */
const SUBMIT_FLAGS = {
  lane: { type: 'string' },
  ceiling: { type: 'string' },
  /** `--ceiling`'s name before, still read for one release. */
  budget: { type: 'string' },
  analysts: { type: 'string' },
  'allow-partial': { type: 'boolean' },
  gate: { type: 'string' },
  'review-hours': { type: 'string' },
  playbook: { type: 'string' },
  'contract-type': { type: 'string' },
  party: { type: 'string' },
  'all-analysts': { type: 'boolean' },
  'full-panel': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  against: { type: 'string' },
} as const;

type SubmitFlags = ReturnType<typeof parse<typeof SUBMIT_FLAGS>>['values'];

/** The submission `submit`'s flags ask for, and the version it answers. @throws CliError naming the flag */
function submitRequestOf(values: SubmitFlags, file: string) {
  const lane = values.lane;
  if (lane !== undefined && !isLane(lane)) {
    throw new CliError(`--lane must be ${LANE_CHOICES}; got '${lane}'`);
  }
  const { flag, given } = ceilingFlag(values);
  const ceiling = given === undefined ? undefined : Number(given);
  if (ceiling !== undefined && !(Number.isFinite(ceiling) && ceiling > 0)) {
    throw new CliError(`--${flag} must be a number of dollars above 0; got '${given}'`);
  }
  const analysts = values.analysts
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const review = reviewOptions(values.gate, values['review-hours']);
  const against = againstOf(values.against);
  const request = {
    filename: basename(file),
    ...(lane ? { lane } : {}),
    ...(ceiling !== undefined ? { ceilingUsd: ceiling } : {}),
    ...(analysts ? { analysts } : {}),
    ...(values['allow-partial'] ? { allowPartial: true } : {}),
    ...review,
    ...(values.playbook ? { playbook: values.playbook } : {}),
    ...(values['contract-type'] ? { contractType: values['contract-type'] } : {}),
    ...(values.party ? { party: values.party } : {}),
    ...(values['all-analysts'] ? { allAnalysts: true } : {}),
    ...(values['full-panel'] ? { fullPanel: true } : {}),
    ...against.request,
  };
  return { request, against };
}

/** `submit <file>`: presigned upload through the API; prints the job and submission ids. */
export async function submitCommand(argv: string[], io: CliIo, resolveWith: TargetResolver = resolveTarget) {
  const { values, positionals } = parse(argv, SUBMIT_FLAGS);
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0)
    throw new CliError('name exactly one contract file: clause-review submit <file>');
  const bytes = fileBytes(file);
  const { request, against } = submitRequestOf(values, file);
  return withTarget(values, resolveWith, async (target) => {
    if (values['dry-run']) return dryRunSubmit(target, request, file, bytes.length, io);
    const submission = await target.api.submit(request);
    if (against.bytes) await uploadVersion(submission, against.bytes);
    await uploadDocument(submission, bytes);
    // Until intake records the job, only the submission id resolves; wait a little for it, and
    // for the quote intake computes once it has read the document.
    let view = await target.api.status(submission.submissionId);
    for (const deadline = Date.now() + 20_000; awaitsIntake(view) && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 500));
      view = await target.api.status(submission.submissionId);
    }
    const handle = awaitsIntake(view) ? submission.submissionId : view.jobId;
    const flag = target.kind === 'local' ? ' --local' : '';
    io.err(
      `uploaded ${file} → s3://${submission.bucket}/${submission.key} ` +
        `(lane ${submission.options.lane}, ceiling ${dollars(submission.options.ceilingUsd)}, ` +
        `${submission.options.analysts.length} analysts` +
        `${submission.options.playbook ? `, playbook ${submission.options.playbook.name}@${submission.options.playbook.version}` : ''})`,
    );
    io.out(`job ${view.jobId} (submission ${submission.submissionId})`);
    const quote = view.cost.quote;
    if (quote) {
      io.err(
        `quote: ${dollars(quote.expectedUsd)} expected, ${dollars(quote.worstCaseUsd)} at worst (ceiling ${dollars(view.cost.ceilingUsd)})` +
          (quote.notAsked
            ? `; the playbook saves ${quote.notAsked.calls} calls, ${dollars(quote.notAsked.expectedUsd)} expected`
            : '') +
          (quote.computeUsd
            ? `; compute besides: ${dollars(quote.computeUsd.realtime)} on Lambda (realtime), ${dollars(quote.computeUsd.batch)} on Fargate (batch)`
            : ''),
      );
    }
    if (view.status === 'rejected') {
      io.err(
        `rejected${view.rejection ? ` (${view.rejection})` : ''}: ${view.reason ?? 'no reason recorded'}`,
      );
      return 1;
    }
    if (view.status === 'queued')
      io.err('intake has not picked the upload up yet; the submission id works until it has');
    io.err(`follow it: clause-review status ${handle} --watch${flag}`);
    return 0;
  });
}

/**
 * `submit --dry-run`: what `submit` would do on this target, read from its outputs, with the
 * request signed by the caller's credentials as it would be sent; nothing is sent or uploaded.
 */
async function dryRunSubmit(target: Target, request: object, file: string, bytes: number, io: CliIo) {
  const signed = await target.api.sign('POST', 'jobs', request);
  const r = target.resources;
  io.out(
    `dry run on ${target.kind === 'local' ? 'the local stack' : `stack '${target.name}' (${target.region})`}: nothing sent`,
  );
  io.out(`  would POST ${signed.url.href} ${signed.payload ?? ''}`);
  io.out(`    signed: ${signed.headers.authorization?.split(',')[0] ?? 'no authorization header'}`);
  io.out(
    `  then POST ${file} (${bytes} bytes) with the presigned upload form it returns, under s3://${r.intakeBucket}/${r.intakePrefix}`,
  );
  io.out(
    `  intake queue ${r.queueUrls.intake}; reports in s3://${r.resultsBucket}/${r.resultsPrefix}; state table ${r.tableName}`,
  );
  return 0;
}

/**
 * `--against FILE|JOB_ID`: the version the document answers, as the request names it (a job, or a
 * file's name), with the file's bytes to upload first.
 * @throws CliError when the file cannot be read
 */
function againstOf(given: string | undefined): {
  request: { against?: string; againstFilename?: string };
  bytes?: Buffer;
} {
  if (given === undefined) return { request: {} };
  if (/^j-[0-9a-f]{20}$/.test(given)) return { request: { against: given } };
  return { request: { againstFilename: basename(given) }, bytes: fileBytes(given, '--against: ') };
}

/** A file's bytes. @throws CliError naming the file and why it cannot be read */
function fileBytes(file: string, what = ''): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new CliError(`${what}cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The review options of `submit` and `review`, checked. */
export function reviewOptions(
  gate: string | undefined,
  hours: string | undefined,
): { gate?: 'none' | 'critical' | 'high'; reviewHours?: number } {
  if (gate !== undefined && gate !== 'none' && gate !== 'critical' && gate !== 'high') {
    throw new CliError(`--gate must be 'none', 'critical' or 'high'; got '${gate}'`);
  }
  const reviewHours = hours === undefined ? undefined : Number(hours);
  if (reviewHours !== undefined && !(Number.isFinite(reviewHours) && reviewHours > 0 && reviewHours <= 720)) {
    throw new CliError(`--review-hours must be a number of hours above 0 and at most 720; got '${hours}'`);
  }
  return { ...(gate ? { gate } : {}), ...(reviewHours !== undefined ? { reviewHours } : {}) };
}
