import { spawn } from 'node:child_process';
import { CloudWatchClient, ListMetricsCommand } from '@aws-sdk/client-cloudwatch';
import { CognitoIdentityProviderClient, ListUserPoolsCommand } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startLocalStackServer } from './localstack/localstack-server.js';

const mode = process.argv[2];
const n = Number(process.argv[3] ?? 20);
const cfg = (endpoint: string) => ({
  endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  forcePathStyle: true,
  maxAttempts: 1,
});
async function firstRequests(endpoint: string): Promise<string[]> {
  const c = cfg(endpoint);
  const asks: [string, () => Promise<unknown>][] = [
    ['s3', () => new S3Client(c).send(new ListBucketsCommand({}))],
    ['sqs', () => new SQSClient(c).send(new ListQueuesCommand({}))],
    ['dynamodb', () => new DynamoDBClient(c).send(new ListTablesCommand({}))],
    ['sns', () => new SNSClient(c).send(new ListTopicsCommand({}))],
    ['cloudwatch', () => new CloudWatchClient(c).send(new ListMetricsCommand({}))],
    ['cognito-idp', () => new CognitoIdentityProviderClient(c).send(new ListUserPoolsCommand({ MaxResults: 1 }))],
  ];
  const out: string[] = [];
  for (const [name, ask] of asks) {
    try {
      await ask();
      out.push(`${name}:ok`);
    } catch (e) {
      out.push(`${name}:FAILED ${(e as Error).name} ${(e as Error).message.slice(0, 80)}`);
    }
  }
  return out;
}
if (mode === 'starts') {
  for (let i = 1; i <= n; i++) {
    const t = Date.now();
    const s = await startLocalStackServer({ log: () => {} });
    const answers = await firstRequests(s.endpoint);
    const again = s.readiness.services.filter((x) => x.retries > 0).map((x) => `${x.service}×${x.retries}`);
    console.log(`start ${i}: ready in ${s.readiness.tookMs} ms (${Date.now() - t} ms wall), retried: [${again.join(' ')}], first requests: ${answers.join(' ')}`);
    await s.stop();
  }
} else {
  const s = await startLocalStackServer({ log: () => {} });
  let passed = 0;
  for (let i = 1; i <= n; i++) {
    const t = Date.now();
    const code = await new Promise<number>((resolve) => {
      const p = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/integration/pipeline-recovery.test.ts'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, AWS_ENDPOINT_URL: s.endpoint, CLAUSE_REVIEW_LOCALSTACK_SUITE: '1' },
      });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      p.once('exit', (c) => {
        const summary = out.match(/Tests\s+.*\n/)?.[0]?.replace(/\x1b\[[0-9;]*m/g, '').trim();
        if (c !== 0) console.log(out.slice(-4000));
        console.log(`run ${i}: exit ${c}, ${summary}, ${Math.round((Date.now() - t) / 1000)} s`);
        resolve(c ?? 1);
      });
    });
    if (code === 0) passed++;
  }
  console.log(`${passed}/${n} passed`);
  await s.stop();
}
