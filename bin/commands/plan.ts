/**
 * `clause-review plan <files...>`: the expected time and cost of reviewing a batch on a real
 * account, which limit binds first and what to raise. The load and the money come from the
 * quote's own code (estimateJob); the limits from Service Quotas when credentials are present,
 * else AWS's defaults (bin/capacity/).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { isAnalystError, selectAnalysts, withPrimary } from '../../lambdas/core/analysts/index.js';
import { isDocumentRejectedError, parseDocument } from '../../lambdas/core/documents/index.js';
import { type JobEstimate, quoteDocument } from '../../lambdas/core/intake/quote.js';
import { DEFAULT_CEILING_MICROS } from '../../lambdas/core/lanes-and-limits.js';
import {
  FALLBACK_MODEL_ID,
  modelSpec,
  PRIMARY_MODEL_ID,
  UnpricedModelError,
} from '../../lambdas/core/model-catalogue.js';
import type { StaticCredentials } from '../../lambdas/shared/aws-clients.js';
import { DEFAULT_TOKENS_PER_MINUTE, defaultDailySpendPerOwner } from '../../lib/owner-cap.js';
import {
  type Assumptions,
  type BatchPlan,
  DEFAULT_ASSUMPTIONS,
  DEFAULT_STACK,
  type LimitRow,
  planBatch,
} from '../capacity/model.js';
import { type OwnerDay, ownerDay } from '../capacity/owner-day.js';
import { type AccountLimits, BEDROCK_QUOTAS, defaultLimits, readAccountLimits } from '../capacity/quotas.js';
import { CliError, type CliIo } from './cli-error.js';

export const PLAN_USAGE = `Usage: clause-review plan <file...> [--lane realtime|batch] [--call-seconds S]
                          [--analysts a,b,…] [--model ID] [--full-panel] [--daily-spend USD]
                          [--defaults] [--profile P] [--region R] [--json]

Plans a batch on a real account: per file the clauses, calls and quote (expected and worst
case), then the time the batch needs under each limit (Bedrock tokens and requests per minute
per model, the calls the stack keeps in flight, DynamoDB's table throughput), the one that binds,
the cost, and what to raise. Quotas are read with Service Quotas (GetServiceQuota) with your
credentials (--profile, --region); without credentials, or with --defaults, AWS's default quotas
in us-east-1 are used. --call-seconds is the time one model call takes (default ${DEFAULT_ASSUMPTIONS.callSeconds}).
The calls are those intake would ask: after the relevance screen, unless --full-panel.
It also shows the batch against one owner's daily spend cap: the stack's default (an hour of the
primary model's tokens per minute, as read) or --daily-spend USD (0: none).`;

const OPTIONS = {
  lane: { type: 'string' },
  'call-seconds': { type: 'string' },
  analysts: { type: 'string' },
  model: { type: 'string' },
  'full-panel': { type: 'boolean' },
  defaults: { type: 'boolean' },
  profile: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean' },
  'daily-spend': { type: 'string' },
} as const;

/** One file's estimate. */
export interface PlannedFile {
  readonly file: string;
  readonly clauses: number;
  readonly estimate: JobEstimate;
}

/** Reads and estimates one file as intake would quote it. */
export async function estimateFile(
  path: string,
  analystIds: readonly string[] | undefined,
  primary: string | undefined,
  fullPanel = false,
): Promise<PlannedFile> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, 2, { cause: error });
  }
  try {
    const doc = await parseDocument(bytes, { key: basename(path), maxBytes: 10 * 1024 * 1024 });
    const panel = { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID };
    const { quote, loads } = quoteDocument(doc, {
      analysts: selectAnalysts(analystIds).map((a) => a.id),
      models: primary ? withPrimary(panel, primary) : panel,
      fullPanel,
    });
    return { file: path, clauses: doc.clauses.length, estimate: { quote, loads } };
  } catch (error) {
    if (isDocumentRejectedError(error)) {
      throw new CliError(`${path} would be refused at intake (${error.reason}): ${error.message}`, 2, {
        cause: error,
      });
    }
    if (isAnalystError(error) || error instanceof UnpricedModelError) {
      throw new CliError(error.message, 2, { cause: error });
    }
    throw error;
  }
}

