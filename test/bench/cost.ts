/**
 * What the README sample costs with the default models: one run through the local pipeline
 * with prompt caching and the document context, priced from the tokens Bedrock (here the
 * stand-in, which counts four characters a token) reports, set against the same calls priced
 * two other ways:
 *
 * - the same context sent uncached: every input token at the input price;
 * - the requests without the document context (title, parties, definitions), uncached.
 *
 * Output tokens are the run's own in all three, so only the input side differs.
 *
 * Then the levers, in one table ({@link formatCostLevers}): the sample and the largest contract
 * run with the full panel and with the relevance screen (`full-panel=false`), each with the calls
 * asked and screened, the tokens and the dollars billed.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ANALYSTS, buildConverseInput, inputChars } from '../../lambdas/core/analysts/index.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { MODEL_PRICES, PRIMARY_MODEL_ID, tokensOf } from '../../lambdas/core/model-catalogue.js';
import type { Report } from '../../lambdas/core/report-types.js';
import { Jobs } from '../../lambdas/core/state/jobs.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { startLocalRun } from '../../localstack/runtime/local-run.js';

/** The figures of one cost run. */
export interface CostBenchResult {
  /** The model every analyst asked (the upload's `model`, else the default primary). */
  readonly modelId: string;
  /** Calls asked: planned less screened. */
  readonly calls: number;
  readonly screened: number;
  readonly clauses: number;
  readonly quote: { expectedMicros: number; worstCaseMicros: number } | undefined;
  readonly actualMicros: number;
  readonly tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Input cost as billed, as if the same context were sent uncached, and without the context. */
  readonly inputMicros: { cached: number; uncached: number; withoutContext: number };
}

const per1k = (tokens: number, price: number) => Math.ceil((tokens * price) / 1000);

/**
 * Runs one document through the local pipeline and prices what it cost.
 * @param metadata the upload's options (`playbook`, `contract-type`, …); none for the generic review
 */
export async function runCostBench(
  file: string,
  log: (line: string) => void = () => {},
  metadata: Readonly<Record<string, string>> = {},
): Promise<CostBenchResult & { readonly report: Report }> {
  const run = await startLocalRun({}, { settings: LOCAL_RUN_DEFAULTS, batchWorkers: 0, log });
  const { stack, pipeline } = run;
  try {
    const key = `${stack.resources.intakePrefix}${basename(file)}`;
    const bytes = readFileSync(file);
    const put = await pipeline.clients.s3.send(
      new PutObjectCommand({
        Bucket: stack.resources.intakeBucket,
        Key: key,
        Body: bytes,
        Metadata: { ...metadata },
      }),
    );
    const jobId = jobIdOfPut(stack.resources.intakeBucket, key, put);
    const jobs = new Jobs(pipeline.clients.db, stack.resources.tableName);
    let job = await jobs.find(jobId);
    while (!job?.finalizedAt && job?.status !== 'rejected') {
      await new Promise((r) => setTimeout(r, 1000));
      job = await jobs.find(jobId);
    }
    if (!job.reportKey)
      throw new Error(`the cost run ended ${job.status} without a report: ${job.reason ?? ''}`);
    const body = await pipeline.clients.s3.send(
      new GetObjectCommand({ Bucket: stack.resources.resultsBucket, Key: job.reportKey }),
    );
    const report = JSON.parse((await body.Body?.transformToString()) ?? '{}') as Report;
    const c = report.cost;
    const modelId = metadata.model ?? PRIMARY_MODEL_ID;
    const price = MODEL_PRICES[modelId];
    if (!price) throw new Error(`no price for ${modelId}`);
    // The requests without the document context, counted as the stand-in counts them.
    const doc = await parseDocument(bytes, { key, maxBytes: 10 * 1024 * 1024, chunk: { maxClauses: 8 } });
    let bareTokens = 0;
    for (const analyst of ANALYSTS) {
      for (const clause of doc.clauses) {
        const input = buildConverseInput(analyst, clause, { modelId });
        bareTokens += tokensOf(modelId, inputChars(input, false));
      }
    }
    return {
      report,
      modelId,
      calls: report.coverage.callsPlanned - report.coverage.callsScreened,
      screened: report.coverage.callsScreened,
      clauses: report.summary.clauses,
      quote: c.quote,
      actualMicros: c.spentMicros,
      tokens: {
        input: c.inputTokens,
        output: c.outputTokens,
        cacheRead: c.cacheReadInputTokens,
        cacheWrite: c.cacheWriteInputTokens,
      },
      inputMicros: {
        cached:
          per1k(c.inputTokens, price.inputPer1k) +
          per1k(c.cacheReadInputTokens, price.cacheReadPer1k) +
          per1k(c.cacheWriteInputTokens, price.cacheWritePer1k),
        uncached: per1k(c.inputTokens + c.cacheReadInputTokens + c.cacheWriteInputTokens, price.inputPer1k),
        withoutContext: per1k(bareTokens, price.inputPer1k),
      },
    };
  } finally {
    await run.stop();
  }
}

