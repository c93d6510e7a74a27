/**
 * The bar the pipeline is measured against: a plain job queue with one message per model call,
 * on the same stand-in (its own process, same latency and capacity) and the same moto. Every
 * call of a contract (each clause × each analyst, the same Converse requests the pipeline
 * sends) is queued first; then `capacity` consumers each receive a message, call the model,
 * and delete the message, resending a throttled call after a short wait. It keeps none of the
 * pipeline's promises (no ledger, no ceiling, no cancel, no claims, no report): it shows what
 * the model, the SDK client and this machine allow when nothing else is done.
 *
 *   npx tsx test/bench/plain-queue.ts [--latency-ms 400] [--capacity 12] [--file PATH]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { selectAnalysts, withModels } from '../../lambdas/core/analysts/index.js';
import { buildConverseInput } from '../../lambdas/core/analysts/prompt.js';
import { findDocumentContext } from '../../lambdas/core/documents/document-context.js';
import { parseDocument } from '../../lambdas/core/documents/parse.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/models.js';
import { isThrottle } from '../../lambdas/core/worker/error-class.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { createClients } from '../../lambdas/shared/runtime.js';
import { startMotoServer } from '../../localstack/moto-server.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { BENCH_CONTRACT, standInProcess } from './pipeline.js';

export interface PlainQueueOptions {
  readonly latencyMs: number;
  readonly capacity: number;
  readonly file: string;
  readonly log?: (line: string) => void;
}

export interface PlainQueueResult {
  readonly calls: number;
  readonly throttled: number;
  /** From the first call's start to the last call's end. */
  readonly callingSeconds: number;
  readonly callsPerSecond: number;
  readonly boundPerSecond: number;
}

/** The contract's Converse requests, one per clause and analyst, as intake would plan them. */
async function requestsOf(file: string): Promise<ConverseCommandInput[]> {
  const parsed = await parseDocument(new Uint8Array(readFileSync(file)), {
    key: file,
    maxBytes: LOCAL_RUN_DEFAULTS.maxDocumentBytes,
    chunk: { maxClauses: LOCAL_RUN_DEFAULTS.chunkClauses },
  });
  const context = findDocumentContext(parsed.text, parsed.clauses);
  const analysts = withModels(selectAnalysts(), { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID });
  return parsed.clauses.flatMap((clause) =>
    analysts.map((analyst) => buildConverseInput(analyst, clause, { modelId: analyst.modelId, context })),
  );
}

export async function runPlainQueueBench(options: PlainQueueOptions): Promise<PlainQueueResult> {
  const log = options.log ?? (() => {});
  const requests = await requestsOf(options.file);
  const standIn = await standInProcess({
    latency: { kind: 'fixed', ms: options.latencyMs },
    capacity: { maxInFlight: options.capacity },
  });
  const moto = await startMotoServer();
  const clients = createClients({
    endpoint: moto.endpoint,
    bedrockEndpoint: standIn.url,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  try {
    const { QueueUrl } = await clients.sqs.send(
      new CreateQueueCommand({ QueueName: 'plain-queue', Attributes: { VisibilityTimeout: '60' } }),
    );
    const queueUrl = QueueUrl as string;
    for (let i = 0; i < requests.length; i += 10) {
      await clients.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: requests.slice(i, i + 10).map((_, j) => ({ Id: String(j), MessageBody: String(i + j) })),
        }),
      );
    }
    log(`  ${requests.length} calls queued; ${options.capacity} consumers`);
    let done = 0;
    let throttled = 0;
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    const consumer = async () => {
      while (done < requests.length) {
        const r = await clients.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
        );
        const message = r.Messages?.[0];
        if (!message) continue;
        const input = requests[Number(message.Body)] as ConverseCommandInput;
        for (;;) {
          first = Math.min(first, performance.now());
          try {
            await clients.bedrock.send(new ConverseCommand(input));
            break;
          } catch (error) {
            if (!isThrottle(error)) throw error;
            throttled++;
            await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
          }
        }
        last = performance.now();
        done++;
        await clients.sqs.send(
          new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
        );
      }
    };
    await Promise.all(Array.from({ length: options.capacity }, consumer));
    const callingSeconds = (last - first) / 1000;
    return {
      calls: done,
      throttled,
      callingSeconds,
      callsPerSecond: done / callingSeconds,
      boundPerSecond: options.capacity / (options.latencyMs / 1000),
    };
  } finally {
    clients.sqs.destroy();
    clients.bedrock.destroy();
    await moto.stop();
    standIn.child.kill('SIGTERM');
  }
}

export function formatPlainQueueBench(r: PlainQueueResult): string {
  return [
    `  calls answered                     ${r.calls}, throttled ${r.throttled}`,
    `  achieved calls/s ÷ C/L             ${r.callsPerSecond.toFixed(1)} ÷ ${r.boundPerSecond.toFixed(1)} = ${(r.callsPerSecond / r.boundPerSecond).toFixed(3)} (${r.callingSeconds.toFixed(1)} s from the first call to the last)`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('plain-queue.ts')) {
  const { values } = parseArgs({
    options: {
      'latency-ms': { type: 'string', default: '400' },
      capacity: { type: 'string', default: '12' },
      file: { type: 'string', default: BENCH_CONTRACT },
    },
  });
  const result = await runPlainQueueBench({
    latencyMs: Number(values['latency-ms']),
    capacity: Number(values.capacity),
    file: values.file,
    log: (line) => console.error(line),
  });
  console.log(formatPlainQueueBench(result));
}
