import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { dlqCommand } from '../../bin/commands/dlq.js';
import { redriveDeadLetters, triageDeadLetters } from '../../lambdas/core/dlq/index.js';
import { emulatorClients } from '../../localstack/aws-clients.js';
import { subscribeToAlerts, testDlqDeps } from '../helpers/alerts.js';
import { provisionTestStack } from '../helpers/local-aws.js';

// No pipeline runs here: messages stay where the test puts them.
const stack = await provisionTestStack('dlqredrive');
const { sqs, sns } = stack.clients;
const alerts = await subscribeToAlerts(stack, sqs, sns);
const deps = testDlqDeps(stack);

const chunkBody = (jobId: string, chunk: number) =>
  JSON.stringify({
    v: 1,
    jobId,
    chunk,
    lane: 'batch',
    clauses: [{ index: 0, id: 'c0000', start: 0, end: 4, text: 'Text' }],
  });

async function drain(queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let empty = 0; empty < 2; ) {
    const r = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        VisibilityTimeout: 600,
      }),
    );
    if (!r.Messages?.length) empty++;
    for (const m of r.Messages ?? []) bodies.push(m.Body ?? '');
  }
  return bodies;
}

describe('dlq redrive', () => {
  it('falls back to receive-send-delete where StartMessageMoveTask is missing, keeping bodies unchanged and honouring --job', async () => {
    const a = chunkBody('j-aaaa', 1);
    const b = chunkBody('j-bbbb', 2);
    for (const body of [a, b]) {
      await sqs.send(new SendMessageCommand({ QueueUrl: stack.resources.dlqUrls.batch, MessageBody: body }));
    }
    const printed: string[] = [];
    const code = await dlqCommand(['redrive', '--job', 'j-bbbb'], {
      ...stack,
      print: (l) => printed.push(l),
    });
    expect(code).toBe(0);
    expect(printed).toContain('batch: receive-send-delete, 1 moved');
    expect(await drain(stack.resources.queueUrls.batch)).toEqual([b]);

    // No filters: the move task is tried first; on a ground without it (moto has none, AWS
    // and LocalStack have it) the fallback moves the rest. The action is taken away here so the
    // fallback runs on every ground.
    const withoutMoveTasks = emulatorClients(stack.endpoint).sqs;
    withoutMoveTasks.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'StartMessageMoveTaskCommand') {
          throw Object.assign(new Error('StartMessageMoveTask is not supported here'), {
            name: 'UnsupportedOperation',
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'noMoveTasks' },
    );
    const results = await redriveDeadLetters({ ...deps, sqs: withoutMoveTasks });
    withoutMoveTasks.destroy();
    expect(results.find((r) => r.queue === 'batch')).toEqual({
      queue: 'batch',
      method: 'receive-send-delete',
      moved: 1,
    });
    expect(await drain(stack.resources.queueUrls.batch)).toEqual([a]);
    expect(await drain(stack.resources.dlqUrls.batch)).toEqual([]);
  });

  it('rejects an unknown class with a usage error', async () => {
    const printed: string[] = [];
    expect(
      await dlqCommand(['redrive', '--class', 'cosmic'], { ...stack, print: (l) => printed.push(l) }),
    ).toBe(2);
    expect(printed.join('\n')).toContain(
      "--class must be one of transient, infrastructure, validation, logic; got 'cosmic'",
    );
  });
});

describe('three dead letters within an hour', () => {
  it('raise one escalation alert naming the classes', async () => {
    for (let i = 0; i < 3; i++) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: stack.resources.dlqUrls.realtime,
          MessageBody: `{"garbage":${i}}`,
        }),
      );
    }
    const printed: string[] = [];
    expect(await dlqCommand(['triage'], { ...stack, print: (l) => printed.push(l) })).toBe(0);
    expect(printed[0]).toBe('3 dead letter(s) seen; escalation alert sent');
    const sent = await alerts.take();
    const perLetter = sent.filter((a) => a.context.kind === 'dead-letter');
    expect(perLetter).toHaveLength(3);
    expect(
      perLetter.every((a) => a.context.errorClass === 'validation' && a.context.decision === 'dead'),
    ).toBe(true);
    const escalations = sent.filter((a) => a.context.kind === 'escalation');
    expect(escalations).toHaveLength(1);
    expect(escalations[0]?.subject).toMatch(/^clause-review ESCALATION: 3 dead letters within 60 min$/);
    expect(escalations[0]?.context).toMatchObject({
      count: 3,
      byClass: { validation: 3 },
      byQueue: { realtime: 3 },
    });

    // The same hour does not escalate twice.
    await sqs.send(
      new SendMessageCommand({ QueueUrl: stack.resources.dlqUrls.realtime, MessageBody: 'not json' }),
    );
    const again = await triageDeadLetters(deps);
    expect(again.seen).toBe(1);
    expect(again.escalated).toBe(false);
  });
});
