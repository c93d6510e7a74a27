/**
 * `npm run test:localstack`: the integration suite against LocalStack instead of moto. Starts
 * LocalStack in host mode (installing it into the project on first use), runs vitest on
 * test/integration (or the files given) with AWS_ENDPOINT_URL pointing at it, as a Docker
 * LocalStack would be used, and stops it, DynamoDB Local included, whatever the outcome. The
 * deploy rehearsal's test (test/integration/deploy-rehearsal.test.ts) runs only here.
 *
 *   npm run test:localstack [-- test/integration/intake.test.ts …]
 */
import { spawn } from 'node:child_process';
import { isLocalStackError } from './errors.js';
import { startLocalStackServer } from './localstack-server.js';
import { PROJECT_ROOT } from './python-venv.js';

async function main(files: string[]): Promise<number> {
  const server = await startLocalStackServer({ log: (line) => console.log(`[localstack] ${line}`) });
  const { tookMs, services } = server.readiness;
  const again = services.filter((s) => s.retries > 0).map((s) => `${s.service} ×${s.retries}`);
  console.log(
    `[localstack] LocalStack ${server.version} on ${server.endpoint}: every service answered within ${tookMs} ms` +
      (again.length > 0 ? ` (first requests sent again: ${again.join(', ')})` : ''),
  );
  // Stopped itself, it stops vitest too, and LocalStack once vitest has gone.
  let vitest: ReturnType<typeof spawn> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (vitest?.exitCode === null) vitest.kill(signal);
    else void server.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    vitest = spawn(
      process.execPath,
      [
        `${PROJECT_ROOT}/node_modules/vitest/vitest.mjs`,
        'run',
        ...(files.length > 0 ? files : ['test/integration']),
      ],
      {
        cwd: PROJECT_ROOT,
        stdio: 'inherit',
        env: { ...process.env, AWS_ENDPOINT_URL: server.endpoint, CLAUSE_REVIEW_LOCALSTACK_SUITE: '1' },
      },
    );
    const running = vitest;
    return await new Promise<number>((resolve) => running.once('exit', (code) => resolve(code ?? 1)));
  } finally {
    await server.stop();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (!isLocalStackError(error)) throw error;
  console.error(`error: ${error.message}`);
  process.exitCode = 2;
}
