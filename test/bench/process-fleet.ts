/**
 * What the benches of several worker processes share: a moto server holding one state table
 * (`pk`/`sk`, as the stack's), and child processes of the bench's own script that each print one
 * JSON report line.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { startMotoServer } from '../../localstack/moto-server.js';
import { createKeyTable } from '../helpers/key-table.js';

/** A moto server on loopback with `table` created in it. */
export interface FleetTable {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Starts moto and creates `table` with the state table's key schema. */
export async function startFleetTable(table: string): Promise<FleetTable> {
  const moto = await startMotoServer();
  const db = new DynamoDBClient({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    credentials: EMULATOR_CREDENTIALS,
  });
  try {
    await createKeyTable(db, table);
  } catch (error) {
    await moto.stop();
    throw error;
  } finally {
    db.destroy();
  }
  return { endpoint: moto.endpoint, stop: () => moto.stop() };
}

/**
 * Runs `script` (a bench file) as child `w<i>` with `--child --worker w<i>` and `args` as
 * `--name value` pairs, and resolves with the one JSON line it prints.
 */
export function spawnFleetChild<T>(
  script: string,
  i: number,
  args: Readonly<Record<string, string>>,
): Promise<T> {
  const proc = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      script,
      '--child',
      '--worker',
      `w${i}`,
      ...Object.entries(args).flatMap(([k, v]) => [`--${k}`, v]),
    ],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    },
  );
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  return new Promise<T>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as T));
    proc.once('exit', (code) => reject(new Error(`process w${i} exited with ${code} before reporting`)));
  });
}
