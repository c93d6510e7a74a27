/**
 * Throughput of the Bedrock stand-in through the real SDK client, to show it is never the
 * bottleneck of a pipeline benchmark.
 *
 *   npx tsx test/bench/standin-throughput.ts [--calls 20000] [--warmup 2000] [--concurrency 64]
 *       [--runs 3] [--handlers keepalive,default] [--client-processes 1,2] [--in-process]
 *
 * The stand-in runs in a child process (main.ts) so client and server use separate cores;
 * `--in-process` also measures it inside this process. The SDK client costs far more CPU per
 * call than the stand-in, so one client process saturates its core first: the calls are
 * therefore also driven from two client processes sharing the total concurrency. Each setting
 * is measured `--runs` times and the median reported, together with the stand-in's own CPU
 * time per call (from `GET /_stand-in/health`). Latency is 0 and no faults are injected.
 *
 * The default handler is what `new BedrockRuntimeClient()` builds: NodeHttp2Handler with
 * `disableConcurrentStreams: true`, i.e. one new HTTP/2 session (TCP connection) per request,
 * so it measures connection setup as much as the stand-in.
 *
 * BENCH_NODE_FLAGS (environment) adds Node flags to the stand-in and client processes, e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile them.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { toolCategory } from '../helpers/tool-category.js';

type HandlerName = 'keepalive' | 'default';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '64' },
    runs: { type: 'string', default: '3' },
    handlers: { type: 'string', default: 'keepalive,default' },
    'client-processes': { type: 'string', default: '1,2' },
    'in-process': { type: 'boolean', default: false },
    'client-worker': { type: 'boolean', default: false },
  },
});
const CALLS = Number(values.calls);
const WARMUP = Number(values.warmup);
const CONCURRENCY = Number(values.concurrency);
const RUNS = Number(values.runs);
const HANDLERS = (values.handlers ?? '').split(',').filter(Boolean) as HandlerName[];
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const CLIENT_PROCESSES = (values['client-processes'] ?? '1').split(',').map(Number);

const CATEGORY_DESCRIPTIONS: Record<string, string> = {
  liability:
    'Limitation of liability, caps on aggregate liability, exclusion of consequential damages, uncapped or ' +
    'unlimited carve-outs, indemnify, defend and hold harmless obligations, liquidated damages.',
  termination:
    'Termination for convenience or without cause on written notice, termination for breach with a cure ' +
    'period, insolvency, effects of termination and survival.',
  'ip-ownership':
    'Ownership of intellectual property: patents, copyrights, inventions, work product, assignment ' +
    '("hereby assigns"), work made for hire, joint ownership.',
};

const toolSchema = {
  type: 'object',
  properties: {
    assessments: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(CATEGORY_DESCRIPTIONS).map(([id, description]) => [id, toolCategory(description)]),
      ),
      required: Object.keys(CATEGORY_DESCRIPTIONS),
      additionalProperties: false,
    },
    summary: { type: 'string', maxLength: 400 },
  },
  required: ['assessments', 'summary'],
  additionalProperties: false,
};

const CLAUSES = [
  'The Supplier shall indemnify, defend and hold harmless the Customer from all losses; such liability shall be uncapped.',
  'Either party may terminate this Agreement for convenience upon thirty (30) days prior written notice.',
  'All work product and inventions shall be the sole property of the Company, and the Consultant hereby assigns all rights.',
  'In no event shall either party be liable for consequential damages, except for breach of confidentiality.',
  'This Agreement shall be governed by the laws of the State of New York.',
];

/** A pool of distinct requests (clause x numbering), so the stand-in cannot serve everything from one cache entry. */
const REQUESTS: ConverseCommandInput[] = Array.from({ length: 200 }, (_, i) => ({
  modelId: 'amazon.nova-lite-v1:0',
  system: [{ text: 'You are a contract risk analyst. Answer only through the record_assessment tool.' }],
  messages: [
    {
      role: 'user',
      content: [
        { text: `Clause ${i + 1}.\n<clause>${CLAUSES[i % CLAUSES.length]} (Section ${i + 1}.)</clause>` },
      ],
    },
  ],
  inferenceConfig: { maxTokens: 2048, temperature: 0 },
  toolConfig: {
    tools: [{ toolSpec: { name: 'record_assessment', inputSchema: { json: toolSchema } } }],
    toolChoice: { tool: { name: 'record_assessment' } },
  },
}));

function clientFor(url: string, handler: HandlerName, concurrency: number): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    ...(handler === 'keepalive'
      ? {
          requestHandler: new NodeHttpHandler({
            httpAgent: new http.Agent({ keepAlive: true, maxSockets: concurrency }),
          }),
        }
      : {}),
  });
}

