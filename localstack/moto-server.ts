import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchChild } from './child-output.js';
import { MotoStartError } from './errors.js';
import { freePort } from './free-port.js';
import { ensureMotoVenv, type MotoVenvOptions, PROJECT_ROOT } from './python-venv.js';

/** moto's server with DynamoDB requests serialised, as DynamoDB applies them atomically. */
const SERVE_SCRIPT = join(PROJECT_ROOT, 'localstack', 'moto_serve.py');

/** A running moto server on loopback. */
export interface MotoServer {
  /** `http://127.0.0.1:<port>`: use as the SDK's `endpoint` (S3 also needs `forcePathStyle`). */
  readonly endpoint: string;
  readonly port: number;
  /** Wipes every resource in the emulator (moto's `POST /moto-api/reset`). */
  reset(): Promise<void>;
  /** Stops the server and waits for the process to exit. Safe to call twice. */
  stop(): Promise<void>;
}

/** Options for {@link startMotoServer}. */
export interface MotoServerOptions extends MotoVenvOptions {
  /** @default a free port */
  readonly port?: number;
  /** How long to wait for the first answer. @default 30000 */
  readonly startTimeoutMs?: number;
  /**
   * Longest time a transaction holds its items, so that writes meeting it are refused as
   * DynamoDB refuses them (moto_serve.py); 0 turns conflicts off. @default 10
   */
  readonly transactionHoldMs?: number;
  /**
   * Whether SQS standard queues deliver as fair queues do when their messages carry a
   * MessageGroupId (`moto_fair_queues.py`); false leaves moto's send order. @default true
   */
  readonly fairQueues?: boolean;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

// A test run or CLI that dies must not leave an emulator listening behind it.
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/moto-api/data.json`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts moto's server (through `moto_serve.py`) from the project's virtualenv (creating it on first use) on a free
 * loopback port and resolves once it answers HTTP.
 *
 * @example
 * const moto = await startMotoServer();
 * const sqs = new SQSClient({ endpoint: moto.endpoint, region: 'us-east-1' });
 * // …
 * await moto.stop();
 */
export async function startMotoServer(options: MotoServerOptions = {}): Promise<MotoServer> {
  const python = join(dirname(ensureMotoVenv(options)), 'python');
  const port = options.port ?? (await freePort());
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(python, [SERVE_SCRIPT, '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PYTHONUNBUFFERED: '1',
      ...(options.transactionHoldMs !== undefined
        ? { MOTO_TRANSACTION_HOLD_MS: String(options.transactionHoldMs) }
        : {}),
      ...(options.fairQueues === false ? { MOTO_FAIR_QUEUES: '0' } : {}),
    },
  });
  installExitHook();
  running.add(child);
  const watched = watchChild(child, 50);
  void watched.gone.then(() => running.delete(child));

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  while (!(await answers(endpoint))) {
    if (watched.exitCode() !== undefined) {
      throw new MotoStartError(
        `moto_server exited with code ${watched.exitCode()} before answering on ${endpoint}. Its output:\n${watched.output().slice(-2000)}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new MotoStartError(
        `moto_server did not answer on ${endpoint} within ${options.startTimeoutMs ?? 30_000} ms. Its output:\n${watched.output().slice(-2000)}`,
      );
    }
    await sleep(100);
  }
  watched.quiet();

  return {
    endpoint,
    port,
    async reset() {
      const res = await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
      if (!res.ok) throw new MotoStartError(`moto reset failed with HTTP ${res.status}`);
      await res.arrayBuffer();
    },
    async stop() {
      if (watched.exitCode() !== undefined) return;
      child.kill('SIGTERM');
      const killed = await Promise.race([watched.gone.then(() => true), sleep(5000).then(() => false)]);
      if (!killed) {
        child.kill('SIGKILL');
        await watched.gone;
      }
    },
  };
}
