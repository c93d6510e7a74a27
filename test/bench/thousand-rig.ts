/**
 * What the `thousand` benches share: the contracts (CUAD's shortest), the stack with the
 * stand-in in its own process and the pipeline's DynamoDB client watched (requests by
 * command, checkpoint writes timed around the SDK call), uploads as one of ten owners, bulk
 * reads of the job items on a client of the bench's own, and each process's peak memory and
 * CPU from /proc.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { ReceiveMessageCommandOutput, SQSClient } from '@aws-sdk/client-sqs';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ANALYST_IDS } from '../../lambdas/core/analysts/index.js';
import { parseDocument } from '../../lambdas/core/documents/index.js';
import { jobIdOfPut } from '../../lambdas/core/intake/job-id.js';
import { JOB_SK, jobPk } from '../../lambdas/core/state/keys.js';
import { PROJECT_ROOT } from '../../localstack/python-venv.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { type LocalPipeline, startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { type LocalStack, startLocalStack } from '../../localstack/runtime/local-stack.js';
import { cpuSecondsOf, findPid, standInProcess } from './pipeline.js';
import type { Delivery } from './thousand-measure.js';

/** Where the bench finds contracts: CUAD's training set and the development set, beside the project. */
export const CUAD_DIRS = ['cuad-train/contracts', 'corpus/contracts'].map((d) =>
  join(PROJECT_ROOT, '..', 'shared', d),
);

/** A contract and the model calls a job of it plans (clauses × the whole panel). */
export interface BenchContract {
  readonly file: string;
  readonly calls: number;
}

/**
 * The `count` shortest contracts of CUAD (both directories) whose job plans between `min` and
 * `max` calls, parsed as intake parses them; the fixtures when CUAD is not beside the project.
 */
export async function shortestContracts(count: number, min = 20, max = 200): Promise<BenchContract[]> {
  const dirs = CUAD_DIRS.filter(existsSync);
  if (dirs.length === 0) dirs.push(join(PROJECT_ROOT, 'test', 'fixtures', 'contracts'));
  const files = dirs
    .flatMap((d) => readdirSync(d).map((f) => join(d, f)))
    .filter((f) => f.endsWith('.txt'))
    .sort((a, b) => statSync(a).size - statSync(b).size);
  const out: BenchContract[] = [];
  for (const file of files) {
    if (out.length >= count) break;
    const doc = await parseDocument(readFileSync(file), { key: basename(file), maxBytes: 1 << 20 }).catch(
      () => undefined,
    );
    const calls = (doc?.clauses.length ?? 0) * ANALYST_IDS.length;
    if (calls >= min && calls <= max) out.push({ file, calls });
  }
  return out;
}

/** The owner an upload is made as (signed into it, as the status API does). */
export const ownerArn = (owner: number) =>
  `arn:aws:iam::000000000000:user/bench-${owner === 0 ? 'hot' : `quiet-${owner}`}`;

/** DynamoDB requests by command, and each checkpoint write's milliseconds, as the pipeline made them. */
export interface DbWatch {
  readonly byCommand: Map<string, number>;
  /** UpdateItem / PutItem of one checkpoint (claim, heartbeat, counts, stage done, release). */
  readonly checkpointWriteMs: number[];
  /** TransactWriteItems holding a checkpoint (a chunk's end with the job's counters). */
  readonly checkpointTransactionMs: number[];
}

type KeyLike = { sk?: unknown } | undefined;
const skOf = (k: KeyLike) => {
  const sk = k?.sk as string | { S?: string } | undefined;
  return typeof sk === 'string' ? sk : sk?.S;
};
const isCheckpoint = (k: KeyLike) => skOf(k)?.startsWith('CHUNK#') ?? false;

/** Which checkpoint write a DynamoDB request is, if it is one. */
function checkpointWrite(
  command: string,
  input: Record<string, unknown>,
): 'single' | 'transaction' | undefined {
  if (command === 'UpdateItemCommand' || command === 'PutItemCommand') {
    const i = input as { Key?: KeyLike; Item?: KeyLike };
    return isCheckpoint(i.Key ?? i.Item) ? 'single' : undefined;
  }
  if (command === 'TransactWriteItemsCommand') {
    const items = (input.TransactItems ?? []) as Record<string, { Key?: KeyLike; Item?: KeyLike }>[];
    const touches = items.some((t) => Object.values(t).some((op) => isCheckpoint(op?.Key ?? op?.Item)));
    return touches ? 'transaction' : undefined;
  }
  return undefined;
}

