/**
 * Runs the Bedrock stand-in as its own process, so benchmarks keep client and server on
 * separate cores:
 *
 *   npx tsx localstack/bedrock/main.ts --port 0 --seed 1 [--plan plan.json]
 *
 * Prints one JSON line `{"url": "http://127.0.0.1:PORT"}` on stdout once listening, and stops
 * cleanly on SIGTERM or SIGINT. Diagnostics go to stderr so stdout stays machine-readable.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseFaultPlanPatch } from './fault-plan.js';
import { startBedrockStandIn } from './server.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      seed: { type: 'string', default: '1' },
      plan: { type: 'string' },
    },
    strict: true,
  });
  const port = Number(values.port);
  const seed = Number(values.seed);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0..65535, got ${values.port}`);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const plan = values.plan ? parseFaultPlanPatch(JSON.parse(await readFile(values.plan, 'utf8'))) : undefined;

  const standIn = await startBedrockStandIn({ port, seed, plan });
  process.stdout.write(`${JSON.stringify({ url: standIn.url })}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`bedrock stand-in: ${signal}, closing\n`);
    standIn.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`bedrock stand-in: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
