/**
 * The bar for the pipeline bench: a plain job queue with one job per model call. `capacity`
 * callers each take the next call and send it through the real SDK client to the stand-in (in
 * its own process, as the pipeline bench runs it), with the prompts the pipeline would send for
 * the contract: no ledger, ceiling, checkpoints or status reads. What it reaches of C/L is what
 * the model's latency and the client alone leave on this machine.
 *
 *   npx tsx test/bench/run-all.ts --only baseline
 */
import { readFileSync } from 'node:fs';
import { ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { ANALYSTS, buildConverseInput } from '../../lambdas/core/analysts/index.js';
import { findDocumentContext } from '../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createClients } from '../../lambdas/shared/runtime.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { standInProcess } from './pipeline.js';

export interface PlainQueueResult {
  readonly calls: number;
  readonly seconds: number;
  readonly boundPerSecond: number;
  readonly meanRequestMs: number;
  readonly throttled: number;
}

export async function runPlainQueueBench(options: {
  readonly file: string;
  readonly latencyMs: number;
  readonly capacity: number;
  readonly seconds: number;
}): Promise<PlainQueueResult> {
  const doc = await parseDocument(readFileSync(options.file), {
    key: options.file,
    maxBytes: 10 * 1024 * 1024,
  });
  const context = findDocumentContext(doc.text, doc.clauses);
  const standIn = await standInProcess({
    latency: { kind: 'fixed', ms: options.latencyMs },
    capacity: { maxInFlight: options.capacity },
  });
  try {
    const { bedrock } = createClients({
      bedrockEndpoint: standIn.url,
      region: LOCAL_REGION,
      credentials: EMULATOR_CREDENTIALS,
    });
    let next = 0;
    let calls = 0;
    let throttled = 0;
    let requestMs = 0;
    const started = performance.now();
    const end = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.capacity }, async () => {
        while (performance.now() < end) {
          const i = next++;
          const analyst = ANALYSTS[i % ANALYSTS.length];
          const clause = doc.clauses[Math.floor(i / ANALYSTS.length) % doc.clauses.length];
          if (!analyst || !clause) throw new Error('no calls to make');
          const input = buildConverseInput(analyst, clause, { modelId: PRIMARY_MODEL_ID, context });
          const sent = performance.now();
          try {
            await bedrock.send(new ConverseCommand(input));
            calls++;
            requestMs += performance.now() - sent;
          } catch {
            throttled++;
          }
        }
      }),
    );
    return {
      calls,
      seconds: (performance.now() - started) / 1000,
      boundPerSecond: (options.capacity * 1000) / options.latencyMs,
      meanRequestMs: requestMs / Math.max(1, calls),
      throttled,
    };
  } finally {
    standIn.child.kill('SIGTERM');
  }
}

export function formatPlainQueueBench(label: string, r: PlainQueueResult): string {
  const perSecond = r.calls / r.seconds;
  return [
    `${label}: ${r.calls} calls in ${r.seconds.toFixed(1)} s, ${r.throttled} throttled`,
    `  achieved calls/s ÷ C/L             ${perSecond.toFixed(1)} ÷ ${r.boundPerSecond.toFixed(1)} = ${(perSecond / r.boundPerSecond).toFixed(3)}`,
    `  request to answer                  ${r.meanRequestMs.toFixed(1)} ms on average`,
  ].join('\n');
}