/**
 * Counts the client's requests and times its checkpoint writes around the whole SDK call
 * (retries included). The pipeline's metrics port (`lambdas/core/metrics`) has no event for a
 * checkpoint write (calls, attempts, chunks, jobs, holds, limiter windows), and one per write
 * would put a sample on every claim and heartbeat; a middleware on the bench's side of the
 * client measures the same call without touching the worker.
 */
export function watchDb(db: DynamoDBDocumentClient): DbWatch {
  const watch: DbWatch = { byCommand: new Map(), checkpointWriteMs: [], checkpointTransactionMs: [] };
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'unknown');
      watch.byCommand.set(name, (watch.byCommand.get(name) ?? 0) + 1);
      const kind = checkpointWrite(name, args.input as Record<string, unknown>);
      if (!kind) return next(args);
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        (kind === 'single' ? watch.checkpointWriteMs : watch.checkpointTransactionMs).push(
          performance.now() - started,
        );
      }
    },
    { step: 'initialize', name: 'thousandBenchWatch' },
  );
  return watch;
}

/**
 * Every delivery of a chunk message on `queueUrl`, as the client received and deleted it:
 * read from the requests and answers the SDK client already makes (ReceiveMessage with its
 * system attributes, DeleteMessageBatch), nothing added to the worker's path.
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html
 * (`SentTimestamp`, `ApproximateReceiveCount`, epoch milliseconds).
 */
export function watchDeliveries(sqs: SQSClient, queueUrl: string): Delivery[] {
  const deliveries: Delivery[] = [];
  const open = new Map<string, Delivery>();
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { QueueUrl?: string; Entries?: { ReceiptHandle?: string }[] };
      const result = await next(args);
      if (input.QueueUrl !== queueUrl) return result;
      const now = Date.now();
      if (context.commandName === 'ReceiveMessageCommand') {
        for (const m of (result.output as ReceiveMessageCommandOutput).Messages ?? []) {
          const body = JSON.parse(m.Body ?? '{}') as { jobId?: string; chunk?: number };
          if (!m.ReceiptHandle || body.jobId === undefined || body.chunk === undefined) continue;
          const d: Delivery = {
            jobId: body.jobId,
            chunk: body.chunk,
            sentAt: Number(m.Attributes?.SentTimestamp ?? now),
            receivedAt: now,
            receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
          };
          deliveries.push(d);
          open.set(m.ReceiptHandle, d);
        }
      } else if (context.commandName === 'DeleteMessageBatchCommand') {
        for (const e of input.Entries ?? []) {
          const d = e.ReceiptHandle ? open.get(e.ReceiptHandle) : undefined;
          if (d && e.ReceiptHandle) {
            d.doneAt = now;
            open.delete(e.ReceiptHandle);
          }
        }
      }
      return result;
    },
    { step: 'initialize', name: 'thousandBenchDeliveries' },
  );
  return deliveries;
}

/** A process's peak resident memory (VmHWM, MB) and CPU seconds, from /proc. */
export interface ProcessFigures {
  readonly pid: number;
  readonly peakRssMb: number;
  readonly cpuSeconds: number;
}

export function processFigures(pid: number): ProcessFigures {
  let peak = Number.NaN;
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) peak = Number(m[1]) / 1024;
  } catch {
    // The process is gone: its figures are unknown.
  }
  return { pid, peakRssMb: peak, cpuSeconds: cpuSecondsOf(pid) };
}

/** The stack, the pipeline on it (realtime lane in this process) and the stand-in beside them. */
export interface BenchStack {
  readonly stack: LocalStack;
  readonly pipeline: LocalPipeline;
  readonly standIn: Awaited<ReturnType<typeof standInProcess>>;
  readonly watch: DbWatch;
  /** The realtime lane's chunk deliveries. */
  readonly deliveries: Delivery[];
  readonly motoPid: number | undefined;
  /** The bench's own client, so its reads are not counted as the pipeline's. */
  readonly reader: DynamoDBDocumentClient;
  stop(): Promise<void>;
}

/** What the thousand and burst benches share: the crowd of owners and the stack it runs on. */
export interface CrowdOptions {
  readonly owners: number;
  /** The hot owner's share of the uploads. */
  readonly hotShare: number;
  /** The stand-in's answer time and requests in flight. */
  readonly latencyMs: number;
  readonly capacity: number;
  /** No job is waited for past this. */
  readonly maxMinutes: number;
  /** Jobs one owner runs at once, the rest `queued` until one ends (admission control; 0: no cap; default the stack's). */
  readonly maxJobsPerOwner: number;
  readonly log: (line: string) => void;
}

