import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchChild } from './child-output.js';
import { isLocalStackNotReadyError, LocalStackNotReadyError, LocalStackStartError } from './errors.js';
import { freePort } from './free-port.js';
import { ensureLocalStack, LOCALSTACK_LIBS } from './localstack-install.js';
import { checkServicesKnown, type LocalStackReadiness, waitForLocalStack } from './localstack-readiness.js';

/** The services the pipeline uses; LocalStack loads these only. */
export const LOCALSTACK_SERVICES = ['s3', 'sqs', 'dynamodb', 'sns', 'cloudwatch'] as const;

/** A running LocalStack on loopback. */
export interface LocalStackServer {
  /** `http://127.0.0.1:<port>`: the `AWS_ENDPOINT_URL` to give the SDK. */
  readonly endpoint: string;
  /** LocalStack's version, as its health endpoint reports it. */
  readonly version: string;
  /** How long each service took to answer its first request, and the requests it was asked again. */
  readonly readiness: LocalStackReadiness;
  /** Its process id, also its process group's. */
  readonly pid: number;
  /** The processes it started (DynamoDB Local's JVM), which {@link stop} ends too. */
  descendants(): number[];
  /** Stops LocalStack and its DynamoDB Local child (the whole process group). Safe to call twice. */
  stop(): Promise<void>;
}

/** How to start LocalStack. */
export interface LocalStackServerOptions {
  readonly log?: (line: string) => void;
  /** @default 120000 */
  readonly startTimeoutMs?: number;
  /**
   * The services to load and wait for (LocalStack's names, e.g. 'cloudformation'; each needs
   * a first request in localstack-probes.ts).
   * @default {@link LOCALSTACK_SERVICES}
   */
  readonly services?: readonly string[];
  /** More of LocalStack's configuration variables (they win over the launcher's own). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Starts LocalStack in host mode (no Docker) from the project's install (made on first use,
 * see localstack-install.ts) on a free loopback port, with its file system under `.localstack/`,
 * and resolves once every service asked for (by default those the pipeline uses) has answered
 * a first request and its health says `running` ({@link waitForLocalStack}): the endpoint is
 * handed over only when clients starting at once all find their services ready. A service
 * that is not ready within `startTimeoutMs` fails the start with a `LocalStackNotReadyError`
 * naming it. DynamoDB Local's JVM is started by that first request; {@link LocalStackServer.stop}
 * ends it with LocalStack.
 */
export async function startLocalStackServer(
  options: LocalStackServerOptions = {},
): Promise<LocalStackServer> {
  const wanted = options.services ?? LOCALSTACK_SERVICES;
  checkServicesKnown(wanted);
  const install = ensureLocalStack(options.log ? { log: options.log } : {});
  const port = await freePort();
  // Each server gets a file system of its own (state, temporary files, DynamoDB Local's
  // database) that shares the installed libraries: two servers at once do not meet.
  const root = join(install.root, 'run', String(port));
  const libs = join(root, relative(install.root, LOCALSTACK_LIBS));
  mkdirSync(dirname(libs), { recursive: true });
  if (!existsSync(libs)) symlinkSync(LOCALSTACK_LIBS, libs);
  const endpoint = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(install.python, ['-m', 'localstack.runtime.main'], {
    // Its own process group, so that stopping it stops DynamoDB Local's JVM too.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PYTHONUNBUFFERED: '1',
      GATEWAY_LISTEN: `127.0.0.1:${port}`,
      // Host mode with every directory inside the project, never /var/lib/localstack.
      OVERRIDE_IN_DOCKER: '0',
      FILESYSTEM_ROOT: root,
      SERVICES: wanted.join(','),
      EAGER_SERVICE_LOADING: '1',
      // Offline: no certificate download, no DNS server, no analytics.
      SKIP_SSL_CERT_DOWNLOAD: '1',
      DNS_ADDRESS: '0',
      DISABLE_EVENTS: '1',
      LOCALSTACK_CLI: '0',
      // Queue URLs on the gateway's own address: by default LocalStack names its host
      // localhost.localstack.cloud, which needs DNS, and the SDK sends SQS requests to the
      // queue URL's host.
      SQS_ENDPOINT_STRATEGY: 'path',
      LOCALSTACK_HOST: `127.0.0.1:${port}`,
      // DynamoDB Local (a JVM behind the gateway) keeps its tables in memory, with room: a
      // server is thrown away with its run, and on disk with the default 256 MB heap it was
      // the suite's slowest service when four test files ran at once.
      DYNAMODB_IN_MEMORY: '1',
      DYNAMODB_HEAP_SIZE: '1g',
      ...options.env,
    },
  });
  const watched = watchChild(child, 80);
  const { gone } = watched;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = () => killGroup('SIGKILL');
  process.once('exit', onExit);

  const timeoutMs = options.startTimeoutMs ?? 120_000;
  let readiness: LocalStackReadiness;
  try {
    readiness = await waitForLocalStack({
      endpoint,
      services: wanted,
      timeoutMs,
      gone: () => {
        const code = watched.exitCode();
        return code === undefined ? undefined : `exited with code ${code}`;
      },
    });
  } catch (error) {
    killGroup('SIGKILL');
    const output = `Its output:\n${watched.output().slice(-3000)}`;
    if (!isLocalStackNotReadyError(error)) {
      throw new LocalStackStartError(`LocalStack on ${endpoint} did not start: ${String(error)}. ${output}`, {
        cause: error,
      });
    }
    throw new LocalStackNotReadyError(`${error.message}. ${output}`, error, { cause: error });
  }
  watched.quiet();
  return {
    endpoint,
    version: readiness.version,
    readiness,
    pid: child.pid ?? 0,
    descendants: () => descendantsOf(child.pid ?? 0),
    async stop() {
      process.off('exit', onExit);
      // LocalStack may start DynamoDB Local in a session of its own: note its children first.
      const children = descendantsOf(child.pid ?? 0);
      if (watched.exitCode() === undefined) {
        killGroup('SIGTERM');
        await Promise.race([gone, sleep(10_000)]);
      }
      killGroup('SIGKILL');
      for (const pid of children) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await gone;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every process below `pid` (children, their children, …), from the process table. */
export function descendantsOf(pid: number): number[] {
  const rows = spawnSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((r): r is [number, number] => r.length === 2 && r.every(Number.isFinite));
  const found: number[] = [];
  const stack = [pid];
  for (let p = stack.pop(); p !== undefined; p = stack.pop()) {
    for (const [child, parent] of rows) {
      if (parent === p && !found.includes(child)) {
        found.push(child);
        stack.push(child);
      }
    }
  }
  return found;
}