const usd = (micros: number) => `$${(micros / 1e6).toFixed(2)}`;

export function formatCostBench(r: CostBenchResult): string {
  const output = per1k(r.tokens.output, MODEL_PRICES[r.modelId]?.outputPer1k ?? 0);
  const saving = 1 - r.inputMicros.cached / r.inputMicros.uncached;
  return [
    `calls                                    ${r.calls.toLocaleString('en-US')} (${r.modelId})`,
    `quote before any call                    ${r.quote ? `${usd(r.quote.expectedMicros)} expected, ${usd(r.quote.worstCaseMicros)} worst case` : 'none'}`,
    `actual, with caching and the context     ${usd(r.actualMicros)} (input ${usd(r.inputMicros.cached)}, output ${usd(output)})`,
    `same context, uncached                   ${usd(r.inputMicros.uncached + output)} (input ${usd(r.inputMicros.uncached)})`,
    `without the context (today's requests)   ${usd(r.inputMicros.withoutContext + output)} (input ${usd(r.inputMicros.withoutContext)})`,
    `input cost saved by caching              ${(saving * 100).toFixed(1)} %`,
    `tokens: uncached input / cache read / cache write / output   ${[r.tokens.input, r.tokens.cacheRead, r.tokens.cacheWrite, r.tokens.output].map((n) => n.toLocaleString('en-US')).join(' / ')}`,
  ].join('\n');
}

/** One row of the levers table: a contract, the lever pulled, and its run. */
export interface CostLeverRun {
  readonly contract: string;
  readonly lever: string;
  readonly run: CostBenchResult;
}

/** What a run's tokens cost at its model's prices, micro-dollars: independent of calls billed twice by a redelivery. */
export function tokensMicros(t: CostBenchResult['tokens'], modelId: string = PRIMARY_MODEL_ID): number {
  const price = MODEL_PRICES[modelId];
  if (!price) throw new Error(`no price for ${modelId}`);
  return (
    per1k(t.input, price.inputPer1k) +
    per1k(t.cacheRead, price.cacheReadPer1k) +
    per1k(t.cacheWrite, price.cacheWritePer1k) +
    per1k(t.output, price.outputPer1k)
  );
}

/**
 * The levers table: per contract and lever, calls, tokens and dollars (priced from the tokens of
 * the answers kept, and as the job accounted them, which adds any call a redelivery made twice),
 * and the change against the contract's first row.
 */
export function formatCostLevers(rows: readonly CostLeverRun[]): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    '| contract | levers | calls asked | screened | uncached input | cache read | cache write | output | output per call | dollars (tokens) | per clause | vs first row | billed by the job |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const first = new Map<string, number>();
  for (const { contract, lever, run } of rows) {
    const micros = tokensMicros(run.tokens, run.modelId);
    if (!first.has(contract)) first.set(contract, micros);
    const base = first.get(contract) ?? micros;
    const change = base === micros ? '' : `${(((micros - base) / base) * 100).toFixed(0)} %`;
    const t = run.tokens;
    lines.push(
      `| ${contract} (${n(run.clauses)} clauses) | ${lever} | ${n(run.calls)} | ${n(run.screened)} | ${n(t.input)} | ${n(t.cacheRead)} | ${n(t.cacheWrite)} | ${n(t.output)} | ${(t.output / Math.max(1, run.calls)).toFixed(1)} | ${usd(micros)} | $${(micros / 1e6 / Math.max(1, run.clauses)).toFixed(4)} | ${change} | ${usd(run.actualMicros)} |`,
    );
  }
  return lines.join('\n');
}
