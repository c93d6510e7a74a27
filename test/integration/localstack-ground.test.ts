/**
 * LocalStack as a second ground, in every test run: it is installed into the project on first
 * use (localstack/localstack-install.ts), started in host mode without Docker, given the
 * pipeline's whole topology, and stopped with its DynamoDB Local JVM. Its endpoint is handed
 * over only once every service has answered a first request. The whole integration
 * suite runs on it with `npm run test:localstack`.
 */
import { execFileSync } from 'node:child_process';
import { ListDashboardsCommand } from '@aws-sdk/client-cloudwatch';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { CreateTopicCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { topology } from '../../lib/topology.js';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { LOCALSTACK_SERVICES, startLocalStackServer } from '../../localstack/localstack-server.js';
import { provision } from '../../localstack/provision.js';

const server = await startLocalStackServer();
let stopped = false;
afterAll(async () => {
  if (!stopped) await server.stop();
});

/** The command lines of the processes with these ids that still run (an unreaped zombie does not). */
function running(pids: readonly number[]): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([pid, stat]) => pids.includes(Number(pid)) && !stat?.startsWith('Z'))
    .map((fields) => fields.join(' '));
}

describe('LocalStack without Docker', () => {
  it('hands its endpoint over with every service the pipeline uses running, at the pinned version', async () => {
    expect(server.version).toBe('2026.3.0');
    const health = (await (await fetch(`${server.endpoint}/_localstack/health`)).json()) as {
      services: Record<string, string>;
    };
    for (const s of LOCALSTACK_SERVICES) expect(health.services[s]).toBe('running');
    // Each answered its first request, in turn, before the hand-over.
    expect(server.readiness.services.map((r) => r.service)).toEqual([...LOCALSTACK_SERVICES]);
    for (const r of server.readiness.services)
      expect(r.readyAfterMs).toBeLessThanOrEqual(server.readiness.tookMs);
  });

  it("answers the first requests of clients starting at once, as the suite's files do", async () => {
    // Four files provisioning at the same moment: each its own clients, each service at once.
    const sets = Array.from({ length: 4 }, () => emulatorClients(server.endpoint));
    const prefix = `ls-first-${Date.now().toString(36)}`;
    const answers = await Promise.allSettled(
      sets.flatMap((c, i) => [
        c.s3.send(new CreateBucketCommand({ Bucket: `${prefix}-${i}` })),
        c.sqs.send(new CreateQueueCommand({ QueueName: `${prefix}-${i}` })),
        c.dynamodb.send(new ListTablesCommand({})),
        c.sns.send(new CreateTopicCommand({ Name: `${prefix}-${i}` })),
        c.cloudwatch.send(new ListDashboardsCommand({})),
      ]),
    );
    for (const c of sets) c.destroy();
    const refused = answers.flatMap((a) => (a.status === 'rejected' ? [String(a.reason)] : []));
    expect(refused).toEqual([]);
  });

  it('takes the whole topology, and S3 events, queues and DynamoDB Local work on it', async () => {
    const clients = emulatorClients(server.endpoint);
    const t = topology({ prefix: 'ls-ground' });
    const resources = await provision(t, clients);
    // An upload under the intake prefix becomes an S3 event on the intake queue.
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: resources.intakeBucket,
        Key: `${resources.intakePrefix}a.txt`,
        Body: 'x',
      }),
    );
    // As S3 does, LocalStack first sends an s3:TestEvent when the notification is set up
    // (intake reads it as naming no object).
    const bodies: string[] = [];
    for (let i = 0; i < 5 && !bodies.some((b) => b.includes('ObjectCreated')); i++) {
      const r = await clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: resources.queueUrls.intake,
          WaitTimeSeconds: 5,
          MaxNumberOfMessages: 10,
        }),
      );
      bodies.push(...(r.Messages ?? []).map((m) => m.Body ?? ''));
    }
    expect(bodies.find((b) => b.includes('ObjectCreated'))).toContain(`${resources.intakePrefix}a.txt`);
    // Queue URLs name the gateway itself, so a client that follows them needs no DNS.
    expect(new URL(resources.queueUrls.batch).host).toBe(new URL(server.endpoint).host);
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: resources.queueUrls.batch, MessageBody: 'hi' }),
    );
    // DynamoDB is AWS's own DynamoDB Local: a refused condition is ConditionalCheckFailedException.
    await clients.documents.send(
      new PutCommand({ TableName: resources.tableName, Item: { pk: 'JOB#1', sk: 'JOB' } }),
    );
    const refused = await clients.documents
      .send(
        new PutCommand({
          TableName: resources.tableName,
          Item: { pk: 'JOB#1', sk: 'JOB' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: Error) => error.name);
    expect(refused).toBe('ConditionalCheckFailedException');
    const got = await clients.documents.send(
      new GetCommand({ TableName: resources.tableName, Key: { pk: 'JOB#1', sk: 'JOB' } }),
    );
    expect(got.Item?.pk).toBe('JOB#1');
  });

  it('stops with its DynamoDB Local JVM: nothing of it is left running', async () => {
    const started = [server.pid, ...server.descendants()];
    expect(running(started).some((l) => l.includes('DynamoDBLocal.jar'))).toBe(true);
    await server.stop();
    stopped = true;
    expect(running(started)).toEqual([]);
  });
});