/** The account's limits, or the defaults with the reason. */
async function accountLimits(
  ids: readonly string[],
  values: { defaults?: boolean; profile?: string; region?: string },
): Promise<AccountLimits> {
  if (values.defaults) return defaultLimits(ids, 'AWS default quotas (--defaults)');
  const cfn = new CloudFormationClient({
    ...(values.region ? { region: values.region } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
  });
  try {
    const region = await cfn.config.region().catch(() => 'us-east-1');
    const provider = cfn.config.credentials as () => Promise<StaticCredentials>;
    try {
      await provider();
    } catch (error) {
      return defaultLimits(
        ids,
        `AWS default quotas: no AWS credentials (${(error as Error).message.split('\n')[0]})`,
      );
    }
    try {
      return await readAccountLimits(region, provider, ids);
    } catch (error) {
      return defaultLimits(
        ids,
        `AWS default quotas: Service Quotas could not be read (${(error as Error).message})`,
      );
    }
  } finally {
    cfn.destroy();
  }
}

const usd = (micros: number) =>
  `$${(micros / 1_000_000).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
const minutes = (m: number) =>
  m >= 120 ? `${(m / 60).toFixed(1)} h` : m >= 1 ? `${m.toFixed(1)} min` : `${(m * 60).toFixed(1)} s`;

/** What to raise when this limit binds. */
export function raiseAdvice(row: LimitRow): string {
  const model = /, (anthropic\.[^ ]+)$/.exec(row.limit)?.[1];
  const spec = model ? BEDROCK_QUOTAS[model] : undefined;
  if (spec && !spec.tokensCode) {
    return `request an increase of "Cross-Region InvokeModel tokens per minute for ${spec.name}" (Service Quotas, Amazon Bedrock; its figures here are assumed, Claude Haiku 4.5's defaults: check the applied value there first)`;
  }
  if (spec && row.limit.startsWith('Bedrock tokens/min')) {
    return `request a Cross-Region tokens-per-minute increase for ${spec.name} (Service Quotas, bedrock ${spec.tokensCode}; its requests-per-minute quota can be raised in the same request)`;
  }
  if (spec)
    return `request a Cross-Region requests-per-minute increase for ${spec.name} (bedrock ${spec.requestsCode})`;
  if (row.limit.startsWith('calls in flight')) {
    return 'raise the lane maximum concurrency (lib/topology.ts maxConcurrency) or CALL_CONCURRENCY, within Lambda concurrent executions';
  }
  return 'ask for a higher DynamoDB table throughput quota';
}

/** Prints the plan as text. */
export function printPlan(
  files: readonly PlannedFile[],
  plan: BatchPlan,
  limits: AccountLimits,
  io: CliIo,
  day?: OwnerDay,
): void {
  io.out(`Batch: ${plan.contracts} contract(s), ${plan.calls.toLocaleString('en-US')} model calls`);
  for (const f of files) {
    const calls = Object.values(f.estimate.loads).reduce((s, l) => s + l.calls, 0);
    io.out(
      `  ${basename(f.file)}: ${f.clauses} clauses, ${calls.toLocaleString('en-US')} calls, ` +
        `${usd(f.estimate.quote.expectedMicros)} expected (worst case ${usd(f.estimate.quote.worstCaseMicros)})`,
    );
  }
  io.out(`Limits (${limits.note}), slowest first:`);
  for (const r of plan.limits)
    io.out(`  ${minutes(r.minutes).padStart(9)}  ${r.limit}: ${r.load} at ${r.rate}`);
  const [binding, next] = plan.limits;
  if (!binding) return;
  io.out(
    `Binding: ${binding.limit}. The batch takes about ${minutes(plan.minutes)} ` +
      `(${plan.contractsPerHour.toFixed(1)} contracts of this mix per hour); ` +
      `${minutes(plan.minutesOtherReading)} if prompt-cache reads ${plan.cacheReadsCount ? 'do not count' : 'count'} toward tokens per minute.`,
  );
  io.out(
    `Cost: ${usd(plan.expectedMicros)} expected on Bedrock (worst case ${usd(plan.worstCaseMicros)}), ` +
      `${usd(plan.infraMicros)} Lambda and DynamoDB; batches like this back to back: ${usd(plan.monthlyMicros)} a month.`,
  );
  io.out(
    `Raise first: ${raiseAdvice(binding)}.${next ? ` Then ${next.limit} binds at ${minutes(next.minutes)}.` : ''}`,
  );
  if (day) io.out(ownerDayLine(day));
}

