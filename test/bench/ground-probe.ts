/**
 * The local ground's own latency while a bench runs: a process of its own (an idle event loop,
 * so nothing of the pipeline's waits is counted) makes, five times a second, the kind of
 * checkpoint write a claim makes (a conditional UpdateItem that counts a fence up) on a key of
 * its own in the state table, and a ReceiveMessage on an empty queue of its own, and times each.
 * What a pipeline figure has above these is the pipeline's; what these have is the emulator's.
 *
 * Started by the thousand bench (`startGroundProbe`); as a child it reports one JSON line when
 * it is told to stop (SIGTERM).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';

/** Each probe's latencies, ms, in the order taken. */
export interface GroundSamples {
  readonly checkpointWriteMs: number[];
  readonly emptyReceiveMs: number[];
}

/** A probe running beside a bench. */
export interface GroundProbe {
  /** Stops the probe and gives its samples. */
  stop(): Promise<GroundSamples>;
}

const INTERVAL_MS = 200;

/** Starts the probe in a process of its own against `endpoint` and the state table `table`. */
export function startGroundProbe(endpoint: string, table: string): GroundProbe {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', '--endpoint', endpoint, '--table', table],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  );
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  const report = new Promise<GroundSamples>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as GroundSamples));
    proc.once('exit', (code) => reject(new Error(`the ground probe exited with ${code} before reporting`)));
  });
  report.catch(() => {});
  return {
    stop() {
      proc.kill('SIGTERM');
      return report;
    },
  };
}

async function child(endpoint: string, table: string): Promise<void> {
  let stopping = false;
  process.once('SIGTERM', () => {
    stopping = true;
  });
  const common = { endpoint, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS };
  const db = new DynamoDBClient(common);
  const sqs = new SQSClient(common);
  const queue = await sqs.send(new CreateQueueCommand({ QueueName: `ground-probe-${process.pid}` }));
  const samples: GroundSamples = { checkpointWriteMs: [], emptyReceiveMs: [] };
  const timed = async (into: number[], send: () => Promise<unknown>) => {
    const t = performance.now();
    await send();
    into.push(performance.now() - t);
  };
  const key = { pk: { S: `PROBE#${process.pid}` }, sk: { S: 'CHUNK#0000#analyze' } };
  while (!stopping) {
    const next = performance.now() + INTERVAL_MS;
    await timed(samples.checkpointWriteMs, () =>
      db.send(
        new UpdateItemCommand({
          TableName: table,
          Key: key,
          UpdateExpression: 'SET claimedBy = :me, claimExpiresAt = :exp ADD fence :one',
          ConditionExpression: 'attribute_not_exists(claimedBy) OR claimExpiresAt < :now OR claimedBy = :me',
          ExpressionAttributeValues: {
            ':me': { S: 'ground-probe' },
            ':exp': { N: String(Date.now() + 60_000) },
            ':now': { N: String(Date.now()) },
            ':one': { N: '1' },
          },
        }),
      ),
    );
    await timed(samples.emptyReceiveMs, () =>
      sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl, WaitTimeSeconds: 0 })),
    );
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  process.stdout.write(`${JSON.stringify(samples)}\n`);
  db.destroy();
  sqs.destroy();
}

if (process.argv.includes('--child') && process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    strict: false,
    options: { child: { type: 'boolean' }, endpoint: { type: 'string' }, table: { type: 'string' } },
  });
  await child(String(values.endpoint), String(values.table));
}
