import { parseArgs } from 'node:util';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { offlineAnalystNotice } from '../../localstack/bedrock/offline-analysts.js';
import { startPipelineApi } from '../../localstack/runtime/local-api.js';
import { allowAppOrigin, startLocalApp } from '../../localstack/runtime/local-app.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { startLocalRun } from '../../localstack/runtime/local-run.js';
import type { LocalStack } from '../../localstack/runtime/local-stack.js';
import { isSignInProvisionError, type LocalSignIn, provisionSignIn } from '../../localstack/sign-in.js';
import { bundleAddin } from '../addin-bundle.js';
import { bundleApp } from '../app-bundle.js';
import { CliError, type CliIo } from './cli-error.js';
import { isAlive, localStateFile, readLocalState, removeLocalState, writeLocalState } from './local-state.js';

/**
 * The user pool and identity pool people sign in with, on the emulator. An emulator without
 * Cognito (LocalStack's community build) leaves the stack up without sign-in, and says so.
 */
async function localSignIn(endpoint: string, prefix: string, io: CliIo): Promise<LocalSignIn | undefined> {
  try {
    return await provisionSignIn(endpoint, prefix);
  } catch (error) {
    if (!isSignInProvisionError(error)) throw error;
    io.err(`sign-in for people is not available on this emulator: ${error.message}`);
    return undefined;
  }
}

/**
 * The reviewer app on loopback, signing people in through the emulator's pools when there are
 * any, and allowed to call the API and the buckets from its origin.
 */
async function serveApp(
  stack: LocalStack,
  apiUrl: string,
  signIn: LocalSignIn | undefined,
  proxyOrigin: string | undefined,
) {
  const app = await startLocalApp({
    // The Word add-in beside the app, under addin/, as the deployed stack serves it.
    files: new Map([...(await bundleApp()), ...(await bundleAddin())]),
    apiUrl,
    region: LOCAL_REGION,
    connect: {
      api: new URL(apiUrl).origin,
      cognito: signIn ? [new URL(stack.awsEndpoint).origin] : [],
      buckets: [new URL(stack.awsEndpoint).origin],
    },
    ...(signIn
      ? {
          cognito: {
            userPoolId: signIn.userPoolId,
            clientId: signIn.userPoolClientId,
            identityPoolId: signIn.identityPoolId,
            endpoint: stack.awsEndpoint,
          },
        }
      : {}),
  });
  await allowAppOrigin(
    stack.clients.s3,
    { intake: stack.resources.intakeBucket, results: stack.resources.resultsBucket },
    proxyOrigin ? [app.origin, proxyOrigin] : [app.origin],
  );
  return app;
}

/** The options of `local up`, checked. */
function upOptions(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      prefix: { type: 'string' },
      workers: { type: 'string' },
      'latency-ms': { type: 'string' },
      invocations: { type: 'string' },
      analyst: { type: 'string' },
      'max-jobs-per-owner': { type: 'string' },
      'https-origin': { type: 'string' },
      'owners-decide-own-escalations': { type: 'boolean' },
    },
  });
  const workers = Number(values.workers ?? '1');
  if (!Number.isInteger(workers) || workers < 0)
    throw new CliError(`--workers must be a whole number; got '${values.workers}'`);
  const latencyMs = Number(values['latency-ms'] ?? '0');
  if (!Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 60_000)
    throw new CliError(
      `--latency-ms must be a whole number of milliseconds from 0 to 60000; got '${values['latency-ms']}'`,
    );
  const invocations = values.invocations === undefined ? undefined : Number(values.invocations);
  if (invocations !== undefined && !(Number.isInteger(invocations) && invocations >= 1 && invocations <= 100))
    throw new CliError(`--invocations must be a whole number from 1 to 100; got '${values.invocations}'`);
  const analyst = values.analyst ?? 'learned';
  if (analyst !== 'learned' && analyst !== 'heuristic')
    throw new CliError(`--analyst must be 'learned' or 'heuristic'; got '${analyst}'`);
  const maxJobs = values['max-jobs-per-owner'];
  const maxJobsPerOwner = maxJobs === undefined ? LOCAL_RUN_DEFAULTS.maxJobsPerOwner : Number(maxJobs);
  if (!(Number.isInteger(maxJobsPerOwner) && maxJobsPerOwner >= 0 && maxJobsPerOwner <= 10_000))
    throw new CliError(
      `--max-jobs-per-owner must be a whole number from 0 (no cap) to 10000; got '${maxJobs}'`,
    );
  const httpsOrigin = values['https-origin'];
  if (httpsOrigin !== undefined && !/^https:\/\/[^/]+$/.test(httpsOrigin))
    throw new CliError(
      `--https-origin must be an HTTPS origin with no path, like https://localhost:3000; got '${httpsOrigin}'`,
    );
  return {
    prefix: values.prefix,
    workers,
    latencyMs,
    invocations,
    analyst,
    maxJobsPerOwner,
    httpsOrigin,
    ownersDecideOwnEscalations: values['owners-decide-own-escalations'] === true,
  } as const;
}