/** The batch against one owner's daily spend cap, in words. */
export function ownerDayLine(day: OwnerDay): string {
  if (day.capMicros === 0) return "Owner's day: no daily spend cap (--daily-spend 0).";
  return (
    `Owner's day: ${usd(day.capMicros)} a day per owner (${day.capSource}). From one owner, this batch counts ` +
    `${usd(day.boundsMicros)} as its jobs start (each at its worst case, up to the default ceiling; the largest ` +
    `${usd(day.largestBoundMicros)}) and settles at what they spend: about ${day.days} day(s) of that owner's spending` +
    (day.refused > 0
      ? `; ${day.refused} job(s) could never start under the cap and would be refused (raise -c dailySpendPerOwner).`
      : '.')
  );
}

/** `clause-review plan <files...>` */
export async function planCommand(args: string[], io: CliIo): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  if (positionals.length === 0) throw new CliError(`plan needs at least one file\n\n${PLAN_USAGE}`, 2);
  const lane = values.lane ?? 'realtime';
  if (lane !== 'realtime' && lane !== 'batch')
    throw new CliError(`--lane must be realtime or batch; got '${lane}'`, 2);
  const callSeconds =
    values['call-seconds'] === undefined ? DEFAULT_ASSUMPTIONS.callSeconds : Number(values['call-seconds']);
  if (!Number.isFinite(callSeconds) || callSeconds <= 0) {
    throw new CliError(
      `--call-seconds must be a number of seconds above 0; got '${values['call-seconds']}'`,
      2,
    );
  }
  const analystIds = values.analysts
    ?.split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const files: PlannedFile[] = [];
  for (const path of positionals)
    files.push(
      await estimateFile(path, analystIds, values.model?.trim() || undefined, values['full-panel'] ?? false),
    );
  const ids = [
    ...new Set(
      files.flatMap((f) => Object.keys(f.estimate.loads).map((m) => modelSpec(m).foundationModelId)),
    ),
  ];
  const limits = await accountLimits(ids, values);
  const assume: Assumptions = { ...DEFAULT_ASSUMPTIONS, callSeconds, lane };
  const plan = planBatch(
    files.map((f) => f.estimate),
    limits,
    DEFAULT_STACK,
    assume,
  );
  const day = ownerDayOf(files, limits, values['daily-spend'], values.model?.trim() || PRIMARY_MODEL_ID);
  if (values.json)
    io.out(
      JSON.stringify(
        {
          files: files.map((f) => ({ file: f.file, clauses: f.clauses, ...f.estimate })),
          limits,
          plan,
          ownerDay: day,
        },
        null,
        2,
      ),
    );
  else printPlan(files, plan, limits, io, day);
  return 0;
}

/** The batch against the cap given (`--daily-spend USD`), else the stack's default for the primary and its quota. */
function ownerDayOf(
  files: readonly PlannedFile[],
  limits: AccountLimits,
  given: string | undefined,
  primary: string,
): OwnerDay {
  const estimates = files.map((f) => f.estimate);
  if (given !== undefined) {
    const dollars = Number(given);
    if (!/^\d+(\.\d{1,6})?$/.test(given.trim()) || !Number.isFinite(dollars)) {
      throw new CliError(`--daily-spend must be dollars a day, 0 for no cap, such as 50; got '${given}'`, 2);
    }
    return ownerDay(estimates, Math.round(dollars * 1_000_000), DEFAULT_CEILING_MICROS, '--daily-spend');
  }
  const quota = limits.models[modelSpec(primary).foundationModelId];
  const tpm = quota?.tokensPerMinute;
  return ownerDay(
    estimates,
    defaultDailySpendPerOwner(primary, tpm),
    DEFAULT_CEILING_MICROS,
    `the stack's default: an hour of ${primary} at ${(tpm ?? DEFAULT_TOKENS_PER_MINUTE).toLocaleString('en-US')} tokens/min; -c dailySpendPerOwner sets another`,
  );
}