/** Ten owners, one with 80 % of the uploads; a stand-in the local ground binds before. */
export const CROWD_DEFAULTS = {
  owners: 10,
  hotShare: 0.8,
  latencyMs: 200,
  capacity: 48,
  maxJobsPerOwner: LOCAL_RUN_DEFAULTS.maxJobsPerOwner,
} as const satisfies Partial<CrowdOptions>;

/** Starts the stand-in, moto and the pipeline for `o` (see {@link startBenchStack}). */
export function startCrowdStack(o: CrowdOptions): Promise<BenchStack> {
  return startBenchStack(o.latencyMs, o.capacity, o.log, o.maxJobsPerOwner);
}

/** @param maxJobsPerOwner jobs one owner runs at once, the rest `queued` (0: no cap; default the stack's) */
export async function startBenchStack(
  latencyMs: number,
  capacity: number,
  log: (line: string) => void,
  maxJobsPerOwner = LOCAL_RUN_DEFAULTS.maxJobsPerOwner,
): Promise<BenchStack> {
  const standIn = await standInProcess({
    latency: { kind: 'fixed', ms: latencyMs },
    capacity: { maxInFlight: capacity },
  });
  const stack = await startLocalStack({});
  const motoPid = await findPid(`moto_serve.py -H 127.0.0.1 -p ${new URL(stack.awsEndpoint).port}`);
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: standIn.url,
    topology: stack.topology,
    resources: stack.resources,
    // No daily spend cap: the hot owner's hundreds of jobs would pass a day's (an hour of the
    // model's budget) and wait for the next, and the bench measures how owners share the lanes.
    settings: { ...LOCAL_RUN_DEFAULTS, limiterInitial: 10, maxJobsPerOwner, dailySpendPerOwnerMicros: 0 },
    batchWorkers: 0,
    log,
  });
  return {
    stack,
    pipeline,
    standIn,
    watch: watchDb(pipeline.clients.db),
    deliveries: watchDeliveries(pipeline.clients.sqs, stack.resources.queueUrls.realtime),
    motoPid,
    reader: stack.clients.documents,
    async stop() {
      await pipeline.stop();
      await stack.stop();
      standIn.child.kill('SIGTERM');
    },
  };
}

/** Uploads a contract as `owner`, with a title line of its own (its questions are its own in the stand-in's books). */
export async function uploadAs(
  b: BenchStack,
  index: number,
  owner: number,
  file: string,
  body?: string,
): Promise<string> {
  const r = b.stack.resources;
  const name = basename(file);
  const text = `BENCH COPY ${String(index).padStart(5, '0')} OF ${name.slice(0, 60).toUpperCase()}\n\n${body ?? readFileSync(file, 'utf8')}`;
  const key = `${r.intakePrefix}bench-${index}-${name}`;
  const put = await b.pipeline.clients.s3.send(
    new PutObjectCommand({
      Bucket: r.intakeBucket,
      Key: key,
      Body: text,
      Metadata: { 'submitted-by': ownerArn(owner), 'ceiling-usd': '5', lane: 'realtime' },
    }),
  );
  return jobIdOfPut(r.intakeBucket, key, put);
}

/** The job items' status and end, a hundred at a time (BatchGetItem's limit), on the bench's client. */
export async function jobStates(
  b: BenchStack,
  jobIds: readonly string[],
): Promise<Map<string, { status: string; finalizedAt?: string }>> {
  const out = new Map<string, { status: string; finalizedAt?: string }>();
  const table = b.stack.resources.tableName;
  for (let i = 0; i < jobIds.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = jobIds
      .slice(i, i + 100)
      .map((id) => ({ pk: jobPk(id), sk: JOB_SK }));
    // https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html: keys
    // not read this time come back as UnprocessedKeys, to be asked again.
    while (keys && keys.length > 0) {
      const r = await b.reader.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: keys,
              ProjectionExpression: 'jobId, #s, finalizedAt',
              ExpressionAttributeNames: { '#s': 'status' },
            },
          },
        }),
      );
      for (const item of r.Responses?.[table] ?? [])
        out.set(item.jobId as string, item as { status: string; finalizedAt?: string });
      keys = r.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined;
    }
  }
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