/**
 * `local up`: moto (or AWS_ENDPOINT_URL's emulator), the Bedrock stand-in, the provisioned
 * topology, the pipeline's handlers, the status API and the reviewer app on loopback, until
 * Ctrl-C or `local down`. Writes `.clause-review/local.json` so other terminals can use `--local`.
 */
async function up(argv: string[], io: CliIo): Promise<number> {
  const values = upOptions(argv);
  const file = localStateFile();
  const existing = readLocalState(file);
  if (existing && isAlive(existing.pid)) {
    throw new CliError(
      `a local stack is already running (process ${existing.pid}, API ${existing.apiUrl}); stop it with 'clause-review local down'`,
    );
  }
  const { workers } = values;
  const run = await startLocalRun(
    {
      ...(values.prefix ? { prefix: values.prefix } : {}),
      ...(values.latencyMs > 0 ? { plan: { latency: { kind: 'fixed', ms: values.latencyMs } } } : {}),
      analyst: values.analyst,
      log: (l) => io.err(l),
    },
    {
      settings: { ...LOCAL_RUN_DEFAULTS, maxJobsPerOwner: values.maxJobsPerOwner },
      batchWorkers: workers,
      ...(values.invocations ? { realtimeConcurrency: values.invocations } : {}),
      notice: offlineAnalystNotice(values.analyst),
      log: (l) => io.err(l),
    },
  );
  const { stack, pipeline } = run;
  const signIn = await localSignIn(stack.awsEndpoint, stack.topology.prefix, io);
  const appOrigins = new Set<string>();
  const api = await startPipelineApi({
    awsEndpoint: stack.awsEndpoint,
    db: pipeline.clients.db,
    resources: stack.resources,
    ...(signIn ? { signIn } : {}),
    ...(values.ownersDecideOwnEscalations ? { ownersDecideOwnEscalations: true } : {}),
    allowOrigin: (origin) => appOrigins.has(origin),
    log: (l) => io.err(l),
  });
  const app = await serveApp(stack, api.url, signIn, values.httpsOrigin);
  appOrigins.add(app.origin);
  // An HTTPS proxy in front of the app (Word loads add-ins over HTTPS only) calls from its own origin.
  if (values.httpsOrigin) appOrigins.add(values.httpsOrigin);
  const state = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    region: LOCAL_REGION,
    awsEndpoint: stack.awsEndpoint,
    bedrockEndpoint: stack.bedrock.url,
    apiUrl: api.url,
    ...(signIn
      ? {
          userPoolId: signIn.userPoolId,
          userPoolClientId: signIn.userPoolClientId,
          identityPoolId: signIn.identityPoolId,
        }
      : {}),
    appUrl: app.url,
    resources: stack.resources,
  };
  writeLocalState(state, file);
  io.out(JSON.stringify(state, null, 2));
  io.err(`local stack is up; use it with --local (e.g. clause-review submit contract.pdf --local).`);
  io.err(
    signIn
      ? `reviewer app: ${app.url} (sign in as a person of user pool ${signIn.userPoolId}; docs/reviewers.md, "Sign-in for people", says how to add one)`
      : `reviewer app: ${app.url} (this emulator has no Cognito: sign in with access key 'test', secret 'test')`,
  );
  io.err(
    `Word add-in: ${app.url}addin/taskpane.html (its manifest: clause-review addin manifest --local; docs/word-addin.md)`,
  );
  io.err(`stop it with Ctrl-C here or 'clause-review local down' elsewhere (state: ${file})`);
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', resolveStop);
    process.once('SIGTERM', resolveStop);
  });
  io.err('stopping the local stack…');
  try {
    await app.close();
    await api.close();
    await run.stop();
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
