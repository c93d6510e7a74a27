/**
 * `npm run deploy:local`: the deploy rehearsal. Synthesizes the stack, publishes its assets,
 * deploys it through CloudFormation into LocalStack in host mode, checks it against the
 * template, runs `clause-review doctor --stack` and `submit --stack … --dry-run` against it, and
 * tears it down (localstack/rehearsal/). Exits 1 when a check fails.
 *
 *   npm run deploy:local [-- -c alertEmails=ops@example.com -c administrators=arn:aws:iam::000000000000:role/Admin]
 */
import { join } from 'node:path';
import { isLocalStackError } from './errors.js';
import { PROJECT_ROOT } from './python-venv.js';
import { rehearse } from './rehearsal/rehearse.js';
import { formatReport, rehearsalPassed } from './rehearsal/report.js';

function contextFlags(argv: readonly string[]): Record<string, string> {
  const context: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const value = arg === '-c' || arg === '--context' ? argv[++i] : undefined;
    const [key, ...rest] = (value ?? '').split('=');
    if (!key || rest.length === 0) {
      throw new Error(`expected -c key=value, got '${[arg, value].filter(Boolean).join(' ')}'`);
    }
    context[key] = rest.join('=');
  }
  return context;
}

try {
  const report = await rehearse({
    context: contextFlags(process.argv.slice(2)),
    sampleFile: join(
      PROJECT_ROOT,
      'test/fixtures/contracts/BELLICUMPHARMACEUTICALS_INC_05_07_2019-EX-10_1-Supply_Agreement.txt',
    ),
    log: (line) => console.error(`[rehearsal] ${line}`),
  });
  for (const line of formatReport(report)) console.log(line);
  process.exitCode = rehearsalPassed(report) ? 0 : 1;
} catch (error) {
  if (!isLocalStackError(error)) throw error;
  console.error(`error: ${error.message}`);
  process.exitCode = 2;
}