/** Sends `calls` Converse calls with `concurrency` in flight; returns how many failed. */
async function drive(client: BedrockRuntimeClient, calls: number, concurrency: number): Promise<number> {
  let next = 0;
  let failures = 0;
  const worker = async (): Promise<void> => {
    while (next < calls) {
      const i = next++;
      try {
        await client.send(new ConverseCommand(REQUESTS[i % REQUESTS.length] as ConverseCommandInput));
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failures;
}

type ToWorker =
  | { type: 'init'; url: string; handler: HandlerName; concurrency: number }
  | { type: 'run'; calls: number };
type FromWorker = { type: 'ready' } | { type: 'done'; failures: number };

/** Client process: one SDK client, driven on request of the coordinator. */
function clientWorker(): void {
  let client: BedrockRuntimeClient | undefined;
  let concurrency = 1;
  const reply = (message: FromWorker): void => {
    process.send?.(message);
  };
  process.on('message', (message: ToWorker) => {
    if (message.type === 'init') {
      client = clientFor(message.url, message.handler, message.concurrency);
      concurrency = message.concurrency;
      reply({ type: 'ready' });
    } else if (client) {
      drive(client, message.calls, concurrency).then((failures) => reply({ type: 'done', failures }));
    }
  });
  process.on('disconnect', () => {
    client?.destroy();
    process.exit(0);
  });
}

/** A set of client processes splitting calls and concurrency between them. */
class ClientPool {
  private constructor(private readonly workers: ChildProcess[]) {}

  static async start(url: string, handler: HandlerName, processes: number): Promise<ClientPool> {
    const workers = Array.from({ length: processes }, () =>
      fork(fileURLToPath(import.meta.url), ['--client-worker'], {
        execArgv: [...NODE_FLAGS, '--import', 'tsx'],
      }),
    );
    const pool = new ClientPool(workers);
    await pool.roundTrip((i) => ({
      type: 'init',
      url,
      handler,
      concurrency: Math.floor(CONCURRENCY / processes) + (i < CONCURRENCY % processes ? 1 : 0),
    }));
    return pool;
  }

  /** Runs `calls` calls across the pool; resolves with wall-clock calls per second and failures. */
  async run(calls: number): Promise<{ rate: number; failures: number }> {
    const started = performance.now();
    const replies = await this.roundTrip((i) => ({
      type: 'run',
      calls: Math.floor(calls / this.workers.length) + (i < calls % this.workers.length ? 1 : 0),
    }));
    const seconds = (performance.now() - started) / 1000;
    const failures = replies.reduce((sum, r) => sum + (r.type === 'done' ? r.failures : 0), 0);
    return { rate: calls / seconds, failures };
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.workers.map(
        (worker) =>
          new Promise((resolve) => {
            worker.once('exit', resolve);
            worker.disconnect();
          }),
      ),
    );
  }

  private roundTrip(message: (i: number) => ToWorker): Promise<FromWorker[]> {
    return Promise.all(
      this.workers.map(
        (worker, i) =>
          new Promise<FromWorker>((resolve, reject) => {
            worker.once('message', (reply: FromWorker) => resolve(reply));
            worker.once('exit', (code) => reject(new Error(`client process exited with code ${code}`)));
            worker.send(message(i));
          }),
      ),
    );
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** CPU time (microseconds) the stand-in process has used so far. */
async function standInCpu(url: string): Promise<number> {
  const health = (await (await fetch(`${url}/_stand-in/health`)).json()) as {
    cpuUserMicros: number;
    cpuSystemMicros: number;
  };
  return health.cpuUserMicros + health.cpuSystemMicros;
}

interface Measurement {
  label: string;
  rate: number;
  serverMicrosPerCall: number;
}

async function measure(
  url: string,
  where: string,
  handler: HandlerName,
  processes: number,
): Promise<Measurement> {
  const label = `${where}/${handler}/${processes}-client`;
  const pool = await ClientPool.start(url, handler, processes);
  try {
    await pool.run(WARMUP);
    const rates: number[] = [];
    const cpu: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const cpuBefore = await standInCpu(url);
      const { rate, failures } = await pool.run(CALLS);
      cpu.push((await standInCpu(url)) - cpuBefore);
      rates.push(rate);
      console.log(
        `  ${label.padEnd(32)} run ${run + 1}: ${rate.toFixed(0)} calls/s${failures > 0 ? ` (${failures} failed)` : ''}`,
      );
    }
    const result = {
      label,
      rate: median(rates),
      serverMicrosPerCall: median(cpu) / CALLS,
    };
    console.log(
      `  ${label.padEnd(32)} median: ${result.rate.toFixed(0)} calls/s, stand-in CPU ${result.serverMicrosPerCall.toFixed(0)} µs/call`,
    );
    return result;
  } finally {
    await pool.stop();
  }
}

async function startChild(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, '--import', 'tsx', 'localstack/bedrock/main.ts', '--port', '0', '--seed', '1'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stand-in exited early with code ${code}`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  return { url, child };
}

async function measureAll(url: string, where: string, results: Measurement[]): Promise<void> {
  for (const handler of HANDLERS) {
    for (const processes of CLIENT_PROCESSES) results.push(await measure(url, where, handler, processes));
  }
}

async function main(): Promise<void> {
  console.log(
    `Bedrock stand-in throughput: ${CALLS} calls x ${RUNS} runs (after ${WARMUP} warm-up), ` +
      `concurrency ${CONCURRENCY}, latency 0, ${HANDLERS.join(' and ')} handler(s), ` +
      `${CLIENT_PROCESSES.join(' or ')} client process(es)`,
  );
  const results: Measurement[] = [];
  const { url, child } = await startChild();
  try {
    await measureAll(url, 'child', results);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (values['in-process']) {
    const standIn = await startBedrockStandIn({ seed: 1 });
    try {
      await measureAll(standIn.url, 'in-process', results);
    } finally {
      await standIn.close();
    }
  }
  const best = results.reduce((a, b) => (b.rate > a.rate ? b : a));
  console.log(
    `SUMMARY calls/s (median of ${RUNS}): ${results.map((r) => `${r.label} ${r.rate.toFixed(0)}`).join(', ')}; ` +
      `best ${best.label} ${best.rate.toFixed(0)} calls/s; stand-in CPU ` +
      `${Math.min(...results.map((r) => r.serverMicrosPerCall)).toFixed(0)}-` +
      `${Math.max(...results.map((r) => r.serverMicrosPerCall)).toFixed(0)} µs/call`,
  );
}

if (values['client-worker']) clientWorker();
else await main();
