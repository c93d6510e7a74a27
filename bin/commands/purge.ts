import { parseArgs } from 'node:util';
import { isPurgeError, type PurgeResult, purgeJob } from '../../lambdas/core/purge/index.js';
import { isJobNotFoundError } from '../../lambdas/core/state/errors.js';
import type { TargetResolver } from './api-commands.js';
import { CliError, type CliIo } from './cli-error.js';
import { resolveTarget, TARGET_ARGS, type TargetOptions } from './target.js';

export const PURGE_USAGE = `Usage:
  clause-review purge <job> [--stack NAME | --local]
      delete one ended job's data: every version of its uploaded document, its work files,
      its reports and its state-table items; the job record stays, marked purgedAt`;

const JOB_ID = /^j-[0-9a-f]{20}$/;

/** The lines `purge` prints for a result. */
export function describePurge(r: PurgeResult): string[] {
  const markers = r.objects.filter((o) => o.deleteMarker).length;
  const lines = [
    `purged ${r.jobId}: ${r.objects.length - markers} object version(s) and ${markers} delete marker(s) deleted ` +
      `(document, work files, reports), ${r.items} table item(s) deleted; ` +
      `the job record stays, marked purgedAt ${r.purgedAt}`,
  ];
  if (r.previouslyPurgedAt) lines.push(`(it had been purged before, at ${r.previouslyPurgedAt})`);
  for (const k of r.kept) {
    lines.push(
      `kept s3://${k.bucket}/${k.key} version ${k.versionId ?? '-'}: another upload to the same key, with other bytes`,
    );
  }
  return lines;
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: TARGET_ARGS });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n${PURGE_USAGE}`);
  }
}

/**
 * `purge <job>`: deletes the job's data straight through S3 and DynamoDB with the caller's own
 * credentials (like `dlq`), so only identities allowed to delete in the stack's buckets and
 * table can purge. Returns the exit code.
 */
export async function purgeCommand(
  argv: string[],
  io: CliIo,
  resolveWith: TargetResolver = resolveTarget,
): Promise<number> {
  const { values, positionals } = parse(argv);
  const [jobId, ...extra] = positionals;
  if (!jobId || extra.length > 0) throw new CliError(`name exactly one job\n${PURGE_USAGE}`);
  if (!JOB_ID.test(jobId)) {
    throw new CliError(
      `'${jobId}' is not a job id (j- and 20 hex digits)` +
        (jobId.startsWith('s-') ? `; 'clause-review status ${jobId}' shows the job id of a submission` : ''),
    );
  }
  const options: TargetOptions = {
    ...(values.stack ? { stack: values.stack } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
    ...(values.region ? { region: values.region } : {}),
    ...(values.local ? { local: true } : {}),
  };
  const target = await resolveWith(options);
  try {
    const result = await purgeJob(jobId, {
      db: target.clients.db,
      s3: target.clients.s3,
      tableName: target.resources.tableName,
      resultsBucket: target.resources.resultsBucket,
      resultsPrefix: target.resources.resultsPrefix,
    });
    for (const line of describePurge(result)) io.out(line);
    return 0;
  } catch (error) {
    if (isJobNotFoundError(error))
      throw new CliError(`no job ${jobId} on ${target.name}`, 1, { cause: error });
    if (isPurgeError(error)) throw new CliError(error.message, 1, { cause: error });
    throw error;
  } finally {
    target.destroy();
  }
}
