import { parseArgs } from 'node:util';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { offlineAnalystNotice } from '../../localstack/bedrock/offline-analysts.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { startLocalStack } from '../../localstack/runtime/local-stack.js';
import { CliError, type CliIo } from './cli-error.js';
import { isAlive, localStateFile, readLocalState, removeLocalState, writeLocalState } from './local-state.js';

/**
 * `local up`: moto (or AWS_ENDPOINT_URL's emulator), the Bedrock stand-in, the provisioned
 * topology, the pipeline's handlers and the status API on loopback, until Ctrl-C or
 * `local down`. Writes `.clause-review/local.json` so other terminals can use `--local`.
 */
async function up(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { prefix: { type: 'string' }, workers: { type: 'string' } },
  });
  const file = localStateFile();
  const existing = readLocalState(file);
  if (existing && isAlive(existing.pid)) {
    throw new CliError(
      `a local stack is already running (process ${existing.pid}, API ${existing.apiUrl}); stop it with 'clause-review local down'`,
    );
  }
  const workers = Number(values.workers ?? '1');
  if (!Number.isInteger(workers) || workers < 0)
    throw new CliError(`--workers must be a whole number; got '${values.workers}'`);
  const stack = await startLocalStack({
    ...(values.prefix ? { prefix: values.prefix } : {}),
    log: (l) => io.err(l),
  });
  const pipeline = startLocalPipeline({
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: stack.bedrock.url,
    topology: stack.topology,
    resources: stack.resources,
    settings: LOCAL_RUN_DEFAULTS,
    batchWorkers: workers,
    notice: offlineAnalystNotice(),
    log: (l) => io.err(l),
  });
  const api = await startPipelineApi({
    awsEndpoint: stack.awsEndpoint,
    db: pipeline.clients.db,
    resources: stack.resources,
    log: (l) => io.err(l),
  });
  const state = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    region: LOCAL_REGION,
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: stack.bedrock.url,
    apiUrl: api.url,
    resources: stack.resources,
  };
  writeLocalState(state, file);
  io.out(JSON.stringify(state, null, 2));
  io.err(`local stack is up; use it with --local (e.g. clause-review submit contract.pdf --local).`);
  io.err(`stop it with Ctrl-C here or 'clause-review local down' elsewhere (state: ${file})`);
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', resolveStop);
    process.once('SIGTERM', resolveStop);
  });
  io.err('stopping the local stack…');
  try {
    await api.close();
    await pipeline.stop();
    await stack.stop();
  } finally {
    removeLocalState(process.pid, file);
  }
  return 0;
}

/** `local down`: stops the `local up` the state file names, and waits until it has exited. */
async function down(io: CliIo, timeoutMs = 30_000): Promise<number> {
  const file = localStateFile();
  const state = readLocalState(file);
  if (!state) {
    io.err(`no local stack is running (no ${file})`);
    return 0;
  }
  if (!isAlive(state.pid)) {
    removeLocalState(state.pid, file);
    io.err(`the local stack of process ${state.pid} had already stopped; removed its stale ${file}`);
    return 0;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (isAlive(state.pid)) {
    if (Date.now() > deadline) {
      throw new CliError(
        `process ${state.pid} did not stop within ${timeoutMs / 1000} s; stop it with: kill ${state.pid}`,
        1,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  removeLocalState(state.pid, file);
  io.out(`stopped the local stack (process ${state.pid})`);
  return 0;
}

/** `local up|down`. */
export async function localCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'up') return up(rest, io);
  if (sub === 'down') return down(io);
  throw new CliError(`'local' takes 'up' or 'down'; got '${sub ?? ''}'`);
}
